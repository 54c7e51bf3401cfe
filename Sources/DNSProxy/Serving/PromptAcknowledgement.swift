import Glibc
import NIOCore

/// Has the kernel acknowledge what a connection received at once (TCP_QUICKACK), not up to 40 ms
/// later in the hope that a reply will carry the acknowledgement. For reads that get no reply at
/// once (a WINDOW_UPDATE, a query waiting for the upstreams): a client with Nagle's algorithm on,
/// as dnsperf's DoH is, holds its next request back until that acknowledgement comes.
enum PromptAcknowledgement {
    private static let option = ChannelOptions.Types.SocketOption(
        level: .tcp, name: NIOBSDSocket.Option(rawValue: TCP_QUICKACK))

    static func request(on channel: Channel) {
        try? channel.syncOptions?.setOption(option, value: 1)
    }
}
