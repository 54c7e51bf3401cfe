import DNSTestSupport
import Foundation
import Testing

/// `lockr stats` against the real binary: a minute of policy time of tiktok looked up as an app in
/// use (at --time-scale 10, so that a loaded machine's slow lookups never leave the 5-minute gap
/// that would make a second open), then the day's use, opens, queries and streaks as JSON and as bars.
@Suite(.serialized) struct StatsEndToEndTests {
    @Test func theDayShowsUseOpensQueriesAndStreaks() async throws {
        try await PolicyEndToEndTests().withLockr(
            mode: "time", sections: "[time]\nbudget-minutes = 30\n", timeScale: 10
        ) { lockr, _ in
            // 60 lookups 0.1 s apart: 1 s of policy time apart, an app in use.
            for _ in 0..<60 {
                _ = try await dig(lockr.port, "tiktok.com", "A", "+short")
                try await Task.sleep(for: .milliseconds(100))
            }
            // Every lookup counted, give or take one a loaded machine lost: waited for, not slept on.
            func queries(_ text: String) -> Int {
                let body = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                let person = (body?["people"] as? [[String: Any]])?.first
                let day = (person?["days"] as? [[String: Any]])?.first
                return (day?["queries"] as? [String: Int])?.values.reduce(0, +) ?? 0
            }
            _ = try await eventually(10) { queries(try await lockr.cli("stats", "--json").output) >= 55 }
            let output = try await lockr.cli("stats", "--json")
            #expect(output.status == 0, "\(output.output)")
            let body = try JSONSerialization.jsonObject(with: Data(output.output.utf8)) as? [String: Any]
            let person = try #require((body?["people"] as? [[String: Any]])?.first)
            let day = try #require((person["days"] as? [[String: Any]])?.first)
            #expect(day["budget_seconds"] as? Int == 1800)
            let apps = day["apps"] as? [[String: Any]] ?? []
            let tiktok = try #require(apps.first { $0["id"] as? String == "tiktok" })
            #expect((tiktok["used_seconds"] as? Int ?? 0) >= 30, "\(tiktok)")
            #expect(tiktok["opens"] as? Int == 1)
            #expect(queries(output.output) >= 55)
            let streaks = person["streaks"] as? [String: [String: Int]]
            #expect(streaks?["held_limits"]?["current"] == 1)

            let text = try await lockr.cli("stats")
            #expect(text.status == 0)
            #expect(text.output.contains("budget      █"), "\(text.output)")
            #expect(text.output.contains("TikTok") && text.output.contains("1 open"))
            #expect(text.output.contains("streaks: limits held 1 day (best 1 day)"))
            #expect(!text.output.contains("\u{1B}["), "no colour when not a terminal")
            let week = try await lockr.cli("stats", "--week")
            #expect(week.status == 0 && week.output.contains("1 day"))
            let bad = try await lockr.cli("stats", "--week", "--month")
            #expect(bad.status != 0 && bad.output.contains("give one of --day, --week and --month"))
        }
    }
}
