import BackendFakes
import DNSFilter
import DNSTestSupport
import Foundation
import LockrStore
import Logging
import Synchronization
import Testing

@testable import LockrAdapters

/// The outbox, retries and reconciling, with real backends on loopback going down and coming back.
@Suite struct AdapterHubTests {
    let logger = Logger(label: "hub-test", factory: { _ in SwiftLogNoOpLogHandler() })

    func timing(reconcile: Duration = .seconds(60)) -> AdapterTiming {
        var timing = AdapterTiming()
        timing.initialBackoff = .milliseconds(100)
        timing.maximumBackoff = .milliseconds(400)
        timing.reconcileInterval = reconcile
        return timing
    }

    func pihole(_ url: String) -> PiHole6Backend {
        PiHole6Backend(
            name: "pihole6", settings: PiHole6Settings(url: url, password: Fixtures.secret("secret")),
            timeout: Fixtures.timeout)
    }

    /// Runs `hub` while `body` runs.
    func running(_ hub: AdapterHub, _ body: () async throws -> Void) async throws {
        let task = Task { await hub.run(observe: { _, _ in }) }
        do { try await body() } catch {
            task.cancel()
            await task.value
            throw error
        }
        task.cancel()
        await task.value
    }

    @Test func backendDownLosesNothingAndCatchesUpInOrder() async throws {
        let fake = try FakePiHole6(specDirectory: Fixtures.specs + "/pihole-v6")
        let hook = FakeWebhook()
        let server = FakeServer(fake)
        let hookServer = FakeServer(hook)
        try await server.start()
        try await hookServer.start()
        let outbox = try Fixtures.store()
        let hub = AdapterHub(
            backends: [
                (pihole(server.url), .pihole6),
                (
                    WebhookBackend(
                        name: "webhook", settings: WebhookSettings(url: hookServer.url), timeout: Fixtures.timeout),
                    .webhook
                ),
            ],
            outbox: outbox, timing: timing(), metering: [], logger: logger)
        try await running(hub) {
            try hub.publish(Fixtures.snapshot(Fixtures.tiktok))
            #expect(await eventually(Fixtures.patience) { fake.blocks("tiktok.com") && hook.bodies.count == 1 })

            // Both backends go down; three changes are made meanwhile.
            await server.stop()
            await hookServer.stop()
            try hub.publish(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok)))
            try hub.publish(Fixtures.snapshot(Fixtures.tiktok))
            try hub.publish(Fixtures.snapshot(Fixtures.open(Fixtures.tiktok)))
            #expect(try outbox.pending(for: "pihole6").count >= 2, "queued in the state database")
            #expect(
                await eventually(Fixtures.patience) {
                    hub.health().allSatisfy { $0.state == .failing && $0.pending == 3 }
                })
            let failing = try #require(hub.health().first)
            #expect(failing.lastError?.contains("unreachable") == true)
            #expect(failing.oldestPending != nil)

            server.clearRequests()
            try await server.start()
            try await hookServer.start()
            #expect(
                await eventually(Fixtures.patience) { hub.health().allSatisfy { $0.state == .ok && $0.pending == 0 } })
            #expect(!fake.blocks("tiktok.com") && fake.domains.count == 2)
            // Pi-hole gets only the newest set: the relock in between is not replayed on it.
            let relocks = server.requests.filter {
                $0.method == "PUT" && ($0.json() as? [String: Any])?["enabled"] as? Bool == true
            }
            #expect(relocks.isEmpty, "\(relocks.map(\.path))")
            // One delivery reads the entries once; a reconcile may follow it.
            #expect(server.requests.filter { $0.method == "GET" && $0.path == "/api/domains/deny" }.count <= 2)
            #expect(hook.bodies.map { ($0["blocked"] as? [Any])?.count } == [1, 0, 1, 0], "every change, in order")
            #expect(try outbox.pending(for: "webhook").isEmpty)
        }
        await server.stop()
        await hookServer.stop()
        #expect(server.violations == [])
    }

    @Test func outboxSurvivesARestartOfLockr() async throws {
        let fake = try FakePiHole6(specDirectory: Fixtures.specs + "/pihole-v6")
        let server = FakeServer(fake)
        let outbox = try Fixtures.store()
        // First run: the backend is down the whole time.
        let first = AdapterHub(
            backends: [(pihole("http://127.0.0.1:1"), .pihole6)], outbox: outbox, timing: timing(), metering: [],
            logger: logger)
        try await running(first) {
            try first.publish(Fixtures.snapshot(Fixtures.tiktok))
            // A reconcile may fail first; wait until the change itself was tried.
            let tried = try await eventually(Fixtures.patience) {
                let attempts = try outbox.pending(for: "pihole6").first?.attempts ?? 0
                return first.health()[0].state == .failing && attempts >= 1
            }
            let kept = try outbox.pending(for: "pihole6")
            #expect(tried, "\(first.health()) \(kept)")
        }
        let pending = try outbox.pending(for: "pihole6")
        #expect(pending.count == 1 && pending[0].attempts >= 1 && pending[0].lastError != nil, "\(pending)")

        // Second run, backend up: the kept change is delivered before anything new is published.
        try await server.start()
        let second = AdapterHub(
            backends: [(pihole(server.url), .pihole6)], outbox: outbox, timing: timing(), metering: [], logger: logger)
        try await running(second) {
            // Delivered, then marked done: wait for both (the mark follows the backend's answer).
            let delivered = try await eventually(Fixtures.patience) {
                try outbox.pending(for: "pihole6").isEmpty && fake.blocks("tiktok.com")
            }
            #expect(delivered)
        }
        await server.stop()
    }

    @Test func reconcilingRepairsDriftAndCountsIt() async throws {
        let fake = try FakePiHole6(specDirectory: Fixtures.specs + "/pihole-v6")
        let server = FakeServer(fake)
        try await server.start()
        let hub = AdapterHub(
            backends: [(pihole(server.url), .pihole6)], outbox: try Fixtures.store(),
            timing: timing(reconcile: .milliseconds(200)), metering: [], logger: logger)
        try await running(hub) {
            try hub.publish(Fixtures.snapshot(Fixtures.tiktok))
            #expect(await eventually(Fixtures.patience) { fake.blocks("tiktok.com") })
            fake.deleteDomain("(\\.|^)tiktok\\.com$")
            fake.addUserDomain("mine.example")
            #expect(await eventually(Fixtures.patience) { fake.blocks("tiktok.com") && hub.health()[0].repairs >= 1 })
            #expect(fake.domains.contains { $0.domain == "mine.example" })
        }
        await server.stop()
    }

    @Test func retriesBackOffAndRecoverFromInjectedFaults() async throws {
        let fake = try FakePiHole6(specDirectory: Fixtures.specs + "/pihole-v6")
        let server = FakeServer(fake)
        try await server.start()
        server.inject(.status(500), .status(429), .status(503))
        let hub = AdapterHub(
            backends: [(pihole(server.url), .pihole6)], outbox: try Fixtures.store(), timing: timing(), metering: [],
            logger: logger)
        try await running(hub) {
            try hub.publish(Fixtures.snapshot(Fixtures.tiktok))
            // Recovers in well under a second alone; the bound is for a loaded machine running the suite.
            #expect(await eventually(Fixtures.patience) { fake.blocks("tiktok.com") && hub.health()[0].state == .ok })
        }
        await server.stop()
        #expect(server.violations == [])
    }

    @Test func identicalSnapshotsQueueNothing() throws {
        let outbox = try Fixtures.store()
        let hub = AdapterHub(
            backends: [(pihole("http://127.0.0.1:1"), .pihole6)], outbox: outbox, timing: timing(), metering: [],
            logger: logger)
        #expect(try hub.publish(Fixtures.snapshot(Fixtures.tiktok))?.event == "sync")
        #expect(try hub.publish(Fixtures.snapshot(Fixtures.tiktok)) == nil)
        let change = try #require(try hub.publish(Fixtures.snapshot()))
        #expect(change.changed == [AppChange(app: "tiktok", blocked: nil)])
        #expect(try outbox.pending(for: "pihole6").count == 2)
    }

    @Test func meteringReadsTheLogFromItsCursor() async throws {
        let fake = try FakePiHole6(specDirectory: Fixtures.specs + "/pihole-v6")
        let server = FakeServer(fake)
        try await server.start()
        var timing = timing()
        timing.logInterval = .milliseconds(100)
        let seen = LockedList()
        let hub = AdapterHub(
            backends: [(pihole(server.url), .pihole6)], outbox: try Fixtures.store(), timing: timing,
            metering: ["pihole6"], logger: logger)
        let task = Task { await hub.run(observe: { _, queries in seen.append(queries.map(\.name)) }) }
        fake.logQuery("before.start.tiktok.com", at: Date() - 30)
        // The reader starts from its first read: what came before lockr started is not counted.
        #expect(await eventually(Fixtures.patience) { server.requests.contains { $0.path == "/api/queries" } })
        fake.logQuery("www.tiktok.com")
        fake.logQuery("api.tiktok.com")
        #expect(
            await eventually(Fixtures.patience) { seen.names == ["www.tiktok.com", "api.tiktok.com"] },
            "\(hub.health()[0].logError ?? "no error") \(server.requests.map(\.path))")
        // Each query once: by the time a later one is seen, the hub has read the log again.
        fake.logQuery("later.tiktok.com")
        #expect(await eventually(Fixtures.patience) { seen.names.last == "later.tiktok.com" })
        #expect(seen.names == ["www.tiktok.com", "api.tiktok.com", "later.tiktok.com"], "each query once")
        #expect(hub.health()[0].metering)
        task.cancel()
        await task.value
        await server.stop()
    }
}

final class LockedList: Sendable {
    private let list = Mutex<[String]>([])
    func append(_ names: [String]) { list.withLock { $0 += names } }
    var names: [String] { list.withLock { $0 } }
}
