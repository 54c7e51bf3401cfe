import NIOCore

/// Answers DNS queries on one TCP or DNS-over-TLS connection (RFC 7766, RFC 7858): several queries per connection, answered as
/// they complete (possibly out of order). At most `maxPending` queries wait on upstreams at once;
/// beyond that the connection is not read until one finishes. The connection closes on a framing
/// error, and when it completes no query for `queryTimeout` (from its start, its last query or its
/// last answer, and never while answers are pending): bytes that never make a query do not keep it.
final class TCPQueryHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundOut = [UInt8]

    static let maxPending = 64

    private let context: LoopContext
    /// When the connection closes for idleness; the queries waiting, told to the connection table.
    private let idleness: ConnectionIdleness
    private let transport: Transport
    /// The ClientID of the connection's server name (DNS over TLS).
    private let clientID: String?
    private var pending = 0

    init(context: LoopContext, idleness: ConnectionIdleness, transport: Transport = .tcp, clientID: String? = nil) {
        self.context = context
        self.idleness = idleness
        self.transport = transport
        self.clientID = clientID
    }

    func handlerRemoved(context: ChannelHandlerContext) { idleness.stop() }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        let packet = unwrapInboundIn(data)
        guard let client = channelContext.remoteAddress else { return }
        idleness.touched()
        switch context.handle(packet, from: client, transport: transport, clientID: clientID) {
        case .reply(let reply):
            channelContext.writeAndFlush(wrapOutboundOut(reply), promise: nil)
        case .nothing:
            break
        case .later(let answer):
            let channel = channelContext.channel
            pending += 1
            idleness.began()
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
        idleness.ended()
        if pending == Self.maxPending - 1 { channel.setOption(.autoRead, value: true).whenFailure { _ in } }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }
}
