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
