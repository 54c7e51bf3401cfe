import DNSTestSupport
import Foundation
import Synchronization
import Testing

/// The query log through the real binary: dig asks from three people's addresses, `lockr queries`
/// reads what was logged as each person's privacy level allows; a locked database costs entries,
/// counted, never answers.
@Suite(.serialized) struct QueryLogEndToEndTests {
    /// Alice (127.0.0.2) is logged in full, the kid (127.0.0.3) by the names of apps only, the guest
    /// (127.0.0.4) by counts only.
    static let people = """

        [people.alice]
        devices = ["127.0.0.2"]

        [people.kid]
        devices = ["127.0.0.3"]
        [people.kid.query-log]
        privacy = "apps"

        [people.guest]
        devices = ["127.0.0.4"]
        [people.guest.query-log]
        privacy = "counts"

        """

    /// The queries the log counted today, for everyone (`lockr stats`).
    func answeredToday(_ lockr: LockrProcess) async throws -> Int {
        let body = try JSONSerialization.jsonObject(with: Data(try await lockr.cli("stats", "--json").output.utf8))
        let people = (body as? [String: Any])?["people"] as? [[String: Any]] ?? []
        return people.compactMap { ($0["days"] as? [[String: Any]])?.last?["queries"] as? [String: Int] }
            .flatMap(\.values).reduce(0, +)
    }

    func entries(_ lockr: LockrProcess, _ arguments: String...) async throws -> [[String: Any]] {
        let output = try await lockr.cli(["queries", "--json"] + arguments)
        let body = try JSONSerialization.jsonObject(with: Data(output.output.utf8)) as? [String: Any]
        return body?["entries"] as? [[String: Any]] ?? []
    }

    /// Waits until the log holds `count` entries (written a quarter second apart, in batches).
    func waitForEntries(_ count: Int, _ lockr: LockrProcess) async throws -> [[String: Any]] {
        for _ in 0..<50 {
            let found = try await entries(lockr)
            if found.count >= count { return found }
            try await Task.sleep(for: .milliseconds(100))
        }
        return try await entries(lockr)
    }

