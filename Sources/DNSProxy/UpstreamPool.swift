import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The upstream servers and how well each has been answering.
///
/// Servers that failed recently are tried after the ones that did not, so a dead upstream stops
/// being tried first; after `penaltySeconds` without news it is given another chance. Among healthy
/// servers the faster (smoothed round-trip time) goes first, and the configured order breaks ties.
/// A server that fails `downAfter` times in a row is down (logged once, as is its return); while
/// every server is down, queries get a stale answer at once, or else SERVFAIL after a moment, instead
/// of waiting out every attempt.
public final class UpstreamPool: Sendable {
    public let servers: [Upstream]
    /// The TLS contexts of the encrypted servers; nil when all are plain.
    let tls: UpstreamTLS?
    private let health: NIOLockedValueBox<[Health]>
    private let logger: Logger?
    static let penaltyNanoseconds: UInt64 = 30_000_000_000
    /// Failures in a row that make a server down.
    static let downAfter = 3

    struct Health {
        var consecutiveFailures = 0
        var lastFailure: UInt64 = 0
        /// When it went down (monotonic nanoseconds), while it is down.
        var downSince: UInt64?
        /// Smoothed round-trip time in microseconds; nil until the first answer.
        var smoothedRTT: Double?
    }

    /// `tls` is needed when any of `upstreams` is encrypted.
    public init(upstreams: [Upstream], tls: UpstreamTLS? = nil, logger: Logger? = nil) {
        servers = upstreams
        self.tls = tls
        self.logger = logger
        health = NIOLockedValueBox(Array(repeating: Health(), count: upstreams.count))
    }

    /// Plain DNS servers.
    public convenience init(servers: [SocketAddress], logger: Logger? = nil) {
        self.init(upstreams: servers.map(Upstream.plain), logger: logger)
    }

    /// Server indices in the order to try them.
    func order(now: UInt64) -> [Int] {
        health.withLockedValue { health in
            servers.indices.sorted { lhs, rhs in
                let left = Self.rank(health[lhs], now: now)
                let right = Self.rank(health[rhs], now: now)
                return left != right ? left < right : lhs < rhs
            }
        }
    }

    private static func rank(_ health: Health, now: UInt64) -> Double {
        let penalised = health.consecutiveFailures > 0 && now &- health.lastFailure < penaltyNanoseconds
        let failurePart = penalised ? Double(health.consecutiveFailures) * 1e9 : 0
        return failurePart + (health.smoothedRTT ?? 0)
    }

    /// Whether every server is down and failed within the penalty time: no answer is coming soon.
    func allDown(now: UInt64) -> Bool {
        health.withLockedValue { health in
            !health.isEmpty
                && health.allSatisfy { $0.downSince != nil && now &- $0.lastFailure < Self.penaltyNanoseconds }
        }
    }

    func recordSuccess(_ server: Int, rttMicroseconds: Double, now: UInt64) {
        let downSince = health.withLockedValue { health -> UInt64? in
            let downSince = health[server].downSince
            health[server].consecutiveFailures = 0
            health[server].downSince = nil
            let previous = health[server].smoothedRTT ?? rttMicroseconds
            health[server].smoothedRTT = previous * 0.8 + rttMicroseconds * 0.2
            return downSince
        }
        if let downSince {
            logger?.notice(
                "upstream answering again",
                metadata: [
                    "upstream": "\(servers[server])",
                    "down-seconds": "\((now &- downSince) / 1_000_000_000)",
                ])
        }
    }

    func recordFailure(_ server: Int, now: UInt64, reason: String) {
        let wentDown = health.withLockedValue { health -> Bool in
            health[server].consecutiveFailures += 1
            health[server].lastFailure = now
            guard health[server].downSince == nil, health[server].consecutiveFailures >= Self.downAfter else {
                return false
            }
            health[server].downSince = now
            return true
        }
        if wentDown {
            logger?.warning(
                "upstream down",
                metadata: [
                    "upstream": "\(servers[server])", "failures-in-a-row": "\(Self.downAfter)",
                    "last": "\(reason)",
                ])
        }
    }
}

/// Why forwarding a query failed.
public enum ForwardError: Error, Equatable {
    /// No upstream gave a usable answer within the attempts.
    case noUpstreamAnswered
    /// No upstream is configured.
    case noUpstreams
    /// Every upstream is known to be down, and none answered within the short wait that allows.
    case upstreamsDown
}
