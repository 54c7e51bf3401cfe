import DNSTestSupport
import Foundation
import Testing

/// `/metrics` against the real binary, read by prometheus_client's own parser
/// (Tests/Scripts/parse_metrics.py): the queries answered by outcome and type, the cache, each
/// upstream's answers and latency histogram, today's use per person and app; behind the token.
@Suite struct MetricsEndToEndTests {
    static let parser = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/parse_metrics.py").path

    struct Sample {
        let type: String
        let name: String
        let labels: [String: String]
        let value: Double
    }

    /// Scrapes with `token` (none: without one); the status and the samples the parser read.
    func scrape(_ lockr: LockrProcess, token: String?) async throws -> (status: Int, samples: [Sample]) {
        let address = try PolicyEndToEndTests().controlEndpoint(lockr).address
        let text = try await runAwaited(
            "curl",
            [
                "-s", "-w", "\n%{content_type}\n%{http_code}", "-H", "Authorization: Bearer \(token ?? "")",
                "http://\(address)/metrics",
            ]
        ).output
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.removeLast()) ?? 0
        let type = lines.removeLast()
        guard status == 200 else { return (status, []) }
        #expect(type == "text/plain; charset=utf-8; version=0.0.4", "Prometheus's text format")
        let body = lines.joined(separator: "\n")
        let input = NSTemporaryDirectory() + "lockr-metrics-\(UUID()).txt"
        try body.write(toFile: input, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: input) }
        let parsed = try await runAwaited("sh", ["-c", "python3 '\(Self.parser)' < '\(input)'"])
        guard parsed.status == 0 else { throw LockrProcess.Failure("\(parsed.output)\n\(body)") }
        let samples = parsed.output.split(separator: "\n").compactMap { line -> Sample? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return Sample(
                type: object["type"] as? String ?? "", name: object["name"] as? String ?? "",
                labels: object["labels"] as? [String: String] ?? [:], value: object["value"] as? Double ?? -1)
        }
        return (status, samples)
    }

    func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?
            .value
    }

    @Test func queriesCacheUpstreamsAndUseAreCountedAndParse() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "time") { lockr, _ in
            for _ in 0..<3 { _ = try await dig(lockr.port, "news.example", "A", "+short") }
            _ = try await dig(lockr.port, "news.example", "AAAA", "+short")
            for _ in 0..<2 { _ = try await dig(lockr.port, "tiktok.com", "A", "+short") }
            // Firefox's canary: lockr blocks it, so that DNS over HTTPS stays off.
            _ = try await dig(lockr.port, "use-application-dns.net", "A", "+short")
            let (token, _) = try PolicyEndToEndTests().controlEndpoint(lockr)
            let (status, samples) = try await scrape(lockr, token: token)
            #expect(status == 200)
            // news.example and tiktok (guarded, open in time mode) forwarded once each, then cached.
            #expect(value(samples, "lockr_dns_queries_total", ["outcome": "forwarded", "type": "A"]) == 2)
            #expect(value(samples, "lockr_dns_queries_total", ["outcome": "cached", "type": "A"]) == 3)
            #expect(value(samples, "lockr_dns_queries_total", ["outcome": "forwarded", "type": "AAAA"]) == 1)
            let answered = samples.filter { $0.name == "lockr_dns_queries_total" }.reduce(0) { $0 + $1.value }
            #expect(answered == 7)
            #expect(value(samples, "lockr_dns_queries_total", ["outcome": "blocked", "type": "A"]) == 1)
            #expect(value(samples, "lockr_dns_cache_hits_total") == 3)
            #expect(value(samples, "lockr_dns_cache_misses_total") == 3)
            #expect((value(samples, "lockr_dns_cache_entries") ?? 0) >= 3)
            let upstream = try #require(
                samples.first { $0.name == "lockr_dns_upstream_answers_total" }?.labels["upstream"])
            #expect(value(samples, "lockr_dns_upstream_answers_total", ["upstream": upstream]) == 3)
            #expect(value(samples, "lockr_dns_upstream_failures_total", ["upstream": upstream]) == 0)
            let histogram = samples.filter { $0.name.hasPrefix("lockr_dns_upstream_latency_seconds") }
            #expect(histogram.first?.type == "histogram")
            #expect(value(histogram, "lockr_dns_upstream_latency_seconds_count", ["upstream": upstream]) == 3)
            #expect(value(histogram, "lockr_dns_upstream_latency_seconds_bucket", ["le": "+Inf"]) == 3)
            #expect((value(histogram, "lockr_dns_upstream_latency_seconds_sum") ?? 0) > 0)
            #expect(value(samples, "lockr_usage_today_seconds", ["person": "default", "app": "tiktok"]) != nil)
            #expect(value(samples, "lockr_app_open", ["person": "default", "app": "tiktok"]) == 1)

            // Scraped again, counters move on by what is new only.
            _ = try await dig(lockr.port, "news.example", "A", "+short")
            let again = try await scrape(lockr, token: token).samples
            #expect(value(again, "lockr_dns_queries_total", ["outcome": "cached", "type": "A"]) == 4)
            #expect(value(again, "lockr_dns_upstream_latency_seconds_count", ["upstream": upstream]) == 3)

            #expect(try await scrape(lockr, token: "wrong").status == 401)
            #expect(try await scrape(lockr, token: nil).status == 401)
        }
    }
}