    @Test func queriesAreLoggedAsEachPersonsPrivacyAllowsAndCanBeFiltered() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.people) { lockr, _ in
            for source in ["127.0.0.2", "127.0.0.3", "127.0.0.4"] {
                _ = try await dig(lockr.port, "-b", source, "news.example", "A")
                _ = try await dig(lockr.port, "-b", source, "tiktok.com", "AAAA")
            }
            let logged = try await waitForEntries(3, lockr)
            let lines = logged.map { entry in
                ["person", "client", "name", "type", "outcome"].map { entry[$0] as? String ?? "-" }.joined(
                    separator: " ")
            }
            #expect(
                lines == [
                    "alice 127.0.0.2 news.example A forwarded", "alice 127.0.0.2 tiktok.com AAAA blocked",
                    "kid 127.0.0.3 tiktok.com AAAA blocked",
                ])
            let forwarded = logged[0]
            #expect(forwarded["upstream"] as? String != nil && forwarded["latency_ms"] as? Double != nil)
            #expect(
                (logged[1]["reason"] as? String)?.hasPrefix("tiktok") == true && logged[1]["app"] as? String == "tiktok"
            )

            #expect(try await entries(lockr, "--person", "kid").map { $0["name"] as? String } == ["tiktok.com"])
            #expect(try await entries(lockr, "--person", "guest").isEmpty)
            #expect(try await entries(lockr, "--client", "127.0.0.2").count == 2)
            #expect(try await entries(lockr, "--blocked").count == 2)
            #expect(try await entries(lockr, "--since", "1h").count == 3)
            #expect(try await entries(lockr, "--limit", "1").map { $0["person"] as? String } == ["kid"])

            // The human form: one line per query, the person named when the household has several.
            let text = try await lockr.cli("queries", "--blocked")
            #expect(text.status == 0)
            let human = text.output.split(separator: "\n")
            #expect(human.count == 2)
            #expect(
                human[0].contains("127.0.0.2") && human[0].contains("alice")
                    && human[0].contains("tiktok.com  AAAA  blocked (tiktok"))
            // "14:03:22  " and the client in a column at least 15 wide (longer ones kept whole).
            #expect(human[0].dropFirst(10).hasPrefix("127.0.0.2        alice  "), "\(human[0])")
            let bad = try await lockr.cli("queries", "--since", "yesterday")
            #expect(bad.status != 0 && bad.output.contains("--since must be a duration"))

            // Following, as tail -f: the newest entries, then each query as it is logged.
            let follow = Process()
            follow.executableURL = URL(fileURLWithPath: LockrProcess.binary)
            follow.arguments = ["queries", "--follow", "--json", "--state-dir", lockr.stateDirectory]
            let pipe = Pipe()
            let printed = Mutex("")
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let text = String(decoding: handle.availableData, as: UTF8.self)
                printed.withLock { $0 += text }
            }
            follow.standardOutput = pipe
            try follow.run()
            defer {
                follow.terminate()
                pipe.fileHandleForReading.readabilityHandler = nil
            }
            // Following once it has printed what the log held (the news.example entry).
            #expect(await eventually(10) { printed.withLock { $0.contains("news.example") } })
            _ = try await dig(lockr.port, "-b", "127.0.0.2", "instagram.com", "A")
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, !printed.withLock({ $0.contains("instagram.com") }) {
                try await Task.sleep(for: .milliseconds(100))
            }
            let lastLines = printed.withLock { $0 }.split(separator: "\n")
            #expect(
                lastLines.contains { $0.contains("\"name\":\"instagram.com\"") && $0.contains("\"person\":\"alice\"") })
            #expect(lastLines.first?.contains("news.example") == true && lastLines.count == 4)
        }
    }

    /// A stop loses no entry: what was answered in the quarter second before SIGTERM, not yet handed
    /// to the database, is written as lockr stops (it was dropped as a cancelled write).
    @Test func queriesAnsweredJustBeforeAStopAreLogged() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let names = (1...5).map { "n\($0).news.example" }
        try await PolicyEndToEndTests().withLockr(mode: "hourly", stateDirectory: state) { lockr, _ in
            for name in names { _ = try await dig(lockr.port, name, "A") }
            #expect(await lockr.stop(sending: SIGTERM, within: 15) == 0)
            #expect(!lockr.finalLog.contains("query log entries dropped"), "\(lockr.finalLog)")
        }
        try await PolicyEndToEndTests().withLockr(mode: "hourly", stateDirectory: state) { lockr, _ in
            let logged = try await entries(lockr).compactMap { $0["name"] as? String }
            #expect(logged == names)
        }
    }

    /// The log is formatted and stored on a thread of its own at nice 19, so that the DNS event loops
    /// take the CPU from it whenever a query comes.
    @Test func theLogIsWrittenOnAThreadThatYieldsToTheEventLoops() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly") { lockr, _ in
            _ = try await dig(lockr.port, "news.example", "A")
            #expect(try await waitForEntries(1, lockr).count == 1)
            let tasks = "/proc/\(lockr.process.processIdentifier)/task"
            let niceness = try FileManager.default.contentsOfDirectory(atPath: tasks).compactMap { thread -> Int? in
                let name = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8)
                guard name == "lockr-querylog\n" else { return nil }
                // stat's fields after the name in parentheses: the 19th of the line is the nice value
                let stat = try String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8)
                let fields = stat[stat.lastIndex(of: ")")!...].split(separator: " ")
                return Int(fields[17])
            }
            #expect(niceness == [19])
        }
    }

    @Test func aLockedDatabaseCostsEntriesNotAnswers() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly") { lockr, _ in
            _ = try await dig(lockr.port, "news.example", "A")
            _ = try await waitForEntries(1, lockr)
            // Another program holds the query log's write lock until its input closes.
            let holder = Process()
            holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            holder.arguments = [
                "python3", "-c",
                """
                import sqlite3, sys
                db = sqlite3.connect(sys.argv[1], isolation_level=None)
                db.execute('BEGIN EXCLUSIVE')
                print('locked', flush=True)
                sys.stdin.read()
                db.execute('ROLLBACK')
                """,
                lockr.stateDirectory + "/queries.sqlite",
            ]
            let output = Pipe()
            let input = Pipe()
            holder.standardOutput = output
            holder.standardInput = input
            try holder.run()
            #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).contains("locked"))
            for _ in 0..<5 {
                #expect(try await dig(lockr.port, "tiktok.com", "A", "+short").contains("0.0.0.0"))
            }
            // The writer gives up on each batch after its busy timeout and counts the entries.
            var dropped = 0
            for _ in 0..<100 where dropped < 5 {
                let body = try JSONSerialization.jsonObject(
                    with: Data(try await lockr.cli("queries", "--json").output.utf8))
                dropped = (body as? [String: Any])?["dropped"] as? Int ?? 0
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(dropped == 5)
            try input.fileHandleForWriting.close()
            holder.waitUntilExit()
            _ = try await dig(lockr.port, "instagram.com", "A")
            let after = try await waitForEntries(2, lockr)
            #expect(after.map { $0["name"] as? String } == ["news.example", "instagram.com"])
            let text = try await lockr.cli("queries")
            #expect(
                text.output.contains("(5 entries dropped since lockr started: the log could not be written)"),
                "\(text.output)")
            #expect(try String(contentsOfFile: lockr.logPath, encoding: .utf8).contains("query log entries dropped"))
        }
    }

    @Test func aReloadChangesPrivacyAtOnceAndEnabledOnlyOnRestart() async throws {
        let configPath = NSTemporaryDirectory() + "lockr-e2e-querylog-reload-\(UUID()).toml"
        defer { try? FileManager.default.removeItem(atPath: configPath) }
        try await PolicyEndToEndTests().withLockr(mode: "hourly", configPath: configPath) { lockr, _ in
            _ = try await dig(lockr.port, "news.example", "A")
            _ = try await waitForEntries(1, lockr)
            let before = lockr.log.components(separatedBy: "reloaded").count
            let text = """
                guard = ["tiktok", "youtube", "instagram"]
                [policy]
                mode = "hourly"
                time-zone = "UTC"
                [query-log]
                enabled = false
                privacy = "counts"

                """
            try text.write(toFile: configPath, atomically: true, encoding: .utf8)
            lockr.signal(SIGHUP)
            for _ in 0..<100 where lockr.log.components(separatedBy: "reloaded").count == before {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(lockr.log.contains("changed settings that apply only when lockr restarts"))
            #expect(lockr.log.contains("settings=query-log.enabled"), "\(lockr.log)")
            // Still a log (enabled waits for a restart), but the default person is now only counted:
            // once the writer has counted the query, it has written no entry of it.
            let counted = try await answeredToday(lockr)
            _ = try await dig(lockr.port, "instagram.com", "A")
            #expect(try await eventually(10) { try await answeredToday(lockr) > counted })
            #expect(try await entries(lockr).map { $0["name"] as? String } == ["news.example"])
        }
    }

    @Test func aLogThatIsOffSaysSo() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: "[query-log]\nenabled = false\n") {
            lockr, _ in
            _ = try await dig(lockr.port, "news.example", "A")
            let answer = try await lockr.cli("queries")
            #expect(answer.status == 1 && answer.output.contains("The query log is off"))
            #expect(!FileManager.default.fileExists(atPath: lockr.stateDirectory + "/queries.sqlite"))
        }
    }
}
