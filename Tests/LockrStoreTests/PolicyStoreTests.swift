import CivilTime
import Foundation
import LockrPuzzles
import LockrStore
import Testing

@testable import LockrPolicy

@Suite struct PolicyStoreTests {
    func temporaryPath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lockr-store-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("state.sqlite").path
    }

    let day = PolicyDay(
        key: "2026-06-01", start: Instant(milliseconds: 1_780_272_000_000),
        end: Instant(milliseconds: 1_780_358_400_000))

    func sampleState() -> PolicyState {
        var today = DayRecord(day: day)
        today.snoozes = 1
        today.extensions = 1
        today.emergencies = 2
        today.gateMisses = 4
        today.cooldownUntil = Instant(milliseconds: 1_780_300_045_000)
        today.used = ["instagram": .milliseconds(123_456), "*": .milliseconds(200_000)]
        today.charged = ["instagram": .milliseconds(100_000), "*": .milliseconds(150_000)]
        today.extraBudget = ["*": .seconds(600)]
        today.opens = ["tiktok": 4, "youtube": 1]
        today.sessions = ["tiktok": 6, "instagram": 2]
        today.blocked = ["tiktok": 120]
        today.budgets = ["*": .seconds(1800)]
        var tally = GateTally()
        tally.passed = 2
        tally.failed = 1
        tally.milliseconds = 41_000
        tally.timed = 3
        today.gates = ["chess hard": tally]
        var state = PolicyState(today: today, lastSeen: Instant(milliseconds: 1_780_300_000_123))
        state.windows = UnlockWindows([
            UnlockWindow(
                app: "tiktok", kind: .hourly, opened: Instant(milliseconds: 1_780_300_000_000),
                ends: Instant(milliseconds: 1_780_300_600_000), hourResets: Instant(milliseconds: 1_780_303_200_000)),
            UnlockWindow(
                app: nil, kind: .emergency, opened: Instant(milliseconds: 1_780_300_000_000),
                ends: Instant(milliseconds: 1_780_300_300_000)),
        ])
        state.overlay.mode = .extreme
        state.overlay.extremeWindow = .seconds(600)
        state.overlay.budget = .seconds(2700)
        state.overlay.perApp = true
        state.overlay.guardAdded = ["reddit", "x"]
        state.overlay.guardRemoved = ["youtube"]
        state.overlay.schedulesAdded = [
            Schedule(
                name: "bedtime", days: Weekdays("mon-fri")!, from: 22 * 60, to: 7 * 60, block: ["social", "tiktok"])
        ]
        state.overlay.schedulesRemoved = ["school"]
        state.profiles = Profiles(
            made: [Profile(name: "work", block: ["social", "video"])],
            active: [
                ActiveProfile(
                    name: "work", since: Instant(milliseconds: 1_000), until: Instant(milliseconds: 7_201_000)),
                ActiveProfile(name: "homework", since: Instant(milliseconds: 2_000), until: nil),
            ])
        var generator = SeededGenerator(seed: 1)
        let issued = Instant(milliseconds: 1_780_300_000_000)
        state.gate.challenges = [
            Challenge(
                id: "00ff00ff00ff00ff", puzzle: Puzzle.make(.chess, .hard, using: &generator), issued: issued,
                expires: issued + .seconds(120))
        ]
        state.gate.passes = [GatePass(kind: .sentence, expires: issued + .seconds(300))]
        state.gate.spent = ["0123456789abcdef": issued + .seconds(60)]
        state.gate.typedFallbackFrom = issued + .seconds(15)
        return state
    }

    @Test func anEmptyStoreHasNoStateAndOnlyItsUserMayReadIt() throws {
        let path = temporaryPath()
        let store = try PolicyStore(path: path)
        var info = stat()
        stat(path, &info)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try store.load() == nil)
        #expect(try store.events(since: Instant(milliseconds: 0)).isEmpty)
    }

    @Test func everythingSavedComesBackAfterReopening() throws {
        let path = temporaryPath()
        let state = sampleState()
        let event = PolicyEvent(
            at: state.lastSeen, type: .gateFail, app: "youtube", detail: "wrong phrase #4", action: .unlock)
        let byTime = PolicyEvent(at: state.lastSeen, type: .dayReset, app: nil, detail: "a new day")
        try PolicyStore(path: path).save(state, events: [event, byTime])
        let reopened = try PolicyStore(path: path)
        #expect(try reopened.load() == state)
        #expect(
            try reopened.events(since: Instant(milliseconds: 0)) == [
                LoggedEvent(person: People.defaultName, event: event),
                LoggedEvent(person: People.defaultName, event: byTime),
            ])
    }

    @Test func laterSavesReplaceWindowsAndKeepClosedDays() throws {
        let store = try PolicyStore(path: temporaryPath())
        var state = sampleState()
        try store.save(state)
        var closed = state.today
        closed.used["*"] = .seconds(1800)
        let next = PolicyDay(key: "2026-06-02", start: day.end, end: day.end + .seconds(86400))
        state.today = DayRecord(day: next)
        state.windows = UnlockWindows(Array(state.windows.all.dropFirst()))
        try store.save(state, closedDays: [closed])
        #expect(try store.load() == state)
        #expect(try store.usage(day: "2026-06-01")["*"] == .seconds(1800))
        #expect(try store.usage(day: "2026-06-02").isEmpty)
        // The days of a range, oldest first, each as it was saved last.
        #expect(
            try store.days(person: People.defaultName, from: "2026-05-01", to: "2026-06-30") == [closed, state.today])
        #expect(try store.days(person: People.defaultName, from: "2026-06-02", to: "2026-06-02") == [state.today])
        #expect(try store.days(person: "nobody", from: "2026-05-01", to: "2026-06-30").isEmpty)
    }

    @Test func eventsAreReadSinceATimeOldestFirstUpToALimit() throws {
        let store = try PolicyStore(path: temporaryPath())
        let events = (0..<10).map { index in
            PolicyEvent(at: Instant(milliseconds: Int64(index) * 1000), type: .unlock, app: "x", detail: "#\(index)")
        }
        try store.save(sampleState(), events: events)
        #expect(
            try store.events(since: Instant(milliseconds: 5000)).map(\.event.detail) == ["#5", "#6", "#7", "#8", "#9"])
        #expect(try store.events(since: Instant(milliseconds: 0), limit: 2).map(\.event.detail) == ["#8", "#9"])
    }

    @Test func anEngineRestoredFromTheStoreDecidesAsBefore() throws {
        let store = try PolicyStore(path: temporaryPath())
        let start = Instant(milliseconds: 1_780_300_000_000)
        let settings = PolicySettings(mode: .hourly, calendar: DayCalendar(zone: try! ZoneDatabase().zone("UTC")))
        let apps = ["tiktok": "TikTok"]
        var engine = PolicyEngine(settings: settings, guarded: ["tiktok"], apps: apps, state: nil, now: start)
        _ = try engine.apply(.unlock(app: "tiktok"), at: start)
        try store.save(engine.readout.snapshot(at: start + .seconds(5)), events: engine.drainEvents())
        var restored = PolicyEngine(
            settings: settings, guarded: ["tiktok"], apps: apps, state: try store.load(), now: start + .seconds(5))
        #expect(restored.admit("tiktok", at: start + .seconds(599)) == .allow(ttl: .seconds(1)))
        #expect(restored.admit("tiktok", at: start + .seconds(600)) != .allow(ttl: .seconds(1)))
        #expect(try store.events(since: start).map(\.event.type) == [.unlock])
    }

    @Test func anUnusablePathIsAClearError() {
        #expect(throws: StoreError.self) { try PolicyStore(path: "/proc/lockr-cannot-be-here/state.sqlite") }
    }

    /// `Fixtures/state-before-people.sqlite` was written by lockr 37cc3cb (before people): hourly
    /// mode, tiktok unlocked at 10:01 and used 5 min 40 s, an emergency at 10:08, `lockr mode time`
    /// pending, three events.
    @Test func aStoreFromBeforePeopleBecomesTheDefaultPersonsLosingNothing() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/state-before-people.sqlite")
        let path = temporaryPath()
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        let store = try PolicyStore(path: path)
        #expect(try store.people() == [People.defaultName])
        let state = try #require(try store.load())
        #expect(state.today.day.key == "2026-06-01")
        #expect(state.today.used == ["tiktok": .milliseconds(340_000), "*": .milliseconds(340_000)])
        #expect(state.today.emergencies == 1)
        #expect(state.windows.all.map(\.kind) == [.hourly, .emergency])
        #expect(
            state.windows.all.first?.app == "tiktok"
                && state.windows.all.first?.ends == Instant(milliseconds: 1_780_308_719_660))
        #expect(state.changes.pending.map(\.change.key) == ["policy.mode"] && state.overlay.mode == .time)
        #expect(state.metering.used["tiktok"] != nil && state.inForce?.guarded == ["tiktok", "youtube"])
        let events = try store.events(since: Instant(milliseconds: 0))
        #expect(events.map(\.event.type) == [.unlock, .emergency, .changePending])
        #expect(events.allSatisfy { $0.person == People.defaultName })
        #expect(try store.load(person: "alice") == nil)
        // A new person's state is kept apart from the default person's, and both come back.
        var alice = sampleState()
        alice.today.used = ["instagram": .seconds(60)]
        try store.save(
            alice, events: [PolicyEvent(at: alice.lastSeen, type: .lock, app: "instagram", detail: "x")],
            person: "alice")
        let reopened = try PolicyStore(path: path)
        #expect(try reopened.people() == ["alice", People.defaultName])
        #expect(try reopened.load() == state)
        #expect(try reopened.load(person: "alice")?.today.used == ["instagram": .seconds(60)])
        #expect(try reopened.events(since: Instant(milliseconds: 0), person: "alice").map(\.event.app) == ["instagram"])
        #expect(try reopened.usage(day: "2026-06-01", person: "alice") == ["instagram": .seconds(60)])
        #expect(try reopened.usage(day: "2026-06-01")["tiktok"] == .milliseconds(340_000))
    }
}
