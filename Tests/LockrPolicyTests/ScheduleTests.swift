import CivilTime
import Foundation
import Testing

@testable import LockrPolicy

let testGroups = ["instagram": "social", "tiktok": "video", "youtube": "video", "whatsapp": "messaging"]
let berlin = DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin"), dayStartMinutes: 4 * 60)

func schedule(_ name: String, _ days: String, _ from: String, _ to: String, block: [String]) -> Schedule {
    Schedule(
        name: name, days: Weekdays(days)!, from: Schedule.minutes(from)!, to: Schedule.minutes(to)!, block: block)
}

func engine(
    _ settings: PolicySettings, schedules: [Schedule] = [], profiles: [Profile] = [], state: PolicyState? = nil,
    now: Instant
) -> PolicyEngine {
    PolicyEngine(
        settings: settings, guarded: ["instagram", "tiktok", "youtube"], apps: testApps, schedules: schedules,
        profiles: profiles, groups: testGroups, state: state, now: now)
}

@Suite struct WeekdaysTests {
    @Test func readsAndWritesDaysAsPeopleDo() {
        let table: [(String, String?)] = [
            ("mon-fri", "mon-fri"), ("Sat,Sun", "sat,sun"), ("daily", "daily"), ("weekdays", "mon-fri"),
            ("weekends", "sat,sun"), ("monday,wed-fri", "mon,wed-fri"), ("fri-mon", "mon,fri-sun"), ("tues", "tue"),
            ("mo", nil), ("funday", nil), ("", nil), ("mon-", nil), ("mon-tue-wed", nil),
        ]
        for (text, expected) in table {
            #expect(Weekdays(text)?.description == expected, "\(text)")
        }
        #expect(
            Schedule.minutes("24:00") == 1440 && Schedule.minutes("7:00") == nil && Schedule.minutes("24:30") == nil)
    }
}

@Suite struct ScheduleTests {
    // 2026-06-05 is a Friday.
    let bedtime = schedule("bedtime", "mon-fri", "22:00", "07:00", block: ["social", "tiktok"])

    @Test func bedtimeRunsPastMidnightOnTheDaysItStartsOn() throws {
        var policy = engine(settings(.time), schedules: [bedtime], now: at("2026-06-05T21:00:00Z"))
        #expect(policy.admit("instagram", at: at("2026-06-05T21:59:59Z")).isAllowed)
        let reason = policy.admit("instagram", at: at("2026-06-05T22:00:00Z")).reason
        #expect(reason == "instagram: bedtime until 07:00 (schedule; only the emergency opens it)")
        #expect(policy.admit("tiktok", at: at("2026-06-06T06:59:59Z")).reason?.contains("bedtime until 07:00") == true)
        // youtube is neither social nor named: its budget decides.
        #expect(policy.admit("youtube", at: at("2026-06-06T06:59:59Z")).isAllowed)
        #expect(policy.admit("instagram", at: at("2026-06-06T07:00:00Z")).isAllowed)
        // Saturday night is not a school night.
        #expect(policy.admit("instagram", at: at("2026-06-06T23:00:00Z")).isAllowed)
        // Sunday is not among the days either, so Monday early morning is free.
        #expect(policy.admit("instagram", at: at("2026-06-08T06:00:00Z")).isAllowed)
        #expect(!policy.admit("instagram", at: at("2026-06-08T22:30:00Z")).isAllowed)
        let status = policy.readout.status(at: at("2026-06-08T22:30:00Z"))
        #expect(status.schedules.first?.activeUntil == at("2026-06-09T07:00:00Z"))
        #expect(status.apps.first { $0.id == "instagram" }?.restriction?.source == .schedule("bedtime"))
    }

