import CivilTime
import Foundation
import Testing

@testable import LockrPolicy

@Suite struct HourlyModeTests {
    @Test func unlockOpensAWindowThatRelocksUntilTheNextHour() throws {
        let start = at("2026-06-01T14:20:00Z")
        var policy = engine(settings(.hourly), now: start)
        #expect(policy.admit("tiktok", at: start).reason == "tiktok: locked; `lockr unlock tiktok` opens 10 min")
        let result = try policy.unlock("tiktok", phrase: nil, at: start)
        #expect(result.opened.map(\.ends) == [at("2026-06-01T14:30:00Z")])
        #expect(policy.admit("tiktok", at: at("2026-06-01T14:29:59Z")).isAllowed)
        // Other apps keep their own window.
        #expect(!policy.admit("instagram", at: start).isAllowed)
        let after = policy.admit("tiktok", at: at("2026-06-01T14:30:00Z"))
        #expect(after.reason == "tiktok: hourly window used, next at 15:00")
        #expect(throws: PolicyRefusal.windowUsed(app: "tiktok", nextAt: "15:00")) {
            try policy.unlock("tiktok", phrase: nil, at: at("2026-06-01T14:45:00Z"))
        }
        let nextHour = try policy.unlock("tiktok", phrase: nil, at: at("2026-06-01T15:00:00Z"))
        #expect(nextHour.opened.count == 1)
    }

    @Test func ttlOfAnAllowedAnswerIsClampedToTheWindowAndTheMaximum() throws {
        let start = at("2026-06-01T14:20:00Z")
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.unlock("youtube", phrase: nil, at: start)
        #expect(policy.admit("youtube", at: start) == .allow(ttl: .seconds(30)))
        #expect(policy.admit("youtube", at: at("2026-06-01T14:29:48Z")) == .allow(ttl: .seconds(12)))
        #expect(
            policy.admit("youtube", at: Instant(milliseconds: at("2026-06-01T14:29:59Z").milliseconds + 500))
                == .allow(ttl: .seconds(1)))
    }

    @Test func aWindowOpenedAt55LastsItsFullLengthAndBelongsToItsHour() throws {
        let start = at("2026-06-01T14:55:00Z")
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.unlock("instagram", phrase: nil, at: start)
        #expect(policy.admit("instagram", at: at("2026-06-01T15:04:59Z")).isAllowed)
        #expect(!policy.admit("instagram", at: at("2026-06-01T15:05:00Z")).isAllowed)
        // The 15:00 hour still has its own window, once the 14:55 one has ended.
        let next = try policy.unlock("instagram", phrase: nil, at: at("2026-06-01T15:05:00Z"))
        #expect(next.opened.first?.ends == at("2026-06-01T15:15:00Z"))
        #expect(next.opened.first?.hourResets == at("2026-06-01T16:00:00Z"))
    }

    @Test func unlockAllOpensEveryGuardedAppAndReportsOpenOnes() throws {
        let start = at("2026-06-01T09:00:00Z")
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.unlock("tiktok", phrase: nil, at: start)
        let all = try policy.unlock(nil, phrase: nil, at: start + .seconds(60))
        #expect(Set(all.opened.compactMap(\.app)) == ["instagram", "youtube"])
        #expect(all.alreadyOpen.compactMap(\.app) == ["tiktok"])
    }

    @Test func theFirstQueryOfTheHourOpensTheWindowWhenConfigured() {
        let start = at("2026-06-01T09:10:00Z")
        var policy = engine(
            settings(.hourly) {
                $0.hourly.openOnFirstQuery = true; $0.hourly.window = .seconds(300)
            }, now: start)
        #expect(policy.admit("tiktok", at: start).isAllowed)
        #expect(policy.admit("tiktok", at: start + .seconds(299)).isAllowed)
        #expect(policy.admit("tiktok", at: start + .seconds(300)).reason == "tiktok: hourly window used, next at 10:00")
        #expect(policy.admit("tiktok", at: at("2026-06-01T10:00:01Z")).isAllowed)
    }

    @Test func theStoredHourBoundaryIsUsedAfterARestart() throws {
        let start = at("2026-06-01T09:50:00Z")
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.unlock("tiktok", phrase: nil, at: start)
        var state = policy.readout.snapshot(at: start + .seconds(60))
        // Whatever the calendar would compute now, the boundary kept with the window decides.
        var windows = state.windows.all
        windows[0].hourResets = at("2026-06-01T10:30:00Z")
        state.windows = UnlockWindows(windows)
        var restored = PolicyEngine(
            settings: policy.configuration.settings, guarded: ["tiktok"], apps: testApps, state: state,
            now: start + .seconds(60))
        #expect(
            restored.admit("tiktok", at: at("2026-06-01T10:10:00Z")).reason
                == "tiktok: hourly window used, next at 10:30")
    }

    @Test func aWindowSurvivesARestartAndEndsAtTheSameTime() throws {
        let start = at("2026-06-01T09:20:00Z")
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.unlock("youtube", phrase: nil, at: start)
        var restarted = policy.restarted(at: start + .seconds(200))
        #expect(restarted.admit("youtube", at: start + .seconds(300)).isAllowed)
        #expect(!restarted.admit("youtube", at: start + .seconds(600)).isAllowed)
    }

    @Test func windowsFollowLocalClockHoursAcrossTheSpringDSTChange() throws {
        let berlin = DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin"))
        let start = at("2026-03-29T01:55:00+01:00")
        var policy = engine(settings(.hourly, calendar: berlin), now: start)
        let window = try policy.unlock("tiktok", phrase: nil, at: start).opened[0]
        #expect(window.ends == at("2026-03-29T03:05:00+02:00"))
        #expect(window.hourResets == at("2026-03-29T03:00:00+02:00"))
        #expect(policy.admit("tiktok", at: at("2026-03-29T03:05:00+02:00")).isAllowed == false)
        #expect(try policy.unlock("tiktok", phrase: nil, at: at("2026-03-29T03:05:00+02:00")).opened.count == 1)
    }

    @Test func theRepeatedAutumnHourIsItsOwnHour() throws {
        let berlin = DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin"))
        let first = at("2026-10-25T02:40:00+02:00")
        var policy = engine(settings(.hourly, calendar: berlin), now: first)
        _ = try policy.unlock("tiktok", phrase: nil, at: first)
        // 02:10 CET comes after 02:59 CEST: a new clock hour, so a new window.
        let second = at("2026-10-25T02:10:00+01:00")
        #expect(try policy.unlock("tiktok", phrase: nil, at: second).opened.count == 1)
    }

    @Test func unlockingIsNotPartOfTimeModeAndUnknownAppsAreRefused() {
        let start = at("2026-06-01T09:20:00Z")
        var policy = engine(settings(.time), now: start)
        #expect(throws: PolicyRefusal.self) { try policy.unlock("tiktok", phrase: nil, at: start) }
        var hourly = engine(settings(.hourly), now: start)
        #expect(throws: PolicyRefusal.unknownApp("myspace")) { try hourly.unlock("myspace", phrase: nil, at: start) }
        #expect(throws: PolicyRefusal.notGuarded("whatsapp")) { try hourly.unlock("whatsapp", phrase: nil, at: start) }
        #expect(hourly.admit("whatsapp", at: start) == .notGuarded)
    }

    @Test func endedWindowsAreLoggedAsLocks() throws {
        let start = at("2026-06-01T09:20:00Z")
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.unlock("tiktok", phrase: nil, at: start)
        policy.tick(at: start + .seconds(599))
        _ = policy.drainEvents()
        policy.tick(at: start + .seconds(600))
        let events = policy.drainEvents()
        #expect(events.map(\.type) == [.lock])
        #expect(events.first?.detail == "tiktok: hourly window used, next at 10:00")
        policy.tick(at: start + .seconds(601))
        #expect(policy.drainEvents().isEmpty)
    }
}
