import BackendFakes
import DNSFilter
import Foundation
import LockrStore
import Testing

@testable import LockrAdapters

/// Runs `body` against `fake` on a loopback socket and checks no request broke its spec.
func serving<Fake: FakeBackend>(_ fake: Fake, _ body: (FakeServer<Fake>) async throws -> Void) async throws {
    let server = FakeServer(fake)
    try await server.start()
    do { try await body(server) } catch {
        await server.stop()
        throw error
    }
    await server.stop()
    #expect(server.violations == [])
}

@Suite struct AdGuardHomeBackendTests {
    let userRules = ["! my list", "||ads.example^", "@@||ok.example^", "", "/tracker[0-9]+/"]

    func backend(_ url: String, password: String = "secret", clients: [String] = []) -> AdGuardHomeBackend {
        var settings = AdGuardHomeSettings(url: url, username: "admin", password: Fixtures.secret(password))
        settings.clients = clients
        return AdGuardHomeBackend(name: "adguardhome", settings: settings, timeout: Fixtures.timeout)
    }

    @Test func editsOnlyItsOwnBlock() async throws {
        let fake = try FakeAdGuardHome(specDirectory: Fixtures.specs + "/adguardhome", rules: userRules)
        try await serving(fake) { server in
            let adguard = backend(server.url)
            _ = try await adguard.reconcile(Fixtures.snapshot(Fixtures.tiktok, Fixtures.open(Fixtures.youtube)))
            #expect(Array(fake.rules.prefix(userRules.count)) == userRules)
            #expect(fake.rules.contains("||tiktok.com^") && !fake.rules.contains("||youtube.com^"))
            #expect(fake.blocks("www.tiktok.com") && !fake.blocks("youtube.com") && fake.blocks("ads.example"))

            // The user edits their part meanwhile; lockr keeps the edit and its own block.
            fake.setRules(["||mine.example^"] + fake.rules)
            _ = try await adguard.reconcile(Fixtures.snapshot(Fixtures.tiktok, Fixtures.youtube))
            #expect(fake.rules.first == "||mine.example^")
            #expect(fake.blocks("r3---sn.googlevideo.com") && !fake.blocks("googlevideo.com"))
            #expect(fake.blocks("yt3.ggpht.com"))

            // Everything open: the block goes, the user's lines stay exactly as they were.
            _ = try await adguard.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok)))
            #expect(fake.rules == ["||mine.example^"] + userRules)
            #expect(try await adguard.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok))).writes == 0)
        }
    }

    @Test func restoresAHandDeletedBlockAndBindsClients() async throws {
        let fake = try FakeAdGuardHome(specDirectory: Fixtures.specs + "/adguardhome", rules: userRules)
        try await serving(fake) { server in
            let adguard = backend(server.url, clients: ["192.168.1.23", "192.168.1.24"])
            _ = try await adguard.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(
                fake.blocks("tiktok.com", client: "192.168.1.24") && !fake.blocks("tiktok.com", client: "192.168.1.50"))
            fake.setRules(userRules)
            let report = try await adguard.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(report.writes == 1 && fake.blocks("tiktok.com"))
        }
    }

    @Test func eachPersonsDevicesGetTheirOwnRulesAndTheDefaultPersonsSpareThem() async throws {
        let fake = try FakeAdGuardHome(specDirectory: Fixtures.specs + "/adguardhome", rules: userRules)
        try await serving(fake) { server in
            let adguard = backend(server.url)
            let alice = ["192.168.1.50", "10.9.0.0/24", "aa:bb:cc:dd:ee:01"]
            // The default person has tiktok blocked, Alice has it open: her devices are spared.
            var report = try await adguard.reconcile(
                BlockSnapshot(
                    apps: [Fixtures.tiktok],
                    people: [PersonBlocks(person: "alice", clients: alice, apps: [Fixtures.open(Fixtures.tiktok)])]))
            #expect(fake.blocks("tiktok.com", client: "192.168.1.23"))
            #expect(
                !fake.blocks("tiktok.com", client: "192.168.1.50") && !fake.blocks("tiktok.com", client: "10.9.0.7"))
            #expect(fake.rules.contains("||tiktok.com^$client=~192.168.1.50|~10.9.0.0/24"), "\(fake.rules)")
            // Alice's youtube is blocked for her alone; her MAC cannot be named, which a note says.
            report = try await adguard.reconcile(
                BlockSnapshot(
                    apps: [Fixtures.open(Fixtures.tiktok)],
                    people: [PersonBlocks(person: "alice", clients: alice, apps: [Fixtures.youtube])]))
            #expect(
                fake.blocks("youtube.com", client: "10.9.0.7") && !fake.blocks("youtube.com", client: "192.168.1.23"))
            #expect(!fake.blocks("tiktok.com", client: "192.168.1.23"))
            #expect(report.notes.contains { $0.hasPrefix("alice: AdGuard Home's $client takes no MAC address") })
            #expect(Array(fake.rules.prefix(userRules.count)) == userRules)
        }
    }

    @Test func mergeHandlesAMissingEndMarker() {
        let rules = ["||a.example^", AdGuardHomeBackend.begin, "! lockr: tiktok", "||tiktok.com^", "||b.example^"]
        // A begin marker whose end was deleted by hand takes the rule-like lines after it (lockr
        // cannot tell them from its own); the lines before the block stay.
        let merged = AdGuardHomeBackend.merge(rules, block: [])
        #expect(merged == ["||a.example^"])
        let replaced = AdGuardHomeBackend.merge(
            ["x", AdGuardHomeBackend.begin, "||old^", AdGuardHomeBackend.end, "y"], block: ["B"])
        #expect(replaced == ["x", "B", "y"])
    }

    @Test func authAndContentTypeQuirks() async throws {
        let fake = try FakeAdGuardHome(specDirectory: Fixtures.specs + "/adguardhome")
        try await serving(fake) { server in
            do {
                _ = try await backend(server.url, password: "nope-42").reconcile(Fixtures.snapshot(Fixtures.tiktok))
                Issue.record("a wrong password must fail")
            } catch {
                guard case .unauthorized? = error as? BackendError else { throw error }
                #expect(!"\(error)".contains("nope-42"))
            }
            _ = try await backend(server.url).reconcile(Fixtures.snapshot(Fixtures.tiktok))
            let write = try #require(server.requests.last)
            #expect(write.path == "/control/filtering/set_rules")
            #expect(write.headers["content-type"] == "application/json")
            let read = try #require(server.requests.first { $0.method == "GET" })
            #expect(read.headers["content-type"] == nil)
        }
    }

    @Test func readsTheQueryLogAcrossPages() async throws {
        let fake = try FakeAdGuardHome(specDirectory: Fixtures.specs + "/adguardhome")
        try await serving(fake) { server in
            let start = Date() - 100
            for index in 0..<1200 { fake.logQuery("n\(index).tiktok.com", at: start + Double(index) * 0.05) }
            let queries = try await backend(server.url).queries(after: start + 10.025)
            #expect(queries.count == 999)
            #expect(queries.first?.name == "n201.tiktok.com" && queries.last?.name == "n1199.tiktok.com")
        }
    }

    @Test func parsesGoTimestamps() {
        let date = AdGuardHomeBackend.parseTime("2026-06-01T10:00:00.123456789+02:00")
        #expect(date.map { Int(($0.timeIntervalSince1970 * 1000).rounded()) } == 1_780_300_800_123)
    }
}

