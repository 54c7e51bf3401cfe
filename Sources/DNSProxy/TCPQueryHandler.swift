import NIOCore

/// Answers DNS queries on one TCP connection (RFC 7766): several queries per connection, answered as
/// they complete (possibly out of order). At most `maxPending` queries wait on upstreams at once;
/// beyond that the connection is not read until one finishes. The connection closes when idle or on
/// a framing error.
final class TCPQueryHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundOut = [UInt8]

    static let maxPending = 64

    private let context: LoopContext
    private var pending = 0

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
            pending += 1
            if pending == Self.maxPending { channel.setOption(.autoRead, value: false).whenFailure { _ in } }
            let handler = NIOLoopBound(self, eventLoop: channelContext.eventLoop)
            answer.whenSuccess { reply in
                channel.writeAndFlush(reply, promise: nil)
                handler.value.finishedOne(channel)
            }
        }
    }

    private func finishedOne(_ channel: Channel) {
        pending -= 1
        if pending == Self.maxPending - 1 { channel.setOption(.autoRead, value: true).whenFailure { _ in } }
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
