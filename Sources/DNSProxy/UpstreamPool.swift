import NIOConcurrencyHelpers
import NIOCore

/// The upstream servers and how well each has been answering.
///
/// Servers that failed recently are tried after the ones that did not, so a dead upstream stops
/// being tried first; after `penaltySeconds` without news it is given another chance. Among healthy
/// servers the faster (smoothed round-trip time) goes first, and the configured order breaks ties.
public final class UpstreamPool: Sendable {
    public let servers: [SocketAddress]
    private let health: NIOLockedValueBox<[Health]>
    static let penaltyNanoseconds: UInt64 = 30_000_000_000

    struct Health {
        var consecutiveFailures = 0
        var lastFailure: UInt64 = 0
        /// Smoothed round-trip time in microseconds; nil until the first answer.
        var smoothedRTT: Double?
    }

    public init(servers: [SocketAddress]) {
        self.servers = servers
        health = NIOLockedValueBox(Array(repeating: Health(), count: servers.count))
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

    func recordSuccess(_ server: Int, rttMicroseconds: Double) {
        health.withLockedValue { health in
            health[server].consecutiveFailures = 0
            let previous = health[server].smoothedRTT ?? rttMicroseconds
            health[server].smoothedRTT = previous * 0.8 + rttMicroseconds * 0.2
        }
    }

    func recordFailure(_ server: Int, now: UInt64) {
        health.withLockedValue { health in
            health[server].consecutiveFailures += 1
            health[server].lastFailure = now
        }
    }
}

/// How queries are sent upstream.
public struct ForwardSettings: Sendable, Equatable {
    /// How long one attempt waits for an answer before the next upstream is tried.
    public var attemptTimeout: TimeAmount
    /// Attempts per query, cycling through the upstreams in health order.
    public var attempts: Int
    /// UDP sockets per address family and event loop.
    public var socketsPerFamily: Int
    /// Queries one socket carries before a socket on a new random port replaces it.
    public var queriesPerPort: Int

    public init(
        attemptTimeout: TimeAmount = .milliseconds(1000), attempts: Int = 3, socketsPerFamily: Int = 8,
        queriesPerPort: Int = 64
    ) {
        self.attemptTimeout = attemptTimeout
        self.attempts = attempts
        self.socketsPerFamily = socketsPerFamily
        self.queriesPerPort = queriesPerPort
    }
}

/// Why forwarding a query failed.
public enum ForwardError: Error, Equatable {
    /// No upstream gave a usable answer within the attempts.
    case noUpstreamAnswered
    /// No upstream is configured.
    case noUpstreams
}
