import DNSTestSupport
import Foundation
import Testing

/// Safe search for one person and not another, seen with dig: the kid (127.0.0.2) gets Google's and
/// YouTube's enforcement hosts, the parent (127.0.0.3) the names as they are; `lockr explain` and the
/// query log say why; switching it off in the config file waits like any loosening change.
@Suite(.serialized) struct SafeSearchEndToEndTests {
    static let records: [String: [String]] = [
        "tiktok.com.": ["tiktok.com. 300 IN A 192.0.2.21"],
        "www.google.com.": ["www.google.com. 300 IN A 192.0.2.80", "www.google.com. 300 IN AAAA 2001:db8::80"],
        "forcesafesearch.google.com.": [
            "forcesafesearch.google.com. 300 IN A 216.239.38.120",
            "forcesafesearch.google.com. 300 IN AAAA 2001:4860:4802:32::78",
        ],
        "www.youtube.com.": ["www.youtube.com. 300 IN A 192.0.2.22"],
        "restrict.youtube.com.": ["restrict.youtube.com. 300 IN A 216.239.38.120"],
        "restrictmoderate.youtube.com.": ["restrictmoderate.youtube.com. 300 IN A 216.239.38.119"],
    ]

    static func config(kidSafeSearch: Bool) -> String {
        """
        guard = ["tiktok"]
        [policy]
        mode = "hourly"
        time-zone = "UTC"

        [query-log]
        privacy = "full"

        [people.kid]
        devices = ["127.0.0.2"]
        safe-search = \(kidSafeSearch)
        youtube = "\(kidSafeSearch ? "strict" : "off")"

        [people.parent]
        devices = ["127.0.0.3"]

        """
    }

    /// The answer section dig prints for `name` of `type` asked from `source`, one "TYPE DATA" a line.
    func answers(
        _ name: String, _ type: String = "A", from source: String, _ lockr: LockrProcess
    ) async throws -> [String] {
        try await dig(lockr.port, "-b", source, name, type, "+noall", "+answer").split(separator: "\n").map { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" }).suffix(2).joined(separator: " ")
        }
    }

    @Test func theKidGetsTheEnforcementHostsAndTheParentDoesNot() async throws {
        let upstream = try await ScriptedUpstream(records: Self.records)
        let configPath = NSTemporaryDirectory() + "lockr-e2e-safe-search-\(UUID()).toml"
        try Self.config(kidSafeSearch: true).write(toFile: configPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: configPath) }
        let lockr = try await LockrProcess(
            [
                // Policy time at its own pace from 10:00: the hour the change waits for stays far off.
                "--config", configPath, "--upstream", "127.0.0.1:\(upstream.port)", "--start-at",
                "2026-06-01T10:00:00Z",
            ])
        try await stoppingAfterwards(lockr, upstream) {
            #expect(
                try await answers("www.google.com", from: "127.0.0.2", lockr) == [
                    "CNAME forcesafesearch.google.com.", "A 216.239.38.120",
                ])
            #expect(
                try await answers("WWW.Google.COM", "AAAA", from: "127.0.0.2", lockr) == [
                    "CNAME forcesafesearch.google.com.", "AAAA 2001:4860:4802:32::78",
                ])
            #expect(
                try await answers("www.youtube.com", from: "127.0.0.2", lockr) == [
                    "CNAME restrict.youtube.com.", "A 216.239.38.120",
                ])
            // Yandex publishes an address, answered here; it has no IPv6 one.
            #expect(try await answers("yandex.ru", from: "127.0.0.2", lockr) == ["A 213.180.193.56"])
            #expect(try await answers("yandex.ru", "AAAA", from: "127.0.0.2", lockr).isEmpty)
            #expect(upstream.queries(for: "yandex.ru.") == 0)
            // The parent, and every other device, gets the names as they are.
            #expect(try await answers("www.google.com", from: "127.0.0.3", lockr) == ["A 192.0.2.80"])
            #expect(try await answers("www.youtube.com", from: "127.0.0.1", lockr) == ["A 192.0.2.22"])
            // ... and the kid again, now from the cache, and still not the parent's cached answer.
            #expect(
                try await answers("www.google.com", from: "127.0.0.2", lockr).first
                    == "CNAME forcesafesearch.google.com.")
            #expect(upstream.queries(for: "www.google.com.") == 1)

            let explained = try await lockr.cli("explain", "www.google.com", "--person", "kid").output
            #expect(
                explained.contains("safe search (search engines, YouTube strict): Google's strict mode"),
                "\(explained)")
            #expect(
                try await lockr.cli("explain", "www.google.com", "--person", "parent").output.contains(
                    "no rule blocks it"))
            let kid = try await lockr.cli("status", "--person", "kid").output
            #expect(kid.contains("Safe search: search engines, YouTube strict."), "\(kid)")
            #expect(try await !lockr.cli("status", "--person", "parent").output.contains("Safe search"))
            var logged = ""
            for _ in 0..<60 where !logged.contains("safe search: Google") {
                try await Task.sleep(for: .milliseconds(100))
                logged = try await lockr.cli("queries", "--limit", "20").output
            }
            #expect(logged.contains("safe search: Google, forcesafesearch.google.com"), "\(logged)")

            // Switching it off in the file loosens: it waits, and the kid keeps safe search meanwhile.
            let before = lockr.log.components(separatedBy: "reloaded").count
            try Self.config(kidSafeSearch: false).write(toFile: configPath, atomically: true, encoding: .utf8)
            lockr.signal(SIGHUP)
            for _ in 0..<200 where lockr.log.components(separatedBy: "reloaded").count == before {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(lockr.log.components(separatedBy: "reloaded").count > before, "no reload: \(lockr.log)")
            let pending = try await lockr.cli("pending", "list", "--person", "kid").output
            #expect(
                pending.contains("safe-search: on → off") && pending.contains("youtube: strict → off"), "\(pending)")
            #expect(
                try await answers("www.google.com", from: "127.0.0.2", lockr).first
                    == "CNAME forcesafesearch.google.com.")
        }
    }
}