@Suite struct NextDNSBackendTests {
    func backend(_ url: String, memory: OutboxStore) -> NextDNSBackend {
        NextDNSBackend(
            name: "nextdns", settings: NextDNSSettings(url: url, profile: "abc123", apiKey: Fixtures.secret("key-1")),
            timeout: Fixtures.timeout, memory: memory)
    }

    @Test func managesOnlyEntriesItCreated() async throws {
        let fake = FakeNextDNS()
        fake.addUserEntry("tiktok.com")
        let memory = try Fixtures.store()
        try await serving(fake) { server in
            let nextdns = backend(server.url, memory: memory)
            let report = try await nextdns.reconcile(Fixtures.snapshot(Fixtures.tiktok, Fixtures.youtube))
            #expect(
                fake.denylist == [
                    "tiktok.com": true, "tiktokcdn.com": true, "youtube.com": true, "googlevideo.com": true,
                ])
            #expect(
                report.notes.contains { $0.contains("regex") } && report.notes.contains { $0.contains("user's own") })

            _ = try await nextdns.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok), Fixtures.youtube))
            #expect(fake.denylist["tiktokcdn.com"] == false && fake.denylist["tiktok.com"] == true)

            fake.deleteEntry("youtube.com")
            #expect(
                try await nextdns.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok), Fixtures.youtube)).writes
                    == 1)
            #expect(fake.denylist["youtube.com"] == true)

            _ = try await nextdns.reconcile(Fixtures.snapshot())
            #expect(fake.denylist == ["tiktok.com": true], "only the user's entry is left")
            fake.logQuery("www.youtube.com", at: Date() - 2)
            #expect(try await nextdns.queries(after: Date() - 10).map(\.name) == ["www.youtube.com"])
        }
    }

    @Test func wrongKeyIsUnauthorised() async throws {
        let fake = FakeNextDNS(key: "other")
        let memory = try Fixtures.store()
        try await serving(fake) { server in
            do {
                _ = try await backend(server.url, memory: memory).reconcile(Fixtures.snapshot(Fixtures.tiktok))
                Issue.record("a wrong key must fail")
            } catch {
                guard case .unauthorized? = error as? BackendError else { throw error }
            }
        }
    }
}

