import BackendFakes
import DNSFilter
import Foundation
import LockrStore
import Testing

@testable import LockrAdapters

@Suite struct PiHole6BackendTests {
    let fake = try! FakePiHole6(specDirectory: Fixtures.specs + "/pihole-v6")

    func backend(
        _ server: FakeServer<FakePiHole6>, clients: [String] = [], password: String = "secret",
        timeout: Duration = Fixtures.timeout
    ) -> PiHole6Backend {
        var settings = PiHole6Settings(url: server.url, password: Fixtures.secret(password))
        settings.clients = clients
        return PiHole6Backend(name: "pihole6", settings: settings, timeout: timeout)
    }

    func withServer(_ body: (FakeServer<FakePiHole6>) async throws -> Void) async throws {
        try await serving(fake, body)
    }

    @Test func blockToggleAndRemoveOwnEntries() async throws {
        try await withServer { server in
            let pihole = backend(server)
            var report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            let group = try #require(fake.groups.first { $0.name == "lockr" })
            #expect(report.writes == 3)  // the group and two entries
            #expect(fake.domains.count == 2)
            #expect(fake.domains.allSatisfy { $0.comment?.hasPrefix("lockr:tiktok") == true && $0.kind == "regex" })
            #expect(fake.domains.allSatisfy { Set($0.groups) == [group.id, 0] && $0.enabled })
            #expect(fake.blocks("www.tiktok.com") && fake.blocks("tiktok.com") && !fake.blocks("nottiktok.com"))

            // Opening disables the entries rather than deleting them.
            report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok)))
            #expect(report.writes == 2)
            #expect(fake.domains.count == 2 && fake.domains.allSatisfy { !$0.enabled })
            #expect(!fake.blocks("www.tiktok.com"))

            // In sync: nothing written.
            #expect(try await pihole.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok))).writes == 0)

            // Relocking enables them again; unguarding deletes them.
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(fake.domains.allSatisfy(\.enabled) && fake.blocks("v16.tiktokcdn.com"))
            _ = try await pihole.reconcile(Fixtures.snapshot())
            #expect(fake.domains.isEmpty)
            #expect(fake.logins == 1, "the session is reused")
            try await pihole.close()
            #expect(fake.openSessions == 0, "the seat is released")
        }
    }

    /// A backend that keeps its session in a state store, logged in by a first reconcile: the
    /// store and settings, for the next start's backend to take the session up.
    func loggedIn(_ server: FakeServer<FakePiHole6>) async throws -> (OutboxStore, PiHole6Settings, PiHole6Backend) {
        let store = try Fixtures.store()
        let settings = PiHole6Settings(url: server.url, password: Fixtures.secret("secret"))
        let backend = PiHole6Backend(name: "pihole6", settings: settings, timeout: Fixtures.timeout, memory: store)
        _ = try await backend.reconcile(Fixtures.snapshot(Fixtures.tiktok))
        return (store, settings, backend)
    }

    @Test func aRestartTakesTheSessionUpInsteadOfASecondSeat() async throws {
        try await withServer { server in
            let (store, settings, _) = try await loggedIn(server)
            #expect(fake.logins == 1 && fake.openSessions == 1)
            // Killed: no logout. The next lockr finds the session in the state database.
            let second = PiHole6Backend(name: "pihole6", settings: settings, timeout: Fixtures.timeout, memory: store)
            _ = try await second.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok)))
            #expect(fake.logins == 1 && fake.openSessions == 1, "no second seat")
            // A session Pi-hole ended meanwhile is replaced by a fresh login.
            fake.dropSessions()
            let third = PiHole6Backend(name: "pihole6", settings: settings, timeout: Fixtures.timeout, memory: store)
            _ = try await third.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(fake.logins == 2 && fake.openSessions == 1)
            try await third.close()
            #expect(fake.openSessions == 0)
            #expect(try store.value("session", for: "pihole6") == nil, "forgotten after logout")
        }
    }

    @Test func aLogoutThatFailsIsReportedAndItsSessionKeptForTheNextStart() async throws {
        try await withServer { server in
            let (store, settings, first) = try await loggedIn(server)
            server.inject(.status(500))
            await #expect(throws: BackendError.self) { try await first.close() }
            #expect(try fake.openSessions == 1 && store.value("session", for: "pihole6") != nil)
            // The next start takes it up, and a logout whose first try gets no answer is sent again.
            let second = PiHole6Backend(name: "pihole6", settings: settings, timeout: .seconds(4), memory: store)
            server.inject(.delay(.seconds(8)))
            try await second.close()
            #expect(fake.logins == 1 && fake.openSessions == 0)
        }
    }

    @Test func aGroupDisabledByHandIsEnabledAgain() async throws {
        try await withServer { server in
            let pihole = backend(server, clients: ["192.168.1.23"])
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            let group = try #require(fake.groups.first { $0.name == "lockr" })
            #expect(fake.blocks("tiktok.com", groups: [0, group.id]))
            // One click in the web interface: the client's block is off...
            fake.setGroup("lockr", enabled: false)
            #expect(!fake.blocks("tiktok.com", groups: [0, group.id]))
            // ...until the next reconcile repairs it like any other drift.
            let report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(report.writes == 1)
            #expect(report.notEnforcing.isEmpty)
            #expect(fake.blocks("tiktok.com", groups: [0, group.id]))
            try await pihole.close()
        }
    }

    @Test func householdSwitchesAreReportedNotOverridden() async throws {
        try await withServer { server in
            let pihole = backend(server)
            #expect(try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok)).notEnforcing.isEmpty)

            // `pihole disable 10m`: every block is off; lockr says so and leaves the switch alone.
            fake.setBlocking(false, for: 600)
            var report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(!fake.blocks("tiktok.com"))
            #expect(report.notEnforcing.count == 1)
            #expect(
                report.notEnforcing.first?.range(
                    of: #"^blocking is disabled on Pi-hole \(until \d\d:\d\d\)$"#, options: .regularExpression) != nil,
                "\(report.notEnforcing)")
            fake.setBlocking(true)
            #expect(try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok)).notEnforcing.isEmpty)

            // A user's allow entry beats lockr's deny entry on FTL: reported while tiktok should be blocked.
            fake.addUserDomain("tiktok.com", type: "allow")
            fake.addUserDomain("(^|\\.)tiktokcdn\\.com$", type: "allow", kind: "regex")
            report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(!fake.blocks("tiktok.com"))
            #expect(
                report.notEnforcing == [
                    "allow entry \"tiktok.com\" keeps tiktok open",
                    "allow entry \"(^|\\.)tiktokcdn\\.com$\" keeps tiktok open",
                ], "\(report.notEnforcing)")
            #expect(try await pihole.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok))).notEnforcing.isEmpty)

            // With no clients configured lockr's entries work through Default: disabling it is a switch too.
            fake.deleteDomain("tiktok.com")
            fake.deleteDomain("(^|\\.)tiktokcdn\\.com$")
            fake.setGroup("Default", enabled: false)
            report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(report.notEnforcing.first?.contains("the Default group is disabled") == true)
            try await pihole.close()
        }
    }

    @Test func userEntriesAreNeverTouched() async throws {
        try await withServer { server in
            fake.addUserDomain("tiktok.com", kind: "exact")
            fake.addUserDomain("(\\.|^)tiktok\\.com$", kind: "regex", comment: nil)
            fake.addUserDomain("ads.example", kind: "exact")
            let before = fake.domains
            let pihole = backend(server)
            let report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(report.notes.contains { $0.contains("user's own entry") })
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok)))
            _ = try await pihole.reconcile(Fixtures.snapshot())
            #expect(fake.domains == before)
        }
    }

    @Test func handDeletedEntryIsRestored() async throws {
        try await withServer { server in
            let pihole = backend(server)
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            fake.deleteDomain("(\\.|^)tiktok\\.com$")
            #expect(!fake.blocks("tiktok.com"))
            let report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(report.writes == 1)
            #expect(fake.blocks("tiktok.com"))
        }
    }

    @Test func duplicateAddReportedFromProcessedErrors() async throws {
        try await withServer { server in
            // Someone adds the same regex between lockr's read and its write: FTL answers 201 and
            // names the failure only in processed.errors.
            fake.addUnlistedDomain("(\\.|^)tiktok\\.com$")
            let report = try await backend(server).reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(report.notes.contains { $0.contains("not added") && $0.contains("UNIQUE") })
            #expect(report.writes == 2)  // the group and the other entry
        }
    }

    @Test func clientsAreBoundThroughLockrsGroup() async throws {
        try await withServer { server in
            let pihole = backend(server, clients: ["192.168.1.23"])
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            let group = try #require(fake.groups.first { $0.name == "lockr" })
            #expect(fake.clients.map(\.client) == ["192.168.1.23"])
            #expect(Set(fake.clients[0].groups) == [0, group.id])
            #expect(fake.domains.allSatisfy { $0.groups == [group.id] })
            #expect(fake.blocks("tiktok.com", groups: [0, group.id]))
            #expect(!fake.blocks("tiktok.com", groups: [0]), "other clients are not blocked")
        }
    }

    @Test func eachPersonHasAGroupWithTheirDevicesAndEntriesEnabledWhereBlocked() async throws {
        try await withServer { server in
            let pihole = backend(server)
            let alice = PersonBlocks(
                person: "alice", clients: ["192.168.1.50", "aa:bb:cc:dd:ee:01"], apps: [Fixtures.tiktok])
            let bob = PersonBlocks(person: "bob", clients: ["192.168.1.60"], apps: [Fixtures.open(Fixtures.tiktok)])
            // Alice has tiktok blocked; Bob and the default person (every other device) have it open.
            _ = try await pihole.reconcile(BlockSnapshot(apps: [Fixtures.open(Fixtures.tiktok)], people: [alice, bob]))
            let aliceGroup = try #require(fake.groups.first { $0.name == "lockr-alice" })
            #expect(fake.groups.contains { $0.name == "lockr-bob" })
            #expect(fake.clients.first { $0.client == "aa:bb:cc:dd:ee:01" }?.groups.contains(aliceGroup.id) == true)
            #expect(fake.domains.count == 2 && fake.domains.allSatisfy { $0.enabled && $0.groups == [aliceGroup.id] })
            #expect(
                fake.blocks("tiktok.com", client: "192.168.1.50")
                    && fake.blocks("tiktok.com", client: "aa:bb:cc:dd:ee:01"))
            #expect(
                !fake.blocks("tiktok.com", client: "192.168.1.60") && !fake.blocks("tiktok.com", client: "192.168.1.23")
            )

            // Nobody has it blocked: disabled, kept in the groups of all who guard it.
            _ = try await pihole.reconcile(
                BlockSnapshot(
                    apps: [Fixtures.open(Fixtures.tiktok)],
                    people: [
                        PersonBlocks(person: "alice", clients: alice.clients, apps: [Fixtures.open(Fixtures.tiktok)]),
                        bob,
                    ]))
            #expect(fake.domains.count == 2 && fake.domains.allSatisfy { !$0.enabled && $0.groups.count == 4 })
            #expect(!fake.blocks("tiktok.com", client: "192.168.1.50"))

            // The default person's block reaches everyone through the Default group (the strictest holds).
            let report = try await pihole.reconcile(
                BlockSnapshot(
                    apps: [Fixtures.tiktok], people: [PersonBlocks(person: "alice", clients: alice.clients, apps: [])]))
            #expect(
                fake.blocks("tiktok.com", client: "192.168.1.23") && fake.blocks("tiktok.com", client: "192.168.1.50"))
            #expect(report.notEnforcing.isEmpty)
            // Unguarded by everyone: deleted.
            _ = try await pihole.reconcile(BlockSnapshot(apps: []))
            #expect(fake.domains.isEmpty)
        }
    }

    @Test func concurrentCallsShareOneLogin() async throws {
        try await withServer { server in
            let pihole = backend(server)
            async let first = pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            async let second = pihole.queries(after: Date() - 5)
            async let third = pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            _ = try await (first, second, third)
            #expect(fake.logins == 1, "one seat, whatever the concurrency")
            try await pihole.close()
            #expect(fake.openSessions == 0)
        }
    }

    @Test func sessionIsRenewedWhenDropped() async throws {
        try await withServer { server in
            let pihole = backend(server)
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            fake.dropSessions()
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok)))
            #expect(fake.logins == 2)
            #expect(!fake.blocks("tiktok.com"))
        }
    }

    @Test func authFailuresAreClearAndHoldNoSecret() async throws {
        try await withServer { server in
            do {
                _ = try await backend(server, password: "wrong-password-123").reconcile(
                    Fixtures.snapshot(Fixtures.tiktok))
                Issue.record("a wrong password must fail")
            } catch {
                guard case .unauthorized? = error as? BackendError else { throw error }
                #expect(!"\(error)".contains("wrong-password-123"))
            }
            let full = FakeServer(try FakePiHole6(specDirectory: Fixtures.specs + "/pihole-v6", seats: 0))
            try await full.start()
            await #expect(throws: BackendError.self) { _ = try await backend(full).reconcile(Fixtures.snapshot()) }
            do { _ = try await backend(full).reconcile(Fixtures.snapshot()) } catch {
                guard case .rateLimited? = error as? BackendError else { throw error }
            }
            await full.stop()
            #expect(full.violations == [])
        }
    }

    @Test func injectedFaultsBecomeErrors() async throws {
        try await withServer { server in
            let pihole = backend(server)
            server.inject(.status(500))
            await #expect(throws: BackendError.self) {
                _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            }
            server.inject(.delay(.seconds(3)))
            do {
                _ = try await backend(server, timeout: .seconds(1)).reconcile(Fixtures.snapshot(Fixtures.tiktok))
                Issue.record("a hung backend must time out")
            } catch {
                guard case .unreachable? = error as? BackendError else { throw error }
            }
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(fake.blocks("tiktok.com"))
        }
        let gone = backend(FakeServer(fake))
        do {
            _ = try await gone.reconcile(Fixtures.snapshot())
            Issue.record("nothing listens: the call must fail")
        } catch {
            guard case .unreachable = error else { throw error }
        }
    }

    @Test func readsTheQueryLog() async throws {
        try await withServer { server in
            let now = Date()
            fake.logQuery("old.tiktok.com", at: now - 60)
            fake.logQuery("www.TikTok.com.", at: now - 5)
            fake.logQuery("example.org", at: now - 4)
            let queries = try await backend(server).queries(after: now - 30)
            #expect(queries.map(\.name) == ["www.tiktok.com", "example.org"])
            #expect(queries.first?.client == "192.168.1.23")
        }
    }
}
