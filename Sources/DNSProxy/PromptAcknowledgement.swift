import Glibc
import NIOCore

/// Has the kernel acknowledge a read that got no reply at once (TCP_QUICKACK), instead of up to
/// 40 ms later in the hope that a reply will carry the acknowledgement. A client with Nagle's
/// algorithm on (dnsperf's DoH, many HTTP/2 clients) holds its next request back until then.
/// Reads that do get a reply (most: blocked, cached and local answers) cost nothing more: the reply
/// carries the acknowledgement. First in a stream connection's pipeline, it sees every read and
/// every write of the connection's bytes.
final class PromptAcknowledgement: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer

    private static let option = ChannelOptions.Types.SocketOption(
        level: .tcp, name: NIOBSDSocket.Option(rawValue: TCP_QUICKACK))
    private var wroteSinceRead = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        wroteSinceRead = false
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
        if !wroteSinceRead { try? context.channel.syncOptions?.setOption(Self.option, value: 1) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        wroteSinceRead = true
        context.write(data, promise: promise)
    }
}
