import NIOCore

/// Answers DNS queries on one TCP connection (RFC 7766): several queries per connection, answered as
/// they complete (possibly out of order); the connection closes when idle or on a framing error.
final class TCPQueryHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundOut = [UInt8]

    private let context: LoopContext

    init(context: LoopContext) { self.context = context }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        let packet = unwrapInboundIn(data)
        guard let client = channelContext.remoteAddress else { return }
        switch context.handle(packet, from: client, transport: .tcp) {
        case .reply(let reply):
            channelContext.writeAndFlush(wrapOutboundOut(reply), promise: nil)
        case .nothing:
            break
        case .later(let answer):
            let channel = channelContext.channel
            answer.whenSuccess { reply in channel.writeAndFlush(reply, promise: nil) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
