import NIOCore
import Testing

@testable import DNSProxy

/// The DNS path's counts: by outcome and type, the cache's misses, each upstream's answers,
/// failures and latency buckets, added up across loops.
@Suite struct LoopMetricsTests {
    @Test func eachOutcomeHasItsOwnLabelAndEachTypeItsCount() {
        let outcomes: [QueryOutcome] = [
            .blocked(.antiBypass("canary")), .cached, .forwarded, .stale, .synthesized, .refused, .unsupported,
            .malformed, .failed,
        ]
        #expect(outcomes.map { QueryOutcome.metricLabels[$0.metricIndex] } == outcomes.map(\.kind.rawValue))
        let loop = LoopMetrics()
        loop.answered(.cached, type: 1)
        loop.answered(.cached, type: 1)
        loop.answered(.forwarded, type: 65)
        loop.answered(.failed, type: 99)  // a type not counted by name
        loop.answered(.malformed, type: 0)
        loop.missedCache()
        var total = DNSMetrics()
        loop.add(to: &total)
        loop.add(to: &total)  // a second loop with the same counts
        #expect(
            total.answeredByOutcomeAndType.map { "\($0.outcome) \($0.type) \($0.count)" } == [
                "cached A 4", "forwarded HTTPS 2", "malformed other 2", "failed other 2",
            ])
        #expect(total.cacheHits == 4 && total.sentUpstream == 2)
    }

    @Test func upstreamLatencyFallsInItsBucketAndKeepsItsSum() throws {
        let server = try SocketAddress(ipAddress: "192.0.2.53", port: 53)
        let loop = LoopMetrics()
        loop.upstreamAnswered(server, nanoseconds: 800_000)  // 0.8 ms: the first bucket
        loop.upstreamAnswered(server, nanoseconds: 1_000_000)  // 1 ms: still the first (le)
        loop.upstreamAnswered(server, nanoseconds: 30_000_000)  // 30 ms: the 50 ms bucket
        loop.upstreamAnswered(server, nanoseconds: 9_000_000_000)  // 9 s: past the last
        loop.upstreamFailed(server)
        var total = DNSMetrics()
        loop.add(to: &total)
        let tally = try #require(total.upstreams[server])
        #expect(tally.answers == 4 && tally.failures == 1)
        let fiftyMilliseconds = try #require(DNSMetrics.latencyBuckets.firstIndex(of: 50_000_000))
        #expect(tally.bucketCounts[0] == 2 && tally.bucketNanoseconds[0] == 1_800_000)
        #expect(tally.bucketCounts[fiftyMilliseconds] == 1)
        #expect(tally.bucketCounts.last == 1 && tally.bucketNanoseconds.last == 9_000_000_000)
        #expect(tally.bucketCounts.reduce(0, +) == tally.answers)
    }
}