@Suite struct PiHole5BackendTests {
    @Test func addsAndRemovesItsRegexEntriesAndSpotsABadToken() async throws {
        let fake = FakePiHole5()
        fake.addUserRegex("(\\.|^)tiktok\\.com$")
        try await serving(fake) { server in
            let pihole = PiHole5Backend(
                name: "pihole5", settings: PiHole5Settings(url: server.url, token: Fixtures.secret("token-1")),
                timeout: Fixtures.timeout)
            let report = try await pihole.reconcile(Fixtures.snapshot(Fixtures.tiktok))
            #expect(report.writes == 1 && report.notes.count == 1)
            #expect(fake.regexEntries["(\\.|^)tiktokcdn\\.com$"]?.hasPrefix("lockr:tiktok") == true)
            _ = try await pihole.reconcile(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok)))
            #expect(fake.regexEntries == ["(\\.|^)tiktok\\.com$": "mine"])

            // HTTP 200 with "Not authorized!" is an auth failure, not success.
            let wrong = PiHole5Backend(
                name: "pihole5", settings: PiHole5Settings(url: server.url, token: Fixtures.secret("token-2")),
                timeout: Fixtures.timeout)
            do {
                _ = try await wrong.reconcile(Fixtures.snapshot(Fixtures.tiktok))
                Issue.record("a bad token must fail")
            } catch {
                guard case .unauthorized? = error as? BackendError else { throw error }
                #expect(!"\(error)".contains("token-2"))
            }
        }
        // A transport error names no URL query either: v5's token travels in it.
        let gone = PiHole5Backend(
            name: "pihole5", settings: PiHole5Settings(url: "http://127.0.0.1:1", token: Fixtures.secret("token-3")),
            timeout: Fixtures.timeout)
        do {
            _ = try await gone.reconcile(Fixtures.snapshot())
            Issue.record("nothing listens on port 1")
        } catch {
            #expect(!"\(error)".contains("token-3"))
        }
    }

    @Test func readsTheQueryLogAfterACursor() async throws {
        let fake = FakePiHole5()
        let now = Date()
        fake.logQuery("old.tiktok.com", at: now - 60)
        fake.logQuery("www.TikTok.com.", client: "192.168.1.40", at: now - 5)
        try await serving(fake) { server in
            let pihole = PiHole5Backend(
                name: "pihole5", settings: PiHole5Settings(url: server.url, token: Fixtures.secret("token-1")),
                timeout: Fixtures.timeout)
            let queries = try await pihole.queries(after: now - 30)
            #expect(queries.map(\.name) == ["www.tiktok.com"])
            #expect(queries.first?.client == "192.168.1.40")
        }
    }
}