    @Test func onlyTheEmergencyOpensAScheduledApp() throws {
        var policy = engine(settings(.hourly), schedules: [bedtime], now: at("2026-06-05T22:10:00Z"))
        let now = at("2026-06-05T22:10:00Z")
        #expect(
            throws: PolicyRefusal.restricted("instagram: bedtime until 07:00 (schedule; only the emergency opens it)")
        ) {
            _ = try policy.unlock("instagram", phrase: nil, at: now)
        }
        // Unlocking everything opens what no schedule blocks, and nothing else.
        let opened = try policy.unlock(nil, phrase: nil, at: now).opened
        #expect(opened.map(\.app) == ["youtube"])
        #expect(!policy.admit("tiktok", at: now).isAllowed)
        let hold = try policy.beginEmergency(at: now)
        _ = try policy.completeEmergency(hold: hold, at: now + .seconds(8))
        #expect(policy.admit("tiktok", at: now + .seconds(10)).isAllowed)
        #expect(!policy.admit("tiktok", at: now + .seconds(8 + 5 * 60)).isAllowed)
    }

    @Test func aGroupBlocksItsAppsEvenWhenTheyAreNotGuarded() {
        let chats = schedule("school", "mon-fri", "08:00", "13:00", block: ["messaging"])
        var policy = engine(settings(.time), schedules: [chats], now: at("2026-06-05T07:00:00Z"))
        #expect(policy.admit("whatsapp", at: at("2026-06-05T07:59:00Z")) == .notGuarded)
        #expect(
            policy.admit("whatsapp", at: at("2026-06-05T08:00:00Z")).reason?.hasPrefix("whatsapp: school until 13:00")
                == true)
        #expect(policy.readout.blockedApps(at: at("2026-06-05T09:00:00Z")) == ["whatsapp"])
        let listed = policy.readout.status(at: at("2026-06-05T09:00:00Z")).apps.first { $0.id == "whatsapp" }
        #expect(listed?.guarded == false && listed?.open == false)
        #expect(policy.admit("whatsapp", at: at("2026-06-05T13:00:00Z")) == .notGuarded)
        policy.tick(at: at("2026-06-05T13:00:01Z"))
        let events = policy.drainEvents().filter { $0.app == "whatsapp" }.map(\.type)
        #expect(events == [.lock, .unlock])
    }

    /// 2026-03-29: Berlin's clocks go from 02:00 CET to 03:00 CEST.
    @Test func aStartTheClocksSkipBeginsAfterTheGap() {
        let night = schedule("night", "daily", "02:30", "04:00", block: ["tiktok"])
        var policy = engine(settings(.time, calendar: berlin), schedules: [night], now: at("2026-03-29T01:00:00+01:00"))
        #expect(policy.admit("tiktok", at: at("2026-03-29T01:59:59+01:00")).isAllowed)
        #expect(
            policy.admit("tiktok", at: at("2026-03-29T03:00:00+02:00")).reason?.contains("night until 04:00") == true)
        #expect(!policy.admit("tiktok", at: at("2026-03-29T03:59:59+02:00")).isAllowed)
        #expect(policy.admit("tiktok", at: at("2026-03-29T04:00:00+02:00")).isAllowed)
        // A bedtime across the change is an hour shorter in real time, and ends at 07:00 on the clock.
        let bedtime = schedule("bedtime", "sat", "22:00", "07:00", block: ["tiktok"])
        let stretch = bedtime.occurrence(containing: at("2026-03-29T05:00:00+02:00"), calendar: berlin)
        #expect(stretch?.start == at("2026-03-28T22:00:00+01:00") && stretch?.end == at("2026-03-29T07:00:00+02:00"))
        #expect(stretch.map { $0.end - $0.start } == .seconds(8 * 3600))
    }

    /// 2026-10-25: Berlin's clocks go from 03:00 CEST back to 02:00 CET.
    @Test func aTimeTheClocksRepeatCountsOnce() {
        let late = schedule("late", "daily", "01:00", "02:30", block: ["tiktok"])
        let early = schedule("early", "daily", "02:30", "03:30", block: ["youtube"])
        var policy = engine(
            settings(.time, calendar: berlin), schedules: [late, early], now: at("2026-10-25T00:30:00+02:00"))
        #expect(!policy.admit("tiktok", at: at("2026-10-25T02:15:00+02:00")).isAllowed)
        #expect(policy.admit("youtube", at: at("2026-10-25T02:29:00+02:00")).isAllowed)
        #expect(policy.admit("tiktok", at: at("2026-10-25T02:30:00+02:00")).isAllowed)
        // A range from 02:30 starts at the first 02:30 and runs through the repeated hour.
        #expect(!policy.admit("youtube", at: at("2026-10-25T02:30:00+02:00")).isAllowed)
        #expect(!policy.admit("youtube", at: at("2026-10-25T02:10:00+01:00")).isAllowed)
        // The second 02:15 is past the end of the range to 02:30: it does not start again.
        #expect(policy.admit("tiktok", at: at("2026-10-25T02:15:00+01:00")).isAllowed)
        #expect(policy.admit("youtube", at: at("2026-10-25T03:30:00+01:00")).isAllowed)
    }

    @Test func addingTightensAtOnceAndRemovingWaitsAsLooseningDoes() throws {
        let now = at("2026-06-05T22:30:00Z")
        var policy = engine(settings(.time) { $0.commitmentDelay = .seconds(86_400) }, schedules: [], now: now)
        #expect(policy.admit("instagram", at: now).isAllowed)
        let added = try policy.addSchedule(bedtime, at: now)
        #expect(added.applied.count == 1 && added.pending.isEmpty)
        #expect(!policy.admit("instagram", at: now + .seconds(1)).isAllowed)
        // Covering more (every day) tightens; covering fewer apps loosens.
        var everyDay = bedtime
        everyDay.days = .everyDay
        #expect(try policy.addSchedule(everyDay, at: now + .seconds(2)).pending.isEmpty)
        var fewer = everyDay
        fewer.block = ["tiktok"]
        #expect(try policy.addSchedule(fewer, at: now + .seconds(3)).pending.count == 1)
        let removal = try policy.removeSchedule("bedtime", at: now + .seconds(4))
        #expect(removal.applied.isEmpty && removal.pending.first?.appliesAt == now + .seconds(4 + 86_400))
        #expect(!policy.admit("instagram", at: now + .seconds(5)).isAllowed)
        #expect(throws: PolicyRefusal.notFound("no schedule nap (`lockr schedule list` shows them)")) {
            _ = try policy.removeSchedule("nap", at: now + .seconds(6))
        }
        #expect(throws: PolicyRefusal.self) {
            _ = try policy.addSchedule(schedule("x", "daily", "01:00", "02:00", block: ["sociall"]), at: now)
        }
        // Past the delay the schedule is gone.
        #expect(policy.admit("instagram", at: at("2026-06-06T22:35:00Z")).isAllowed)
    }

    @Test func schedulesAddedAtRunTimeSurviveARestart() throws {
        let now = at("2026-06-05T12:00:00Z")
        var policy = engine(settings(.time), schedules: [], now: now)
        _ = try policy.addSchedule(bedtime, at: now)
        let restarted = engine(settings(.time), state: policy.readout.snapshot(at: now), now: now)
        #expect(restarted.readout.status(at: at("2026-06-05T23:00:00Z")).schedules.map(\.schedule) == [bedtime])
    }
}

