import BackendFakes
import DNSTestSupport
import Foundation
import Testing

/// lockr driving a Pi-hole v6 (the spec-checked fake, on loopback) through the real binary, with
/// policy time 60 times faster: a 5-minute window lasts 5 real seconds.
@Suite(.serialized) struct AdapterEndToEndTests {
    static let specs = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../shared/specs/pihole-v6").standardized.path

    /// Runs `body` with a fake Pi-hole and a lockr guarding tiktok and youtube through it.
    func withPiHole(
        mode: String, sections: String = "", backends: String = #"["dns", "pihole6"]"#, meterFrom: String = "dns",
        timeScale: Int = 60, _ body: (LockrProcess, FakePiHole6, FakeServer<FakePiHole6>) async throws -> Void
    ) async throws {
        let fake = try FakePiHole6(specDirectory: Self.specs)
        let server = FakeServer(fake)
        try await server.start()
        let upstream = try await ScriptedUpstream(records: ["tiktok.com.": ["tiktok.com. 300 IN A 192.0.2.21"]])
        let directory = NSTemporaryDirectory() + "lockr-e2e-adapters-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "secret\n".write(toFile: directory + "/pihole.password", atomically: true, encoding: .utf8)
        let config = """
            guard = ["tiktok", "youtube"]
            backends = \(backends)
            meter-from = "\(meterFrom)"

            [policy]
            mode = "\(mode)"
            time-zone = "UTC"

            [pihole6]
            url = "\(server.url)"
            password-file = "\(directory)/pihole.password"

            [adapters]
            reconcile-seconds = 1
            retry-max-seconds = 1
            log-seconds = 1
            timeout-seconds = 10

            """
        try (config + sections).write(toFile: directory + "/lockr.toml", atomically: true, encoding: .utf8)
        let lockr = try await LockrProcess(
            [
                "--config", directory + "/lockr.toml", "--upstream", "127.0.0.1:\(upstream.port)", "--time-scale",
                "\(timeScale)",
                "--start-at", "2026-06-01T10:00:00Z",
            ], answersDNS: backends.contains("dns"))
        do {
            try await stoppingAfterwards(lockr, upstream) { try await body(lockr, fake, server) }
        } catch {
            await server.stop()
            throw error
        }
        #expect(server.violations == [], "every request lockr made is in Pi-hole's OpenAPI spec")
        // The logout lockr sent as it stopped may still be on its way through a busy test process.
        let loggedOut = await eventually(30) { fake.openSessions == 0 }
        let stopped = lockr.finalLog.split(separator: "\n").suffix(40).joined(separator: "\n")
        #expect(
            loggedOut,
            """
            lockr logs out when it stops: \(fake.openSessions) open of \(fake.logins) logins; it exited with \
            \(lockr.process.terminationStatus) and logged:
            \(stopped)
            """)
        await server.stop()
    }

    func status(_ lockr: LockrProcess) async throws -> [String: Any] {
        let output = try await lockr.cli("status", "--json").output
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] ?? [:]
    }

    func backend(_ lockr: LockrProcess) async throws -> [String: Any] {
        (try await status(lockr)["backends"] as? [[String: Any]])?.first ?? [:]
    }

    @Test func aPiHoleThatDoesNotEnforceIsReportedNotOk() async throws {
        try await withPiHole(mode: "hourly") { lockr, fake, _ in
            #expect(try await eventually { try await backend(lockr)["state"] as? String == "ok" })
            fake.setBlocking(false, for: 600)
            #expect(try await eventually { try await backend(lockr)["state"] as? String == "not_enforcing" })
            let text = try await lockr.cli("status").output
            #expect(
                text.contains("pihole6") && text.contains("NOT ENFORCING: blocking is disabled on Pi-hole (until "),
                "\(text)")
            fake.setBlocking(true)
            // Each change on its own: a reconcile may read blocking and the lists at different moments.
            #expect(try await eventually { try await backend(lockr)["state"] as? String == "ok" })
            fake.addUserDomain("tiktok.com", type: "allow")
            #expect(
                try await eventually {
                    (try await backend(lockr)["not_enforcing"] as? [String]) == [
                        "allow entry \"tiktok.com\" keeps tiktok open"
                    ]
                })
            fake.deleteDomain("tiktok.com")
            #expect(try await eventually { try await backend(lockr)["state"] as? String == "ok" })
            // Logged once per episode, not on every reconcile.
            #expect(lockr.log.components(separatedBy: "backend NOT ENFORCING").count - 1 == 2, "\(lockr.log)")
            #expect(lockr.log.contains("backend enforcing lockr's blocks again"))
        }
    }

    @Test func eachPersonsDevicesGetTheirOwnBlocksOnPiHole() async throws {
        // The default person has today's budget; Alice, in hourly mode, has her apps locked.
        let alice = """

            [people.alice]
            devices = ["192.168.1.50", "aa:bb:cc:dd:ee:01"]

            [people.alice.policy]
            mode = "hourly"

            """
        try await withPiHole(mode: "time", sections: alice) { lockr, fake, _ throws in
            // Each app's entries are added in a call of their own: wait for both.
            #expect(
                await eventually {
                    fake.blocks("tiktok.com", client: "192.168.1.50")
                        && fake.blocks("youtube.com", client: "aa:bb:cc:dd:ee:01")
                })
            #expect(!fake.blocks("tiktok.com", client: "192.168.1.23"), "other devices are the default person's")
            #expect(fake.groups.contains { $0.name == "lockr-alice" })
            // Her window opens her apps alone.
            #expect(try await lockr.cli("unlock", "tiktok", "--person", "alice").status == 0)
            #expect(await eventually { !fake.blocks("tiktok.com", client: "192.168.1.50") })
            #expect(fake.blocks("youtube.com", client: "192.168.1.50"))
            #expect(try await backend(lockr)["state"] as? String == "ok")
        }
    }

    @Test func anHourlyWindowTogglesTheBackendRule() async throws {
        // A 10-minute window, 10 real seconds at the test's time scale: long enough for the push
        // to arrive on a machine loaded by the suites running beside this one.
        try await withPiHole(mode: "hourly", sections: "[hourly]\nwindow-minutes = 10\n") {
            (lockr, fake, _) async throws in
            fake.addUserDomain("ads.example")
            #expect(await eventually { fake.blocks("tiktok.com") && fake.blocks("www.youtube.com") })
            let ours = fake.domains.filter { $0.comment?.hasPrefix("lockr:") == true }
            #expect(!ours.isEmpty && ours.allSatisfy(\.enabled))

            #expect(try await lockr.cli("unlock", "tiktok").status == 0)
            let windowEnds = try #require(try await lockr.policyClock("tiktok").windowEnds)
            #expect(await eventually(8) { !fake.blocks("tiktok.com") })
            #expect(
                await eventually(8) {
                    let entries = fake.domains.filter { $0.comment?.hasPrefix("lockr:tiktok") == true }
                    return !entries.isEmpty && entries.allSatisfy { !$0.enabled }
                }, "disabled, not deleted")
            #expect(fake.blocks("www.youtube.com"))

            // The 10-minute window ends after 10 real seconds; the rule is enabled again. Judged in
            // policy time: not before the window's end, within a few polls (minutes of policy time) after.
            #expect(await eventually(25) { fake.blocks("tiktok.com") })
            let enabledAt = try await lockr.policyClock("tiktok").now
            #expect(
                enabledAt >= windowEnds && enabledAt < windowEnds.addingTimeInterval(10 * 60),
                "enabled at \(enabledAt), the window ended at \(windowEnds)")
            #expect(
                fake.domains.contains { $0.domain == "ads.example" && $0.comment == "mine" && $0.enabled },
                "the user's rule is untouched")
            #expect(
                try await eventually(3) { try await lockr.cli("status").output.contains("pihole6     ok, in sync") })
        }
    }

    @Test func aHandDeletedRuleIsRestored() async throws {
        try await withPiHole(mode: "hourly") { (lockr, fake, _) async throws in
            #expect(await eventually { fake.blocks("tiktok.com") })
            fake.deleteDomain("(\\.|^)tiktok\\.com$")
            #expect(!fake.blocks("tiktok.com"))
            #expect(await eventually(5) { fake.blocks("tiktok.com") })
            #expect(try await eventually(3) { try await backend(lockr)["repairs"] as? Int ?? 0 >= 1 })
        }
    }

    @Test func aBackendDownDuringAChangeConvergesWhenItReturns() async throws {
        // Policy time 10 times faster: the window lasts 90 s, longer than a loaded machine takes
        // over the steps in it.
        try await withPiHole(mode: "hourly", sections: "[hourly]\nwindow-minutes = 15\n", timeScale: 10) {
            (lockr, fake, server) async throws in
            // Stopped only once the first sync is whole (both apps' rules), so that the one change
            // waiting later is the unlock. (A plain loop: Swift 6.3.1 crashes on this in `eventually`.)
            #expect(await eventually { fake.blocks("tiktok.com") })
            var synced = false
            for _ in 0..<100 where !synced {
                let state = try await backend(lockr)
                synced = state["state"] as? String == "ok" && state["pending"] as? Int == 0
                if !synced { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(synced, "the first sync is whole")
            await server.stop()
            #expect(try await lockr.cli("unlock", "tiktok").status == 0)
            let failing = try await eventually(20) {
                let state = try await backend(lockr)
                return state["state"] as? String == "failing" && state["pending"] as? Int == 1
            }
            #expect(failing)
            let down = try await lockr.cli("status").output
            #expect(down.contains("FAILING: unreachable") && down.contains("1 change waiting"), "\(down)")
            #expect(fake.blocks("tiktok.com"), "nothing reached the backend yet")

            try await server.start()
            #expect(await eventually(20) { !fake.blocks("tiktok.com") })
            #expect(
                try await eventually(10) {
                    let state = try await backend(lockr)
                    return state["state"] as? String == "ok" && state["pending"] as? Int == 0
                })
            #expect(fake.blocks("www.youtube.com"))
        }
    }

    @Test func twoPiHolesByNameFollowTheSamePolicy() async throws {
        // A household with a second Pi-hole: listed by a name of its own, with its own password,
        // session and outbox. The daemon inherits this process's environment.
        setenv("LOCKR_E2E_UPSTAIRS_PASSWORD", "upstairs-secret", 1)
        let second = try FakePiHole6(specDirectory: Self.specs, password: "upstairs-secret")
        let secondServer = FakeServer(second)
        try await secondServer.start()
        let section = """
            [hourly]
            window-minutes = 15

            [upstairs]
            kind = "pihole6"
            url = "\(secondServer.url)"
            password-env = "LOCKR_E2E_UPSTAIRS_PASSWORD"

            """
        do {
            try await withPiHole(
                mode: "hourly", sections: section, backends: #"["dns", "pihole6", "upstairs"]"#
            ) { (lockr, fake, _) async throws in
                #expect(await eventually { fake.blocks("tiktok.com") && second.blocks("tiktok.com") })
                #expect(try await lockr.cli("unlock", "tiktok").status == 0)
                #expect(await eventually(5) { !fake.blocks("tiktok.com") && !second.blocks("tiktok.com") })
                #expect(fake.blocks("www.youtube.com") && second.blocks("www.youtube.com"))
                let text = try await lockr.cli("status").output
                #expect(text.contains("pihole6     ok") && text.contains("upstairs    ok"), "\(text)")
            }
        } catch {
            await secondServer.stop()
            throw error
        }
        await secondServer.stop()
        #expect(secondServer.violations == [])
        #expect(second.openSessions == 0, "lockr logs out of both")
    }

    @Test func meteringFromTheQueryLogUsesTheBudget() async throws {
        // lockr answers no DNS here: Pi-hole does, and lockr meters from its query log. A 5-minute
        // budget lasts 5 real seconds.
        try await withPiHole(
            mode: "time", sections: "[time]\nbudget-minutes = 5\nper-app = true\n", backends: #"["pihole6"]"#,
            meterFrom: "pihole6"
        ) { (lockr, fake, _) async throws in
            #expect(lockr.log.contains("not answering DNS"))
            #expect(try await eventually { try await backend(lockr)["state"] as? String == "ok" })
            #expect(!fake.blocks("tiktok.com"), "an app with budget left is not blocked on the backend")
            // A device uses TikTok: a query every 0.1 s (6 policy seconds) for up to 12 s. Budgets are
            // per app, so YouTube stays open.
            let start = Date()
            var blockedAfter: Double?
            while Date().timeIntervalSince(start) < 12 {
                fake.logQuery("api.tiktok.com")
                if fake.blocks("tiktok.com") {
                    blockedAfter = Date().timeIntervalSince(start)
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            let app = try #require(
                (try await lockr.status()["apps"] as? [[String: Any]])?.first { $0["id"] as? String == "tiktok" })
            #expect((app["used_seconds"] as? Int ?? 0) >= 280, "\(app)")
            #expect(app["open"] as? Bool == false)
            let after = try #require(blockedAfter, "the spent budget blocks tiktok on the backend")
            #expect(after > 4 && after < 9, "blocked after \(after) s")
            #expect(!fake.blocks("www.youtube.com"), "youtube was not used")
        }
    }
}
