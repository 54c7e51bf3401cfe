import NIOCore

/// Answers DNS queries arriving on a UDP socket. Immediate answers are written as the batch of
/// datagrams is read and flushed once at the end of the batch. When the socket cannot take more
/// (a flood), answers are dropped as UDP allows rather than queued without bound.
final class UDPQueryHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let context: LoopContext
    private var needsFlush = false

    init(context: LoopContext) { self.context = context }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        var envelope = unwrapInboundIn(data)
        guard let packet = envelope.data.readBytes(length: envelope.data.readableBytes) else { return }
        let client = envelope.remoteAddress
        switch context.handle(packet, from: client, transport: .udp) {
        case .reply(let reply):
            guard channelContext.channel.isWritable else { return }
            let buffer = channelContext.channel.allocator.buffer(bytes: reply)
            channelContext.write(wrapOutboundOut(AddressedEnvelope(remoteAddress: client, data: buffer)), promise: nil)
            needsFlush = true
        case .nothing:
            break
        case .later(let answer):
            let channel = channelContext.channel
            answer.whenSuccess { reply in
                guard channel.isWritable else { return }
                let buffer = channel.allocator.buffer(bytes: reply)
                channel.writeAndFlush(AddressedEnvelope(remoteAddress: client, data: buffer), promise: nil)
            }
        }
    }

    func channelReadComplete(context channelContext: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            channelContext.flush()
        }
    }

    /// A UDP socket reports ICMP errors for earlier sends; they concern one client, not the socket.
    func errorCaught(context: ChannelHandlerContext, error: Error) {}
}