@Suite struct WebhookBackendTests {
    @Test func postsEachChangeWithTheFullSet() async throws {
        let fake = FakeWebhook(token: "hook-token")
        try await serving(fake) { server in
            let hook = WebhookBackend(
                name: "webhook",
                settings: WebhookSettings(url: server.url + "/lockr", token: Fixtures.secret("hook-token")),
                timeout: Fixtures.timeout)
            let first = try #require(
                BlockChange.between(
                    nil, Fixtures.snapshot(Fixtures.tiktok, Fixtures.open(Fixtures.youtube)), at: Date()))
            let second = try #require(
                BlockChange.between(first.snapshot, Fixtures.snapshot(Fixtures.tiktok), at: Date()))
            _ = try await hook.apply(first)
            _ = try await hook.apply(second)
            let bodies = fake.bodies
            #expect(bodies.map { $0["event"] as? String } == ["sync", "change"])
            let changed = try #require(bodies[1]["changed"] as? [[String: Any]])
            #expect(changed.count == 1 && changed[0]["app"] as? String == "youtube" && changed[0]["blocked"] is NSNull)
            let blocked = try #require(bodies[1]["blocked"] as? [[String: Any]])
            #expect(blocked.map { $0["app"] as? String } == ["tiktok"])
            #expect(blocked[0]["rules"] as? [String] == ["tiktok.com", "tiktokcdn.com"])
            #expect(try await hook.reconcile(Fixtures.snapshot()).writes == 0, "nothing to read back")
        }
    }

    @Test func aPersonsChangeNamesThemAndTheirDevices() async throws {
        let fake = FakeWebhook(token: "hook-token")
        try await serving(fake) { server in
            let hook = WebhookBackend(
                name: "webhook", settings: WebhookSettings(url: server.url, token: Fixtures.secret("hook-token")),
                timeout: Fixtures.timeout)
            let alice = PersonBlocks(person: "alice", clients: ["192.168.1.50"], apps: [Fixtures.open(Fixtures.tiktok)])
            let before = BlockSnapshot(apps: [Fixtures.tiktok], people: [alice])
            let after = BlockSnapshot(
                apps: [Fixtures.tiktok],
                people: [PersonBlocks(person: "alice", clients: alice.clients, apps: [Fixtures.tiktok])])
            let change = try #require(BlockChange.between(before, after, at: Date()))
            #expect(change.changed == [AppChange(app: "tiktok", blocked: true, person: "alice")])
            _ = try await hook.apply(change)
            let body = try #require(fake.bodies.first)
            #expect((body["changed"] as? [[String: Any]])?.first?["person"] as? String == "alice")
            let people = try #require(body["people"] as? [[String: Any]])
            #expect(people.first?["clients"] as? [String] == ["192.168.1.50"])
            #expect((people.first?["blocked"] as? [[String: Any]])?.first?["app"] as? String == "tiktok")
            // A person dropped from the set: each of their apps is no longer guarded for them.
            let dropped = try #require(BlockChange.between(after, BlockSnapshot(apps: [Fixtures.tiktok]), at: Date()))
            #expect(dropped.changed == [AppChange(app: "tiktok", blocked: nil, person: "alice")])
        }
    }

    @Test func anOutboxEntryFromBeforePeopleStillReads() throws {
        let old = #"{"apps":[{"app":"tiktok","blocked":true,"rules":[]}]}"#
        let snapshot = try JSONDecoder().decode(BlockSnapshot.self, from: Data(old.utf8))
        #expect(snapshot.people.isEmpty && snapshot.apps.map(\.app) == ["tiktok"])
    }
}
