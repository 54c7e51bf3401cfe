import DNSTestSupport
import Foundation
import Testing

/// A person's own filter through the real binary, seen with dig: a deny entry and a block list by
/// URL block for the kid (127.0.0.2) at once and not for the parent (127.0.0.3); removing the entry
/// and allowing a name loosen, so they wait; a bad rule is refused; after a restart the entries and
/// the list's kept copy still filter.
@Suite struct FiltersEndToEndTests {
    static let records: [String: [String]] = [
        "games.example.": ["games.example. 300 IN A 192.0.2.31"],
        "www.games.example.": ["www.games.example. 300 IN A 192.0.2.32"],
        "v1.tracker.test.": ["v1.tracker.test. 300 IN A 192.0.2.33"],
    ]

    static let config = """
        [policy]
        mode = "hourly"
        time-zone = "UTC"

        [people.kid]
        devices = ["127.0.0.2"]

        [people.parent]
        devices = ["127.0.0.3"]

        """

    /// The A record dig gets for `name` asked from `source`.
    func address(_ name: String, from source: String, _ lockr: LockrProcess) async throws -> String? {
        try await dig(lockr.port, "-b", source, name, "A", "+short").split(separator: "\n").last.map(String.init)
    }

    /// Polls until `name` is sinkholed for `source`; false after 15 seconds.
    func becomesBlocked(_ name: String, from source: String, _ lockr: LockrProcess) async throws -> Bool {
        for _ in 0..<150 {
            if try await address(name, from: source, lockr) == "0.0.0.0" { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    func withLockr(stateDirectory: String, _ body: (LockrProcess) async throws -> Void) async throws {
        let upstream = try await ScriptedUpstream(records: Self.records)
        let configPath = NSTemporaryDirectory() + "lockr-e2e-filters-\(UUID()).toml"
        try Self.config.write(toFile: configPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: configPath) }
        let lockr = try await LockrProcess(
            [
                "--config", configPath, "--upstream", "127.0.0.1:\(upstream.port)", "--start-at",
                "2026-06-01T10:00:00Z",
            ], stateDirectory: stateDirectory)
        try await stoppingAfterwards(lockr, upstream) { try await body(lockr) }
    }

    @Test func ownEntriesBlockForTheirPersonAndLooseningOnesWait() async throws {
        let stateDirectory = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        let server = try ListServer()
        let url = server.url("/hosts.txt")
        try await withLockr(stateDirectory: stateDirectory) { lockr in
            #expect(try await address("games.example", from: "127.0.0.2", lockr) == "192.0.2.31")
            let denied = try await lockr.cli(
                "filters", "deny", "games.example", "--comment", "homework first", "--person", "kid")
            #expect(denied.status == 0, "\(denied.output)")
            #expect(denied.output.contains("deny  games.example  # homework first"), "\(denied.output)")
            #expect(try await address("games.example", from: "127.0.0.2", lockr) == "0.0.0.0", "at once")
            #expect(try await address("www.games.example", from: "127.0.0.2", lockr) == "0.0.0.0", "and its subdomains")
            #expect(try await address("games.example", from: "127.0.0.3", lockr) == "192.0.2.31", "not the parent")
            let reason = try await dig(lockr.port, "-b", "127.0.0.2", "games.example", "A")
            #expect(reason.contains("blocked by ||games.example^ (own entries)"), "\(reason)")
            let explained = try await lockr.cli("explain", "games.example", "--person", "kid").output
            #expect(explained.contains("||games.example^ (own entries)"), "\(explained)")

            let listed = try await lockr.cli("filters", "blocklist", url, "--person", "kid")
            #expect(listed.status == 0, "\(listed.output)")
            #expect(try await becomesBlocked("v1.tracker.test", from: "127.0.0.2", lockr), "\(lockr.log)")
            #expect(try await address("v1.tracker.test", from: "127.0.0.3", lockr) == "192.0.2.33")
            let lists = try await lockr.cli("lists").output
            #expect(lists.contains("\(url)  block for kid: 2 rules"), "\(lists)")

            // Removing what blocks, and allowing, loosen: they wait for the hour's end.
            let removed = try await lockr.cli("filters", "remove", "deny", "games.example", "--person", "kid")
            #expect(removed.status == 0 && removed.output.contains("deny games.example"), "\(removed.output)")
            let allowed = try await lockr.cli("filters", "allow", "|v1.tracker.test^", "--person", "kid")
            #expect(allowed.status == 0, "\(allowed.output)")
            let pending = try await lockr.cli("pending", "list", "--person", "kid").output
            #expect(pending.contains("deny games.example: listed (homework first) → not listed"), "\(pending)")
            #expect(pending.contains("allow |v1.tracker.test^: not listed → listed"), "\(pending)")
            #expect(try await address("games.example", from: "127.0.0.2", lockr) == "0.0.0.0", "still until then")
            #expect(try await address("v1.tracker.test", from: "127.0.0.2", lockr) == "0.0.0.0")

            let bad = try await lockr.cli("filters", "deny", "bad_name!.example", "--person", "kid")
            #expect(bad.status == 1 && bad.output.contains("is not allowed in a domain"), "\(bad.output)")
            let file = try await lockr.cli("filters", "blocklist", "/etc/hosts", "--person", "kid")
            #expect(file.status == 1 && file.output.contains("an http:// or https:// URL"), "\(file.output)")
            let shown = try await lockr.cli("filters", "--person", "kid", "--json").output
            let json = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
            #expect((json?["entries"] as? [[String: Any]])?.count == 2, "\(shown)")
        }
        // After a restart with the list server still there but not needed: the kept copy filters.
        try await withLockr(stateDirectory: stateDirectory) { (lockr: LockrProcess) async throws in
            #expect(try await address("games.example", from: "127.0.0.2", lockr) == "0.0.0.0")
            #expect(try await address("v1.tracker.test", from: "127.0.0.2", lockr) == "0.0.0.0")
            #expect(try await lockr.cli("pending", "list", "--person", "kid").output.contains("deny games.example"))
        }
        #expect(
            server.requests.filter { $0.hasPrefix("GET /hosts.txt") }.count == 1, "fetched once: \(server.requests)")
    }
}
