import DNSWire
import NIOCore

/// What one event loop counted: answered queries by outcome and record type, queries sent upstream,
/// and each upstream's answers, failures and latency. Plain numbers touched only on its event loop,
/// so counting takes no lock; `DNSServer.metrics()` reads every loop's on that loop and adds them up.
final class LoopMetrics: @unchecked Sendable {
    private var answered = [UInt64](repeating: 0, count: QueryOutcome.metricLabels.count * DNSMetrics.types.count)
    private var sentUpstream: UInt64 = 0
    private var upstreams: [SocketAddress: UpstreamTally] = [:]

    /// Counts a query answered with `outcome`; `type` is the record type asked for (0: unreadable).
    func answered(_ outcome: QueryOutcome, type: UInt16) {
        answered[outcome.metricIndex * DNSMetrics.types.count + DNSMetrics.typeIndex(type)] &+= 1
    }

    /// Counts a query the cache could not answer, on its way upstream.
    func missedCache() { sentUpstream &+= 1 }

    /// Counts an upstream's answer, `nanoseconds` after the question was sent.
    func upstreamAnswered(_ server: SocketAddress, nanoseconds: Int64) {
        upstreams[server, default: UpstreamTally()].answered(nanoseconds: nanoseconds)
    }

    /// Counts an attempt an upstream failed: no answer in time, an unusable answer, no way to send.
    func upstreamFailed(_ server: SocketAddress) {
        upstreams[server, default: UpstreamTally()].failures &+= 1
    }

    /// Adds this loop's counts to `total`.
    func add(to total: inout DNSMetrics) {
        for (index, count) in answered.enumerated() where count > 0 { total.answered[index] &+= count }
        total.sentUpstream &+= sentUpstream
        for (server, tally) in upstreams { total.upstreams[server, default: UpstreamTally()].add(tally) }
    }
}

/// One upstream's answers, failed attempts and a histogram of its answers' latency: per bucket, how
/// many answers and the sum of their latencies (so that what the buckets hold can be told again
/// exactly, bucket and sum both).
public struct UpstreamTally: Sendable, Equatable {
    public internal(set) var answers: UInt64 = 0
    public internal(set) var failures: UInt64 = 0
    /// Per bucket of `DNSMetrics.latencyBuckets` (and one past the last).
    public internal(set) var bucketCounts = [UInt64](repeating: 0, count: DNSMetrics.latencyBuckets.count + 1)
    public internal(set) var bucketNanoseconds = [UInt64](repeating: 0, count: DNSMetrics.latencyBuckets.count + 1)

    public init() {}

    mutating func answered(nanoseconds: Int64) {
        let nanoseconds = UInt64(max(0, nanoseconds))
        let bucket = DNSMetrics.latencyBuckets.firstIndex { nanoseconds <= $0 } ?? DNSMetrics.latencyBuckets.count
        answers &+= 1
        bucketCounts[bucket] &+= 1
        bucketNanoseconds[bucket] &+= nanoseconds
    }

    mutating func add(_ other: UpstreamTally) {
        answers &+= other.answers
        failures &+= other.failures
        for index in bucketCounts.indices {
            bucketCounts[index] &+= other.bucketCounts[index]
            bucketNanoseconds[index] &+= other.bucketNanoseconds[index]
        }
    }
}

/// Every loop's counts added up, since the server started.
public struct DNSMetrics: Sendable, Equatable {
    /// The record types counted by name; every other type is counted as "other".
    public static let types: [String] = [
        "A", "AAAA", "HTTPS", "SVCB", "CNAME", "MX", "TXT", "PTR", "SRV", "NS", "SOA", "ANY", "other",
    ]
    private static let typeNumbers: [UInt16] = [1, 28, 65, 64, 5, 15, 16, 12, 33, 2, 6, 255]

    /// Upper bounds of the upstream latency buckets, in nanoseconds: 1 ms to 2.5 s.
    public static let latencyBuckets: [UInt64] = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500].map {
        UInt64($0 * 1_000_000)
    }

    static func typeIndex(_ type: UInt16) -> Int { typeNumbers.firstIndex(of: type) ?? typeNumbers.count }

    /// Per outcome (`QueryOutcome.metricLabels`) and type (`types`).
    var answered = [UInt64](repeating: 0, count: QueryOutcome.metricLabels.count * types.count)
    /// Queries the cache could not answer.
    public internal(set) var sentUpstream: UInt64 = 0
    /// By upstream.
    public internal(set) var upstreams: [SocketAddress: UpstreamTally] = [:]

    public init() {}

    /// The answered queries counted, by outcome and type, without the zeros.
    public var answeredByOutcomeAndType: [(outcome: String, type: String, count: UInt64)] {
        answered.enumerated().compactMap { index, count in
            guard count > 0 else { return nil }
            return (QueryOutcome.metricLabels[index / Self.types.count], Self.types[index % Self.types.count], count)
        }
    }

    /// Queries answered from the cache while fresh (a stale answer is one the upstreams were asked
    /// for, a miss).
    public var cacheHits: UInt64 {
        answeredByOutcomeAndType.filter { $0.outcome == "cached" }.reduce(0) { $0 + $1.count }
    }

    mutating func add(_ other: DNSMetrics) {
        for index in answered.indices { answered[index] &+= other.answered[index] }
        sentUpstream &+= other.sentUpstream
        for (server, tally) in other.upstreams { upstreams[server, default: UpstreamTally()].add(tally) }
    }
}

extension QueryOutcome {
    /// Every outcome's word, in `metricIndex` order.
    static let metricLabels = AnswerOutcome.allCases.map(\.rawValue)

    var metricIndex: Int {
        switch self {
        case .blocked: 0
        case .cached: 1
        case .forwarded: 2
        case .stale: 3
        case .synthesized: 4
        case .refused: 5
        case .unsupported: 6
        case .malformed: 7
        case .failed: 8
        }
    }
}
