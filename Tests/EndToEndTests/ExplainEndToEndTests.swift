import DNSTestSupport
import Foundation
import Testing

/// `lockr explain` against the real binary, one name for each kind of reason: a rule of a person's
/// list, an
/// anti-bypass name, a guarded app locked by its mode, one open in its window, one with budget left,
/// a schedule, a profile, and a name nothing blocks; by person and by device; and it changes nothing.
@Suite(.serialized) struct ExplainEndToEndTests {
    static let list: String = {
        let path = NSTemporaryDirectory() + "lockr-e2e-explain-list.txt"
        try! "ads.example\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    static let sections = """
        [profiles.focus]
        block = ["instagram"]

        [people.alice]
        devices = ["127.0.0.2"]
        [people.alice.policy]
        mode = "time"

        [people.bob]
        devices = ["127.0.0.3"]
        blocklists = ["\(list)"]
        [people.bob.schedules.always]
        from = "00:00"
        to = "23:59"
        block = ["youtube"]

        """

    func explain(_ lockr: LockrProcess, _ arguments: String...) async throws -> [String: Any] {
        let output = try await lockr.cli(["explain", "--json"] + arguments)
        #expect(output.status == 0, "\(output.output)")
        return try JSONSerialization.jsonObject(with: Data(output.output.utf8)) as? [String: Any] ?? [:]
    }

    @Test func eachKindOfReason() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.sections) { lockr, _ in
            // A rule of Bob's own list.
            let rule = try await explain(lockr, "www.ads.example", "--person", "bob")
            #expect(rule["verdict"] as? String == "blocked" && rule["rule"] as? String == "||ads.example^")
            #expect((rule["list"] as? String)?.hasSuffix("lockr-e2e-explain-list.txt") == true)
            #expect(rule["answer"] as? String == "0.0.0.0, TTL 60 s")

            let canary = try await explain(lockr, "use-application-dns.net", "--person", "default")
            #expect(canary["answer"] as? String == "NXDOMAIN, TTL 60 s")
            #expect((canary["reason"] as? String)?.contains("anti-bypass") == true)

            let locked = try await explain(lockr, "tiktok.com", "--type", "AAAA", "--person", "default")
            #expect(locked["verdict"] as? String == "blocked" && locked["code"] as? String == "locked")
            #expect(locked["app"] as? String == "tiktok" && locked["mode"] as? String == "hourly")
            #expect(locked["answer"] as? String == "::, TTL 5 s")

            #expect(try await lockr.cli("unlock", "instagram", "--person", "default").status == 0)
            let open = try await explain(lockr, "instagram.com", "--person", "default")
            #expect(open["verdict"] as? String == "app_open" && open["ttl_cap_seconds"] as? Int != nil)

            // Alice is in time mode with budget left: open, and asking changes nothing.
            for _ in 0..<20 { _ = try await explain(lockr, "tiktok.com", "--client", "127.0.0.2") }
            let budget = try await explain(lockr, "tiktok.com", "--client", "127.0.0.2")
            #expect(budget["person"] as? String == "alice" && budget["verdict"] as? String == "app_open")
            let apps = try await lockr.status(of: "alice")["apps"] as? [[String: Any]] ?? []
            #expect(
                !apps.isEmpty && apps.allSatisfy { ($0["used_seconds"] as? Int) == 0 },
                "explain meters nothing: \(apps)")

            let scheduled = try await explain(lockr, "www.youtube.com", "--person", "bob")
            #expect(scheduled["code"] as? String == "schedule")

            #expect(try await lockr.cli("profile", "activate", "focus", "--person", "alice").status == 0)
            let profiled = try await explain(lockr, "instagram.com", "--person", "alice")
            #expect(profiled["code"] as? String == "profile", "\(profiled)")

            let free = try await explain(lockr, "news.example", "--person", "bob")
            #expect(free["verdict"] as? String == "allowed" && free["reason"] as? String == "no rule blocks it")

            let text = try await lockr.cli("explain", "tiktok.com", "--person", "default")
            #expect(text.output.contains("tiktok.com A, for default in hourly mode"))
            #expect(text.output.contains("  blocked: ") && text.output.contains("[locked]"))
            // The web pages' own name is lockr's, not an allowed one (the CLI knows every verdict).
            let pages = try await lockr.cli("explain", "lockr.lan", "--person", "default")
            #expect(pages.output.contains("  answered by lockr: the name of lockr's web pages"), "\(pages.output)")
            #expect(!pages.output.contains("allowed"), "\(pages.output)")
            let bad = try await lockr.cli("explain", "tiktok.com", "--type", "BOGUS", "--person", "default")
            #expect(bad.status == 1 && bad.output.contains("'BOGUS' is not a record type"))
            let badName = try await lockr.cli("explain", "bad..name", "--person", "default")
            #expect(badName.status == 1 && badName.output.contains("is not a domain name"))
        }
    }
}
