import DNSProxy
import Foundation
import LockrControl
import LockrPolicy
import LockrStore
import Logging
import Testing

@testable import LockrDaemon

@Suite struct PolicyRuntimeTests {
    let catalogue = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("blocklists").path

    func runtime(_ clocks: FakeClocks, store: PolicyStore, mode: Mode = .hourly) throws -> PolicyRuntime {
        var config = LockrConfiguration()
        config.catalogueDirectory = catalogue
        config.upstreams = [try .init(ipAddress: "127.0.0.1", port: 53)]
        config.guarded = ["tiktok"]
        config.policy = PolicySettings(mode: mode, calendar: DayCalendar(timeZone: TimeZone(identifier: "UTC")!))
        return try PolicyRuntime(
            config: config, loaded: try PolicyLoader.load(config), store: store, logger: Logger(label: "test"),
            clock: { clocks.clock(resumingAfter: $0, scale: $1.timeScale) })
    }

    func store() throws -> PolicyStore {
        let directory = NSTemporaryDirectory() + "lockr-runtime-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try PolicyStore(path: directory + "/state.sqlite")
    }

    @Test func aWallClockJumpIsLoggedAndGrantsNothing() throws {
        let clocks = FakeClocks()
        let store = try store()
        let runtime = try runtime(clocks, store: store)
        _ = try runtime.perform { engine, now throws(PolicyRefusal) in try engine.unlock("tiktok", phrase: nil, at: now)
        }
        #expect(runtime.admit(app: "tiktok") == .allow(ttl: 30))
        clocks.pass(seconds: 1)
        clocks.wallMilliseconds.add(2 * 3_600_000, ordering: .relaxed)  // the clock is set two hours ahead
        runtime.tick()
        let events = try store.events(since: Instant(milliseconds: 0))
        #expect(events.last?.type == .clockJump)
        #expect(events.last?.detail == "wall clock jumped forward by 2 h; policy time kept its own pace")
        // The window still has its 10 minutes less the one second that really passed.
        clocks.pass(seconds: 598)
        #expect(runtime.admit(app: "tiktok") == .allow(ttl: 1))
        clocks.pass(seconds: 1)
        #expect(runtime.admit(app: "tiktok") == .block(reason: "tiktok: hourly window used, next at 11:00"))
    }

    @Test func controlCallsAreSavedBeforeTheyAnswerAndRefusalsCountToo() throws {
        let clocks = FakeClocks()
        let store = try store()
        let runtime = try runtime(clocks, store: store, mode: .extreme)
        #expect(throws: ControlFailure.self) {
            try runtime.perform { engine, now throws(PolicyRefusal) in
                try engine.unlock("tiktok", phrase: "no", at: now)
            }
        }
        // Nothing else ran: the miss is already in the store.
        #expect(try store.load()?.today.phraseMisses == 1)
        #expect(try store.events(since: Instant(milliseconds: 0)).map(\.type) == [.gateFail])
    }

    /// Continuous use (a lookup every 2 s) for ten minutes with the daemon's one-second saves; with
    /// `kill`, the runtime dies at that millisecond without saving and a new one starts 300 ms later
    /// from the store. Returns what was metered.
    func meteredUse(killAt kill: Int64?) throws -> Duration {
        let clocks = FakeClocks()
        let store = try store()
        var runtime = try runtime(clocks, store: store, mode: .time)
        for step in Int64(0)..<1200 {
            let elapsed = step * 500
            if elapsed == kill {
                clocks.pass(milliseconds: 300)
                runtime = try self.runtime(clocks, store: store, mode: .time)
            }
            if elapsed % 2000 == 0 { _ = runtime.admit(app: "tiktok") }
            clocks.pass(milliseconds: 500)
            if (elapsed + 500) % 1000 == 0 { runtime.tick() }
        }
        return runtime.read { engine, now in engine.status(at: now).apps[0].used }
    }

    @Test func aKillAtAnyPointOfASliceLosesAtMostASecondOfMetering() throws {
        let reference = try meteredUse(killAt: nil)
        #expect(reference >= .seconds(590) && reference <= .seconds(601))
        // A kill at every second of a slice (the engine's own test takes every half second).
        for kill in stride(from: Int64(300_000), to: 310_000, by: 1000) {
            let killed = try meteredUse(killAt: kill)
            // The 300 ms the daemon was down are real time and still count as use.
            #expect(
                abs((killed - reference).milliseconds) <= 1000,
                "kill at \(kill) ms: \(killed) metered, \(reference) without the kill")
        }
    }

    @Test func meteredUseIsSavedWithinASecond() throws {
        let clocks = FakeClocks()
        let store = try store()
        let runtime = try runtime(clocks, store: store, mode: .time)
        for _ in 0..<60 {
            _ = runtime.admit(app: "tiktok")
            clocks.pass(seconds: 1)
            runtime.tick()
        }
        let used = try #require(try store.load()?.today.used["tiktok"])
        #expect(used >= .seconds(59) && used <= .seconds(61))
    }
}
