import HTTPTypes
import LockrControl
import Logging
import NIOCore
import NIOHTTPTypes

/// First on an HTTP connection: counts it against `quota` by its source address as it opens, and
/// closes it at once when the source holds its share or every connection is taken; a counted one
/// is given back when it closes.
final class ConnectionQuotaHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let quota: SourceQuota

    init(quota: SourceQuota) {
        self.quota = quota
    }

    func channelActive(context: ChannelHandlerContext) {
        let source = context.channel.remoteAddress?.ipAddress ?? ""
        guard quota.take(for: source) == nil else {
            context.close(promise: nil)
            return
        }
        context.channel.closeFuture.whenComplete { [quota] _ in quota.giveBack(for: source) }
        context.fireChannelActive()
    }
}

/// A quota the log and `/metrics` report on: `label` in metrics, `description` in words.
struct WatchedQuota: Sendable {
    let label: String
    let description: String
    let quota: SourceQuota
}

/// Says in the log, at most once per `period`, how many connections or streams each quota refused.
struct QuotaWatch: Sendable {
    let quotas: [WatchedQuota]
    let logger: Logger
    var period: Duration = .seconds(60)

    func run() async {
        var seen = quotas.map { $0.quota.refused }
        while !Task.isCancelled {
            try? await Task.sleep(for: period)
            for (index, watched) in quotas.enumerated() {
                let quota = watched.quota
                let refused = quota.refused
                guard refused > seen[index] else { continue }
                logger.warning(
                    "refused \(watched.description): a device holds its share or all are taken",
                    metadata: [
                        "refused": "\(refused - seen[index])", "open": "\(quota.count)", "limit": "\(quota.total)",
                        "per-address": "\(quota.perSource)",
                    ])
                seen[index] = refused
            }
        }
    }
}

/// Closes the connection once a response that says `Connection: close` has been written, as
/// HTTP/1.1 asks (a refused event stream, so that its connection is not kept for another request).
final class ClosingResponseHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var closing = false

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            closing = head.headerFields[.connection] == "close"
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            guard closing else { return context.write(data, promise: promise) }
            context.writeAndFlush(data, promise: promise)
            context.close(promise: nil)
        }
    }
}
