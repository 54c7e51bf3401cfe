import DNSTestSupport
import DNSWire
import Foundation
import Testing

/// Modes, windows and gates through the real binary: the CLI verbs drive the daemon, drill checks
/// what a client gets. `--time-scale 60` makes a 5-minute window last 5 real seconds.
@Suite(.serialized) struct PolicyEndToEndTests {
    static let records: [String: [String]] = [
        "tiktok.com.": ["tiktok.com. 300 IN A 192.0.2.21"],
        "www.youtube.com.": ["www.youtube.com. 300 IN A 192.0.2.22"],
        "instagram.com.": ["instagram.com. 300 IN A 192.0.2.23"],
        "news.example.": ["news.example. 300 IN A 192.0.2.24"],
    ]

    /// Runs `body` with an upstream and a lockr guarding tiktok, youtube and instagram in `mode`, with
    /// `sections` (TOML) added to its config, policy time in UTC and 60 times faster. With
    /// `configPath`, the config is written there and left for the test to change.
    func withLockr(
        mode: String, preamble: String = "", sections: String = "", stateDirectory: String? = nil, timeScale: Int = 60,
        configPath: String? = nil, _ body: (LockrProcess, ScriptedUpstream) async throws -> Void
    ) async throws {
        let upstream = try await ScriptedUpstream(records: Self.records)
        let ownPath = NSTemporaryDirectory() + "lockr-e2e-policy-\(UUID()).toml"
        let configPath = configPath ?? ownPath
        let config =
            preamble + """
                guard = ["tiktok", "youtube", "instagram"]
                [policy]
                mode = "\(mode)"
                time-zone = "UTC"

                """
        try (config + sections).write(toFile: configPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: ownPath) }
        // Policy time starts at 10:00 UTC, so no test runs into an hour or a day boundary by chance.
        let arguments = [
            "--config", configPath, "--upstream", "127.0.0.1:\(upstream.port)", "--time-scale", "\(timeScale)",
            "--start-at", "2026-06-01T10:00:00Z",
        ]
        let lockr: LockrProcess
        do { lockr = try await LockrProcess(arguments, stateDirectory: stateDirectory) } catch {
            await upstream.stop()
            throw error
        }
        try await stoppingAfterwards(lockr, upstream) { try await body(lockr, upstream) }
    }

    /// The A record drill gets for `name`.
    func address(_ name: String, _ lockr: LockrProcess) async throws -> String? {
        let output = try await drill(lockr.port, name, "A")
        return output.split(separator: "\n").first { $0.hasPrefix(name) && $0.contains("\tA\t") }
            .map { String($0.split(separator: "\t").last!) }
    }

    /// Polls until `name` is sinkholed; returns the seconds it took, or nil after `limit` seconds.
    func secondsUntilBlocked(_ name: String, _ lockr: LockrProcess, limit: Double = 15) async throws -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if try await address(name, lockr) == "0.0.0.0" { return Date().timeIntervalSince(start) }
            try await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    @Test func hourlyUnlockOpensAWindowThatClosesWhenItEnds() async throws {
        // Policy time 10 times faster: the 5-minute window lasts 30 real seconds, longer than a
        // loaded machine takes over the checks made in it (15 were not, beside a build).
        try await withLockr(mode: "hourly", sections: "[hourly]\nwindow-minutes = 5\n", timeScale: 10) { lockr, _ in
            #expect(try await address("tiktok.com.", lockr) == "0.0.0.0")
            let reason = try await dig(lockr.port, "tiktok.com", "A")
            #expect(reason.contains("tiktok: locked; `lockr unlock tiktok` opens 5 min"))
            // Names outside guarded apps are untouched.
            #expect(try await address("www.youtube.com.", lockr) == "0.0.0.0")

            let unlock = try await lockr.cli("unlock", "tiktok")
            #expect(unlock.status == 0)
            #expect(unlock.output.contains("tiktok: open until"))
            // Judged in policy time, as the daemon reports it. The status is read a moment after the
            // unlock, and a loaded machine's moment is seconds (minutes of policy time): the window
            // is open and at most 5 minutes long; its exact length is the policy engine's tests'.
            let opened = try await lockr.policyClock("tiktok")
            let windowEnds = try #require(opened.windowEnds)
            let left = windowEnds.timeIntervalSince(opened.now)
            #expect(left > 0 && left <= 5 * 60, "\(left) s of policy time left")
            #expect(try await address("tiktok.com.", lockr) == "192.0.2.21")
            // The answer's TTL is clamped to the window (5 policy minutes are 30 real seconds).
            let open = try await dig(lockr.port, "tiktok.com", "A", "+noall", "+answer")
            let ttl = Int(open.split(whereSeparator: \.isWhitespace)[1]) ?? 999
            #expect(ttl <= 30)
            #expect(try await address("www.youtube.com.", lockr) == "0.0.0.0")

            #expect(try await secondsUntilBlocked("tiktok.com.", lockr, limit: 60) != nil)
            // Not before its end, and at most a few seconds of polling (minutes of policy time) after.
            let blocked = try await lockr.policyClock("tiktok").now
            #expect(
                blocked >= windowEnds && blocked < windowEnds.addingTimeInterval(5 * 60), "\(blocked), \(windowEnds)")
            #expect(try await dig(lockr.port, "tiktok.com", "A").contains("tiktok: hourly window used, next at 11:00"))
            let again = try await lockr.cli("unlock", "tiktok")
            #expect(again.status == 1)
            #expect(again.output.contains("hourly window used"))
            let log = try await lockr.cli("log")
            #expect(log.output.contains("unlock") && log.output.contains("lock "))
        }
    }

    /// Judged in policy time, as the daemon reports it: the real seconds a loaded machine takes
    /// to start or poll a process do not enter.
    @Test func aWindowSurvivesKill9AndEndsOnTime() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let window = "[hourly]\nwindow-minutes = 10\n"
        var windowEnds = Date.distantPast
        var killedAt = Date.distantPast
        try await withLockr(mode: "hourly", sections: window, stateDirectory: state) { lockr, _ in
            #expect(try await lockr.cli("unlock", "youtube").status == 0)
            #expect(try await address("www.youtube.com.", lockr) == "192.0.2.22")
            windowEnds = try #require(try await lockr.policyClock("youtube").windowEnds)
            try await Task.sleep(for: .seconds(3))
            killedAt = try await lockr.policyClock("youtube").now
            lockr.kill9()
        }
        try await withLockr(mode: "hourly", sections: window, stateDirectory: state) { lockr, _ in
            // With a time scale, policy time resumes where it stopped: the time lockr was down does
            // not count (in real use the wall clock carries it on). A kill loses at most a tick
            // (0.1 s, 6 s of policy time).
            let restarted = try await lockr.policyClock("youtube")
            #expect(restarted.now >= killedAt.addingTimeInterval(-6), "\(restarted.now) after \(killedAt)")
            #expect(restarted.windowEnds == windowEnds, "the window's end is kept")
            #expect(try await address("www.youtube.com.", lockr) == "192.0.2.22")
            #expect(try await secondsUntilBlocked("www.youtube.com.", lockr) != nil)
            // Not before its end, and at most a few seconds of polling (minutes of policy time) after.
            let blocked = try await lockr.policyClock("youtube").now
            #expect(
                blocked >= windowEnds && blocked < windowEnds.addingTimeInterval(5 * 60), "\(blocked), \(windowEnds)")
        }
    }

    /// `lockr unlock APP` at a terminal, answering the sentence prompt with `input`.
    func unlockAtATerminal(
        _ app: String, typing input: String, _ lockr: LockrProcess
    ) async throws -> (
        status: Int32, output: String
    ) {
        try await atATerminal(["unlock", app], answering: [("> ", input)], lockr)
    }

    /// A CLI verb run at a terminal: for each prompt, in order, waits for it and types the answer.
    func atATerminal(
        _ arguments: [String], answering answers: [(prompt: String, input: String)], _ lockr: LockrProcess
    ) async throws -> (status: Int32, output: String) {
        let terminal = try PseudoTerminal(LockrProcess.binary, arguments + ["--state-dir", lockr.stateDirectory])
        for answer in answers {
            await terminal.read(until: answer.prompt)
            terminal.type(answer.input)
        }
        return await terminal.finish()
    }

    func gateMisses(_ lockr: LockrProcess) async throws -> Int {
        (try await lockr.status()["gate_misses"] as? NSNumber)?.intValue ?? -1
    }

    @Test func extremeModeWantsTheSentenceTypedAndAcceptsOneWithATypo() async throws {
        try await withLockr(mode: "extreme") { lockr, _ in
            let missing = try await lockr.cli("unlock", "instagram")
            #expect(missing.status == 1)
            #expect(
                missing.output.contains("the gate asks the sentence typed") && missing.output.contains("at a terminal"))
            let sentence = "I am stupid enough to waste more time. Please give me another 15 minutes."
            // Pasted (the terminal marks it), an empty line, Ctrl-D: refused or no attempt, nothing sent.
            let pasted = try await unlockAtATerminal("instagram", typing: "\u{1B}[200~\(sentence)\u{1B}[201~\r", lockr)
            #expect(pasted.status == 1 && pasted.output.contains("pasted text is not accepted"), "\(pasted.output)")
            // The prompt shows the sentence alone, from the API's `sentence` field, ready to type.
            #expect(
                pasted.output.contains("Type this sentence (pasting is not accepted):\r\n  \(sentence)\r\n"),
                "\(pasted.output)")
            let empty = try await unlockAtATerminal("instagram", typing: "\r", lockr)
            #expect(empty.status == 1 && empty.output.contains("nothing typed"), "\(empty.output)")
            let endOfInput = try await unlockAtATerminal("instagram", typing: "\u{04}", lockr)
            #expect(endOfInput.status == 1 && endOfInput.output.contains("nothing typed"), "\(endOfInput.output)")
            #expect(try await gateMisses(lockr) == 0)
            #expect(try await address("instagram.com.", lockr) == "0.0.0.0")

            let wrong = try await unlockAtATerminal("instagram", typing: "please let me in\r", lockr)
            #expect(wrong.status == 1)
            #expect(try await gateMisses(lockr) == 1)
            let typo = "I am stupid enuogh to waste more time. Please give me another 15 minutes.\r"
            let right = try await unlockAtATerminal("instagram", typing: typo, lockr)
            #expect(right.status == 0, "\(right.output)")
            #expect(right.output.contains("instagram: open until"))
            #expect(try await address("instagram.com.", lockr) == "192.0.2.23")
            #expect(try await gateMisses(lockr) == 0)
        }
    }

    @Test func noCommandLiftsALimitForFree() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try await withLockr(mode: "extreme", stateDirectory: state) { lockr, _ in
            // Without a terminal there is no sentence, so nothing changes.
            let plain = try await lockr.cli("mode", "time")
            #expect(plain.status == 1 && plain.output.contains("the gate asks the sentence typed"), "\(plain.output)")
            #expect(try await lockr.cli("guard", "remove", "tiktok").status == 1)
            #expect(try await address("tiktok.com.", lockr) == "0.0.0.0")
            // With the sentence typed, the change waits for the next clock hour.
            let typed = try await atATerminal(
                ["mode", "time"],
                answering: [("> ", "I am stupid enough to waste more time. Please give me another 15 minutes.\r")],
                lockr)
            #expect(typed.status == 0, "\(typed.output)")
            #expect(
                typed.output.contains("#1 policy.mode: extreme → time — pending, applies at 2026-06-01 11:00"),
                "\(typed.output)")
            #expect(try await address("tiktok.com.", lockr) == "0.0.0.0")
            let status = try await lockr.cli("status").output
            #expect(status.contains("Pending") && status.contains("#1 policy.mode: extreme → time"))
            #expect(status.contains("Set by the CLI, on top of the config file: policy.mode"))
            lockr.kill9()
        }
        try await withLockr(mode: "extreme", stateDirectory: state) { lockr, _ in
            let listed = try await lockr.cli("pending", "list").output
            #expect(listed.contains("#1 policy.mode: extreme → time"), "\(listed)")
            let cancelled = try await lockr.cli("pending", "cancel", "1")
            #expect(cancelled.status == 0, "\(cancelled.output)")
            let none = try await lockr.cli("pending").output
            #expect(none.contains("No change is pending."), "\(none)")
            let status = try await lockr.cli("status").output
            #expect(status.contains("Mode: extreme"), "\(status)")
        }
    }

    /// A reload that frees names (always-allow, a domain dropped from [apps]) waits like any
    /// loosening change; one that claims names applies at once. 240 times faster: an hour is 15 s.
    @Test func aReloadThatFreesNamesWaitsAndOneThatClaimsThemAppliesAtOnce() async throws {
        let configPath = NSTemporaryDirectory() + "lockr-e2e-names-\(UUID()).toml"
        defer { try? FileManager.default.removeItem(atPath: configPath) }
        let strict = """
            guard = ["tiktok", "news"]
            always-allow = []
            [apps]
            news = ["news.example"]
            [policy]
            mode = "hourly"
            time-zone = "UTC"

            """
        let loose = """
            guard = ["tiktok"]
            always-allow = ["tiktok.com"]
            [policy]
            mode = "hourly"
            time-zone = "UTC"

            """
        func reload(_ text: String, _ lockr: LockrProcess) async throws {
            let before = lockr.log.components(separatedBy: "reloaded").count
            try text.write(toFile: configPath, atomically: true, encoding: .utf8)
            lockr.signal(SIGHUP)
            for _ in 0..<100 where lockr.log.components(separatedBy: "reloaded").count == before {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(lockr.log.components(separatedBy: "reloaded").count > before, "no reload: \(lockr.log)")
        }
        try await withLockr(mode: "hourly", timeScale: 240, configPath: configPath) { lockr, _ in
            try await reload(strict, lockr)
            #expect(try await address("tiktok.com.", lockr) == "0.0.0.0")
            #expect(try await address("news.example.", lockr) == "0.0.0.0")
            try await reload(loose, lockr)
            #expect(try await address("tiktok.com.", lockr) == "0.0.0.0", "always-allow waits")
            #expect(try await address("news.example.", lockr) == "0.0.0.0", "the dropped app stays guarded")
            let pending = try await lockr.cli("pending", "list").output
            #expect(pending.contains("always-allow tiktok.com: not allowed → always allowed"), "\(pending)")
            #expect(pending.contains("apps.news news.example: listed → not listed"), "\(pending)")
            #expect(pending.contains("guard news: guarded → not guarded"), "\(pending)")
            // At the next clock hour (11:00, 15 s away at most) they apply.
            let start = Date()
            while try await address("tiktok.com.", lockr) == "0.0.0.0", Date().timeIntervalSince(start) < 30 {
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(try await address("tiktok.com.", lockr) == "192.0.2.21")
            #expect(try await address("news.example.", lockr) == "192.0.2.24")
            // Claiming the names again applies with the reload.
            try await reload(strict, lockr)
            #expect(try await address("tiktok.com.", lockr) == "0.0.0.0")
            #expect(try await address("news.example.", lockr) == "0.0.0.0")
        }
    }

    @Test func aPinIsAskedWithoutEchoForChangesThatLoosen() async throws {
        try await withLockr(mode: "hourly") { lockr, _ in
            let set = try await atATerminal(
                ["pin", "set"], answering: [("New PIN", "2468\r"), ("Again", "2468\r")], lockr)
            #expect(set.status == 0 && set.output.contains("PIN set"), "\(set.output)")
            #expect(!set.output.contains("2468"), "the PIN is not echoed")
            // Without a terminal the PIN cannot be asked for: nothing changes.
            let plain = try await lockr.cli("mode", "time")
            #expect(plain.status == 1 && plain.output.contains("a PIN protects settings"), "\(plain.output)")
            let changed = try await atATerminal(["mode", "time"], answering: [("PIN", "2468\r")], lockr)
            #expect(changed.status == 0, "\(changed.output)")
            #expect(changed.output.contains("#1 policy.mode: hourly → time — pending"), "\(changed.output)")
            #expect(!changed.output.contains("2468"))
            // Unlocking never needs it.
            #expect(try await lockr.cli("unlock", "tiktok").status == 0)
        }
    }

    /// Wrong PINs from one device lock out that device, not the parent at another.
    @Test func aDeviceGuessingThePinLocksOutOnlyItself() async throws {
        try await withLockr(mode: "hourly") { lockr, _ in
            let set = try await atATerminal(
                ["pin", "set"], answering: [("New PIN", "2468\r"), ("Again", "2468\r")], lockr)
            #expect(set.status == 0, "\(set.output)")
            func read(_ file: String) throws -> String {
                try String(contentsOfFile: lockr.stateDirectory + "/" + file, encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let api = "http://\(try read("control.address"))/api/v1/mode"
            let token = try read("control.token")
            func guess(_ pin: String) async throws -> String {
                try await runAwaited(
                    "curl",
                    [
                        "-s", "--interface", "127.0.0.2", "-X", "PUT", "-H", "Authorization: Bearer \(token)", "-H",
                        "X-Lockr-PIN: \(pin)", "-H", "Content-Type: application/json", "-d", #"{"mode":"time"}"#, api,
                    ]
                ).output
            }
            for number in 1...5 { #expect(try await guess("000\(number)").contains("wrong_pin")) }
            let locked = try await guess("2468")
            #expect(locked.contains("pin_locked"), "even the right PIN waits there: \(locked)")
            // The parent, at the machine's own terminal (127.0.0.1): in at once.
            let changed = try await atATerminal(["mode", "time"], answering: [("PIN", "2468\r")], lockr)
            #expect(changed.status == 0 && changed.output.contains("pending"), "\(changed.output)")
            let log = try await lockr.cli("log").output
            #expect(log.contains("wrong PIN from 127.0.0.2 (#5 from it"), "\(log)")
        }
    }

    /// 61 wrong PINs sent at once from one device: five are checked, as its lockout allows, and
    /// the rest are refused unchecked (or, past the 32 connections an address may hold, not taken).
    @Test func pinEntriesSentAtOnceAreCheckedNoMoreThanTheLockoutAllows() async throws {
        try await withLockr(mode: "hourly") { lockr, _ in
            let set = try await atATerminal(
                ["pin", "set"], answering: [("New PIN", "2468\r"), ("Again", "2468\r")], lockr)
            #expect(set.status == 0, "\(set.output)")
            let (token, address) = try controlEndpoint(lockr)
            let burst = try await runAwaited(
                "bash",
                [
                    "-c",
                    """
                    for i in $(seq 61); do
                      curl -s --interface 127.0.0.3 -X PUT -H 'Authorization: Bearer \(token)' \\
                        -H "X-Lockr-PIN: 1$i" -H 'Content-Type: application/json' -d '{"mode":"time"}' \\
                        http://\(address)/api/v1/mode &
                    done
                    wait
                    """,
                ]
            ).output
            let wrong = burst.components(separatedBy: "\"wrong_pin\"").count - 1
            let locked = burst.components(separatedBy: "\"pin_locked\"").count - 1
            #expect(wrong == 5 && locked >= 20, "\(wrong) checked, \(locked) refused: \(burst)")
        }
    }

    @Test func timeModeMetersUseAndBlocksWhenTheBudgetIsSpent() async throws {
        try await withLockr(mode: "time", sections: "[time]\nbudget-minutes = 5\n") { lockr, _ in
            // Query like an app in the foreground until blocked; 5 policy minutes are 5 real seconds.
            // Judged in policy time from before the first query, which starts the use: not before 5
            // minutes of use (less a tick of 6 s).
            let started = try await lockr.policyClock("tiktok").now
            #expect(try await address("tiktok.com.", lockr) == "192.0.2.21")
            #expect(try await useUntilBlocked("tiktok.com.", lockr, limit: 20) != nil)
            let blockedAt = try await lockr.policyClock("tiktok").now
            #expect(blockedAt.timeIntervalSince(started) > 5 * 60 - 6, "blocked at \(blockedAt), started \(started)")
            #expect(try await dig(lockr.port, "instagram.com", "A").contains("daily budget spent (5/5 min)"))
            let extend = try await lockr.cli("extend")
            #expect(extend.status == 0 && extend.output.contains("15 min"))
            #expect(try await address("instagram.com.", lockr) == "192.0.2.23")
        }
    }

    /// Queries `name` like an app in the foreground until it is sinkholed; the real seconds it took.
    func useUntilBlocked(_ name: String, _ lockr: LockrProcess, limit: Double = 15) async throws -> Double? {
        let start = Date()
        while Date().timeIntervalSince(start) < limit {
            if try await useBriefly(name, lockr) { return Date().timeIntervalSince(start) }
        }
        return nil
    }

    /// One round of an app's use in the foreground: three lookups of `name` at once, sent from this
    /// process, then 50 ms. One round alone makes its 10 s slice (1/6 s at `--time-scale 60`) dense,
    /// so use is metered at the same pace however slowly a loaded machine starts processes or
    /// resumes tasks (a drill at a time did not keep up). Whether lockr sinkholed it.
    func useBriefly(_ name: String, _ lockr: LockrProcess) async throws -> Bool {
        let round = (0..<3).map { LdnsBuild.query(name, id: UInt16(0x5100 + $0)) }
        let answers = try DNSClient.udpBurst(round, port: lockr.port)
        let records = try answers.flatMap { try LdnsPacket(wire: $0).answerRecords }
        try await Task.sleep(for: .milliseconds(50))
        return records.contains { $0.hasSuffix("\t0.0.0.0") }
    }

    @Test func aSnoozeIsChargedToNoBudgetAndStatusFiguresAgree() async throws {
        try await withLockr(mode: "time", sections: "[time]\nbudget-minutes = 5\n") { lockr, _ in
            _ = try await useUntilBlocked("tiktok.com.", lockr)
            #expect(try await lockr.cli("snooze").status == 0)
            // The whole 5-minute snooze (5 real seconds) in use.
            let snoozed = try await useUntilBlocked("tiktok.com.", lockr)
            #expect(snoozed != nil && snoozed! > 3.5, "snooze lasted \(String(describing: snoozed)) s")
            #expect(try await dig(lockr.port, "tiktok.com", "A").contains("daily budget spent (5/5 min)"))
            #expect(try await lockr.cli("extend").output.contains("Today's budget is now 15 min."))
            let status = try await lockr.cli("status").output
            #expect(
                status.contains("Budget today: 15 min (5 min + 10 min extended), shared: 5 min used, 10 min left."),
                "\(status)")
            let line = status.split(separator: "\n").first { $0.contains("tiktok") } ?? ""
            #expect(line.contains("open") && line.contains("10 min left"), "\(line)")
            #expect(line.contains("in snooze or emergency (not charged)"), "\(line)")
            // The extension gives its full 10 minutes (10 real seconds).
            let extended = try await useUntilBlocked("tiktok.com.", lockr, limit: 20)
            #expect(extended != nil && extended! > 8.5, "extension lasted \(String(describing: extended)) s")
        }
    }

    @Test func meteredUseSurvivesKill9() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let budget = "[time]\nbudget-minutes = 20\n"
        var usedBeforeKill: Int64 = 0
        var policyTimeInUse: TimeInterval = 0
        try await withLockr(mode: "time", sections: budget, stateDirectory: state) { lockr, _ in
            let started = try await lockr.policyClock("tiktok").now
            let start = Date()
            while Date().timeIntervalSince(start) < 3 { _ = try await useBriefly("tiktok.com.", lockr) }
            usedBeforeKill = try await usedSeconds("tiktok", lockr)
            policyTimeInUse = try await lockr.policyClock("tiktok").now.timeIntervalSince(started)
            lockr.kill9()
        }
        // About 3 minutes of policy time were used (3 real seconds at 60x), never more than passed.
        #expect(
            usedBeforeKill >= 120 && Double(usedBeforeKill) <= policyTimeInUse + 6,
            "used \(usedBeforeKill) s of \(policyTimeInUse) s")
        try await withLockr(mode: "time", sections: budget, stateDirectory: state) { lockr, _ in
            let used = try await usedSeconds("tiktok", lockr)
            // Saves run every 100 ms at 60x: at most a few policy seconds are lost.
            #expect(
                used >= usedBeforeKill - 10 && used <= usedBeforeKill + 10,
                "\(usedBeforeKill) s before, \(used) s after")
        }
    }

    func usedSeconds(_ app: String, _ lockr: LockrProcess) async throws -> Int64 {
        let apps = try await lockr.status()["apps"] as? [[String: Any]] ?? []
        return (apps.first { $0["id"] as? String == app }?["used_seconds"] as? NSNumber)?.int64Value ?? -1
    }

    @Test func emergencyOpensEverythingAfterTheHold() async throws {
        try await withLockr(mode: "hourly") { lockr, _ in
            #expect(try await address("tiktok.com.", lockr) == "0.0.0.0")
            let emergency = try await lockr.cli("emergency")
            #expect(emergency.status == 0, "\(emergency.output)")
            #expect(emergency.output.contains("Every guarded app is open until"))
            // To a pipe, the countdown is one line, not one per tick.
            #expect(emergency.output.components(separatedBy: "Emergency unlock in").count == 2, "\(emergency.output)")
            #expect(try await address("tiktok.com.", lockr) == "192.0.2.21")
            #expect(try await address("instagram.com.", lockr) == "192.0.2.23")
            #expect(try await lockr.cli("status").output.contains("emergencies 1/2"))
        }
    }

    @Test func ctrlCDuringTheEmergencyHoldGrantsNothing() async throws {
        try await withLockr(mode: "hourly", timeScale: 1) { lockr, _ in
            let terminal = try PseudoTerminal(LockrProcess.binary, ["emergency", "--state-dir", lockr.stateDirectory])
            // Once the hold runs: its countdown is on the screen.
            let counting = await terminal.read(until: "Ctrl-C cancels")
            #expect(counting.contains("Emergency unlock in"), "\(counting)")
            terminal.signal(SIGINT)
            let ended = await terminal.finish()
            #expect(ended.status == 130 && ended.output.contains("Cancelled: nothing was granted."), "\(ended.output)")
            #expect(try await address("tiktok.com.", lockr) == "0.0.0.0")
            #expect(try await lockr.cli("status").output.contains("emergencies 0/2"))
        }
    }

    @Test func theCLIReportsFailuresClearly() async throws {
        try await withLockr(mode: "time") { lockr, _ in
            let unknown = try await lockr.cli("guard", "add", "myspace")
            #expect(unknown.status == 1)
            #expect(unknown.output.contains("no app 'myspace' in the catalogue"))
            let added = try await lockr.cli("guard", "add", "reddit", "--json")
            #expect(added.status == 0 && added.output.contains("\"reddit\""))
            let unlock = try await lockr.cli("unlock", "tiktok")
            #expect(unlock.status == 1 && unlock.output.contains("time mode"))
        }
        let empty = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let none = try await runAwaited(LockrProcess.binary, ["status", "--state-dir", empty])
        #expect(none.status == 1)
        #expect(none.output.contains("no lockr daemon found"))

        // A daemon that left its files but no longer listens is reported at once, in words.
        try "127.0.0.1:1\n".write(toFile: empty + "/control.address", atomically: true, encoding: .utf8)
        try "token\n".write(toFile: empty + "/control.token", atomically: true, encoding: .utf8)
        let started = Date()
        let gone = try await runAwaited(LockrProcess.binary, ["status", "--state-dir", empty])
        #expect(gone.status == 1)
        #expect(gone.output.contains("cannot reach the lockr daemon at http://127.0.0.1:1: connection refused"))
        #expect(Date().timeIntervalSince(started) < 5, "not after the 10 s request timeout")
    }
}
