import Foundation
import Testing

@testable import LockrPolicy

@Suite struct LiveEventTests {
    /// Ticks `policy` at `now` and gives what `watch` makes of its status.
    private func changes(_ policy: inout PolicyEngine, _ watch: inout StatusWatch, at now: Instant) -> [LiveEvent] {
        policy.tick(at: now)
        return watch.changes(in: policy.readout.status(at: now), calendar: utc)
    }

    /// Each event as "kind app minutes"; the app's openings left out unless `opens`.
    private func kinds(_ events: [LiveEvent], opens: Bool = false) -> [String] {
        events.filter { opens || $0.kind != .appOpened }.map { event in
            [event.kind.rawValue, event.app, event.minutesLeft.map(String.init)].compactMap { $0 }.joined(
                separator: " ")
        }
    }

    @Test func anHourlyWindowOpensWarnsTwiceAndClosesIntoALock() throws {
        let start = at("2026-06-01T14:20:00Z")
        var policy = engine(settings(.hourly), now: start)
        var watch = StatusWatch()
        #expect(changes(&policy, &watch, at: start).isEmpty)
        _ = try policy.unlock("tiktok", phrase: nil, at: start + .seconds(1))
        let opened = changes(&policy, &watch, at: start + .seconds(1))
        #expect(kinds(opened) == ["window_opened tiktok"])
        #expect(opened.first?.until == at("2026-06-01T14:30:01Z"))
        #expect(opened.first?.message == "tiktok: open until 14:30 (hourly window)")
        // Ticked every second: each warning comes once, in the second it is due.
        var seen: [(Instant, [String])] = []
        var now = start + .seconds(2)
        while now <= at("2026-06-01T14:30:02Z") {
            let events = changes(&policy, &watch, at: now)
            if !events.isEmpty { seen.append((now, kinds(events))) }
            now = now + .seconds(1)
        }
        #expect(seen.map(\.0) == [at("2026-06-01T14:28:01Z"), at("2026-06-01T14:29:01Z"), at("2026-06-01T14:30:01Z")])
        #expect(
            seen.map(\.1) == [
                ["window_ending tiktok 2"], ["window_ending tiktok 1"], ["window_closed tiktok", "locked tiktok"],
            ])
        let locked = changes(&policy, &watch, at: at("2026-06-01T14:30:01Z"))
        #expect(locked.isEmpty)
        // The next hour lets the app open again, but it stays locked until asked: nothing to tell.
        #expect(changes(&policy, &watch, at: at("2026-06-01T15:00:01Z")).isEmpty)
    }

    @Test func aWarningPassedBeforeTheAppWasSeenOrJumpedOverIsNotGivenLate() throws {
        let start = at("2026-06-01T14:20:00Z")
        var policy = engine(settings(.hourly) { $0.hourly.window = .seconds(300) }, now: start)
        _ = try policy.unlock("tiktok", phrase: nil, at: start)
        var watch = StatusWatch()
        // First seen with 90 s left: the 2-minute warning is past.
        #expect(changes(&policy, &watch, at: at("2026-06-01T14:23:30Z")).isEmpty)
        #expect(kinds(changes(&policy, &watch, at: at("2026-06-01T14:24:00Z"))) == ["window_ending tiktok 1"])

        _ = try policy.unlock("youtube", phrase: nil, at: at("2026-06-01T14:24:00Z"))
        #expect(kinds(changes(&policy, &watch, at: at("2026-06-01T14:24:00Z"))) == ["window_opened youtube"])
        #expect(
            kinds(changes(&policy, &watch, at: at("2026-06-01T14:26:00Z"))) == [
                "window_closed tiktok", "locked tiktok",
            ])
        // From 3 minutes left straight to 30 s: one warning, the nearer one.
        #expect(kinds(changes(&policy, &watch, at: at("2026-06-01T14:28:30Z"))) == ["window_ending youtube 1"])
    }

    @Test func aBudgetRunsLowLocksAndAnExtensionReArmsItsWarnings() throws {
        let start = at("2026-06-01T10:00:00Z")
        var policy = engine(
            settings(.time) {
                $0.time.budget = .seconds(600)
                $0.extend.length = .seconds(300)
            }, now: start)
        var watch = StatusWatch()
        #expect(changes(&policy, &watch, at: start).isEmpty)
        var seen: [(Int64, [String])] = []
        // Steady use: a query every 20 s until the budget is spent.
        var now = start
        while now < start + .seconds(700) {
            _ = policy.admit("tiktok", at: now)
            let events = kinds(changes(&policy, &watch, at: now))
            if !events.isEmpty { seen.append(((now - start).milliseconds / 1000, events)) }
            now = now + .seconds(20)
        }
        // The budget is shared: one warning for all three apps, then each app locks.
        #expect(
            seen.map(\.1) == [
                ["budget_low 5"], ["budget_low 1"], ["locked instagram", "locked tiktok", "locked youtube"],
            ])
        #expect(seen.map(\.0) == [300, 540, 600])
        _ = try policy.extend(nil, at: now)
        #expect(
            kinds(changes(&policy, &watch, at: now)) == ["unlocked instagram", "unlocked tiktok", "unlocked youtube"])
        // 5 more minutes: the 5-minute warning is passed at once (given with the unlock's status, not
        // late), the 1-minute one is due again.
        seen = []
        let extended = now
        while now < extended + .seconds(400) {
            _ = policy.admit("tiktok", at: now)
            let events = kinds(changes(&policy, &watch, at: now))
            if !events.isEmpty { seen.append(((now - extended).milliseconds / 1000, events)) }
            now = now + .seconds(20)
        }
        #expect(seen.map(\.1) == [["budget_low 1"], ["locked instagram", "locked tiktok", "locked youtube"]])
        #expect(seen.map(\.0) == [240, 300])
    }

    @Test func budgetsOfTheirOwnWarnPerApp() {
        let start = at("2026-06-01T10:00:00Z")
        var policy = engine(
            settings(.time) {
                $0.time.budget = .seconds(360); $0.time.perApp = true
            }, now: start)
        var watch = StatusWatch()
        var events: [String] = []
        var now = start
        while now < start + .seconds(400) {
            _ = policy.admit("tiktok", at: now)
            events += kinds(changes(&policy, &watch, at: now))
            now = now + .seconds(20)
        }
        let message = watch.changes(in: policy.readout.status(at: now), calendar: utc)
        #expect(message.isEmpty)
        #expect(events == ["budget_low tiktok 5", "budget_low tiktok 1", "locked tiktok"])
    }

    @Test func aNewDayUnlocksWhatItsBudgetLocked() {
        let start = at("2026-06-01T23:40:00Z")
        var policy = engine(settings(.time) { $0.time.budget = .seconds(300) }, now: start)
        var watch = StatusWatch()
        var now = start
        var events: [String] = []
        while now < at("2026-06-02T00:00:30Z") {
            if now < at("2026-06-01T23:50:00Z") { _ = policy.admit("tiktok", at: now) }
            events += kinds(changes(&policy, &watch, at: now))
            now = now + .seconds(10)
        }
        #expect(
            events.filter { $0.hasPrefix("locked") || $0.hasPrefix("unlocked") } == [
                "locked instagram", "locked tiktok", "locked youtube", "unlocked instagram", "unlocked tiktok",
                "unlocked youtube",
            ])
    }

    @Test func eachOpeningAfterAGapIsCounted() {
        let start = at("2026-06-01T10:00:00Z")
        var policy = engine(settings(.time) { $0.time.budget = .seconds(3600) }, now: start)
        var watch = StatusWatch()
        #expect(changes(&policy, &watch, at: start).isEmpty)
        var opened: [LiveEvent] = []
        // Three uses of a minute each, ten minutes apart: three opens.
        for use in 0..<3 {
            let begins = start + .seconds(600 * use + 60)
            for second in stride(from: 0, through: 60, by: 10) {
                _ = policy.admit("tiktok", at: begins + .seconds(second))
                opened += changes(&policy, &watch, at: begins + .seconds(second)).filter { $0.kind == .appOpened }
            }
        }
        #expect(opened.map(\.count) == [1, 2, 3])
        #expect(
            opened.map(\.message) == [
                "tiktok: opened once today", "tiktok: opened twice today", "tiktok: opened 3 times today",
            ])
    }

    @Test func loggedEventsThatAreLiveOnesAndThoseThatAreNot() {
        let now = at("2026-06-01T10:00:00Z")
        let off = LiveEvent(PolicyEvent(at: now, type: .protectionOff, app: nil, detail: "192.168.1.20 stopped asking"))
        #expect(off?.kind == .protectionOff)
        #expect(off?.message == "192.168.1.20 stopped asking")
        #expect(
            LiveEvent(PolicyEvent(at: now, type: .changeApplied, app: nil, detail: "mode hourly"))?.kind
                == .settingsChanged)
        #expect(LiveEvent(PolicyEvent(at: now, type: .profileOn, app: nil, detail: "work"))?.kind == .settingsChanged)
        // Locks and unlocks come from the status, with their countdowns; gates and the day's reset are not news.
        #expect(LiveEvent(PolicyEvent(at: now, type: .lock, app: "tiktok", detail: "x")) == nil)
        #expect(LiveEvent(PolicyEvent(at: now, type: .gateFail, app: nil, detail: "x")) == nil)
        #expect(LiveEvent(PolicyEvent(at: now, type: .dayReset, app: nil, detail: "x")) == nil)
    }
}