@Suite struct ProfileTests {
    let work = Profile(name: "work", block: ["social", "video"])
    let start = at("2026-06-01T10:00:00Z")

    /// What the policy answers for every app, as a fingerprint to compare.
    func answers(_ policy: inout PolicyEngine, at now: Instant) -> [Admission] {
        ["instagram", "tiktok", "youtube", "whatsapp"].map { policy.admit($0, at: now, metering: false) }
    }

    @Test func whatAPersonEnforcesHasTheAppsOfTheirProfilesOnNow() throws {
        var policy = engine(settings(.hourly), profiles: [work], now: start)
        #expect(policy.readout.enforcement(at: start).profileBlocks.isEmpty)
        _ = try policy.activateProfile("work", at: start)
        #expect(policy.readout.enforcement(at: start).profileBlocks == ["instagram", "tiktok", "youtube"])
        #expect(policy.readout.enforcement(at: start).protection == policy.readout.inForce)
    }

    @Test func aProfileChangesNothingUntilItIsOnAndOffRestoresExactly() throws {
        var policy = engine(settings(.hourly), profiles: [work], now: start)
        _ = try policy.unlock("tiktok", phrase: nil, at: start)
        let before = answers(&policy, at: start)
        // Editing an inactive profile, or making a new one, changes no answer.
        try policy.defineProfile(Profile(name: "work", block: ["guarded", "messaging"]), at: start)
        try policy.defineProfile(Profile(name: "homework", block: ["video"]), at: start)
        #expect(answers(&policy, at: start) == before)
        #expect(policy.readout.blockedApps(at: start) == ["instagram", "youtube"])

        let on = try policy.activateProfile("work", at: start)
        #expect(on.until == nil)
        let during = answers(&policy, at: start)
        #expect(during.allSatisfy { if case .block = $0 { true } else { false } })
        #expect(during[1].reason == "tiktok: profile work on (only the emergency opens it)")
        #expect(policy.readout.blockedApps(at: start) == ["instagram", "tiktok", "youtube", "whatsapp"])

        _ = try policy.deactivateProfile("work", at: start + .seconds(1))
        #expect(answers(&policy, at: start + .seconds(1)) == before)
        #expect(policy.readout.blockedApps(at: start + .seconds(1)) == ["instagram", "youtube"])
        #expect(throws: PolicyRefusal.nothingToDo("profile work is off")) {
            _ = try policy.deactivateProfile("work", at: start + .seconds(2))
        }
    }

    @Test func forEndsByItselfAndATimedProfileSurvivesARestart() throws {
        var policy = engine(settings(.time), profiles: [work], now: start)
        let on = try policy.activateProfile("work", for: .seconds(2 * 3600), at: start)
        #expect(on.until == start + .seconds(2 * 3600))
        #expect(
            policy.admit("tiktok", at: start).reason
                == "tiktok: profile work on until 12:00 (only the emergency opens it)")
        var restarted = engine(settings(.time), profiles: [work], state: policy.readout.snapshot(at: start), now: start)
        #expect(!restarted.admit("tiktok", at: start + .seconds(3600)).isAllowed)
        #expect(restarted.admit("tiktok", at: start + .seconds(2 * 3600)).isAllowed)
        restarted.tick(at: start + .seconds(2 * 3600 + 1))
        #expect(
            restarted.drainEvents().contains {
                $0.type == .profileOff && $0.detail == "profile work off: its time is up"
            })
        #expect(restarted.readout.status(at: start + .seconds(2 * 3600 + 1)).profiles.first?.active == nil)
        // A toggle switches it on and then off.
        #expect(try restarted.toggleProfile("work", at: start + .seconds(3 * 3600)) == true)
        #expect(try restarted.toggleProfile("work", at: start + .seconds(3 * 3600 + 1)) == false)
    }

    @Test func switchingOffOrNarrowingAnActiveProfileNeedsTheHouseholdsPin() throws {
        var policy = engine(settings(.time), profiles: [work], now: start)
        _ = try policy.apply(
            .setPin(PinRecord(salt: [1], hash: [2], rounds: 2, blockSize: 1, parallelism: 1)), at: start)
        _ = try policy.activateProfile("work", at: start)
        #expect(throws: PolicyRefusal.pinRequired) { _ = try policy.deactivateProfile("work", at: start) }
        #expect(throws: PolicyRefusal.pinRequired) {
            try policy.defineProfile(Profile(name: "work", block: ["social"]), at: start)
        }
        // Blocking more needs nothing.
        try policy.defineProfile(Profile(name: "work", block: ["social", "video", "messaging"]), at: start)
        _ = try policy.deactivateProfile("work", pin: .verified, at: start)
        #expect(throws: PolicyRefusal.nothingToDo("profile work is defined in the config file: remove it there")) {
            _ = try policy.removeProfile("work", at: start)
        }
    }

    @Test func theStrictestOfScheduleProfileAndModeWins() throws {
        let bedtime = schedule("bedtime", "daily", "22:00", "07:00", block: ["tiktok"])
        let evening = at("2026-06-01T21:55:00Z")
        var policy = engine(settings(.hourly), schedules: [bedtime], profiles: [work], now: evening)
        // The mode's window is open until 22:05, but bedtime starts at 22:00.
        _ = try policy.unlock("tiktok", phrase: nil, at: evening)
        #expect(policy.admit("tiktok", at: at("2026-06-01T21:59:00Z")).isAllowed)
        #expect(policy.admit("tiktok", at: at("2026-06-01T22:00:00Z")).reason?.contains("bedtime until 07:00") == true)
        // A profile on until switched off outlasts bedtime, so it is the reason given.
        _ = try policy.activateProfile("work", at: at("2026-06-01T22:01:00Z"))
        #expect(policy.admit("tiktok", at: at("2026-06-01T22:02:00Z")).reason?.contains("profile work on") == true)
        _ = try policy.deactivateProfile("work", at: at("2026-06-01T22:03:00Z"))
        #expect(policy.admit("tiktok", at: at("2026-06-01T22:04:00Z")).reason?.contains("bedtime") == true)
        // Bedtime over, the mode decides again: the hour's window was used.
        #expect(policy.admit("tiktok", at: at("2026-06-02T07:00:00Z")).reason?.contains("locked") == true)
    }
}
