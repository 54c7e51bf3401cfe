import CivilTime
import Foundation
import Testing

@testable import LockrPolicy

/// Five days of a recorded trace in Berlin (days start at 04:00), across the spring DST change:
/// what each day's record holds for statistics (use, opens, blocked queries, budgets, allowances)
/// and the streaks they make.
@Suite struct StatsTraceTests {
    let berlin = DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin"), dayStartMinutes: 4 * 60)

    /// Scrolling: a lookup every 5 s for `minutes`.
    func scroll(_ policy: inout PolicyEngine, _ app: String, from start: String, minutes: Int) {
        policy.query(app, from: at(start), every: .seconds(5), count: minutes * 12)
    }

    func closedDays() throws -> [DayRecord] {
        var policy = engine(
            settings(.time, calendar: berlin) { $0.time.budget = .seconds(1800) }, now: at("2026-03-27T08:00:00+01:00"))
        // Friday: two opens of tiktok (18:00 and 20:00), one of instagram; within budget.
        scroll(&policy, "tiktok", from: "2026-03-27T18:00:00+01:00", minutes: 10)
        scroll(&policy, "tiktok", from: "2026-03-27T20:00:00+01:00", minutes: 5)
        scroll(&policy, "instagram", from: "2026-03-27T20:30:00+01:00", minutes: 3)
        // Saturday, whose day has 23 hours (it ends at 04:00 on Sunday, after the clocks went
        // forward): the budget runs out in 40 minutes of tiktok, the last 10 of them blocked; a snooze.
        scroll(&policy, "tiktok", from: "2026-03-28T15:00:00+01:00", minutes: 40)
        _ = try policy.snooze(nil, at: at("2026-03-28T15:41:00+01:00"))
        // Sunday: two bursts 3 minutes apart are one open.
        scroll(&policy, "tiktok", from: "2026-03-29T10:00:00+02:00", minutes: 5)
        scroll(&policy, "tiktok", from: "2026-03-29T10:08:00+02:00", minutes: 2)
        // Monday: an emergency.
        let hold = try policy.beginEmergency(at: at("2026-03-30T12:00:00+02:00"))
        _ = try policy.completeEmergency(hold: hold, at: at("2026-03-30T12:00:09+02:00"))
        // Tuesday: five quiet minutes, then Wednesday's first query closes the day.
        scroll(&policy, "youtube", from: "2026-03-31T19:00:00+02:00", minutes: 5)
        _ = policy.admit("youtube", at: at("2026-04-01T09:00:00+02:00"))
        return policy.drainClosedDays()
    }

    @Test func eachDayRecordsWhatStatisticsShow() throws {
        let days = try closedDays()
        #expect(days.map(\.day.key) == ["2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31"])
        // Saturday's day runs to Sunday 04:00, across the change at 02:00: 23 hours.
        #expect(days[1].day.end - days[1].day.start == .seconds(23 * 3600))
        #expect(days[2].day.end - days[2].day.start == .seconds(24 * 3600))
        #expect(zip(days, days.dropFirst()).allSatisfy { $0.day.end == $1.day.start })

        #expect(days[0].sessions == ["tiktok": 2, "instagram": 1])
        let friday = days[0].used["tiktok"] ?? .zero
        #expect(friday >= .seconds(14 * 60) && friday <= .seconds(16 * 60), "\(friday)")
        #expect(days[0].blocked.isEmpty && days[0].heldLimits)
        #expect(days.allSatisfy { $0.budgets == ["*": .seconds(1800)] })

        #expect(days[1].sessions == ["tiktok": 1])
        #expect(days[1].charged["*"] == .seconds(1800))
        #expect((days[1].blocked["tiktok"] ?? 0) >= 100, "\(days[1].blocked)")
        #expect(days[1].snoozes == 1 && !days[1].heldLimits)

        #expect(days[2].sessions == ["tiktok": 1] && days[2].heldLimits)
        #expect(days[3].emergencies == 1 && !days[3].heldLimits && days[3].sessions.isEmpty)
        #expect(days[4].sessions == ["youtube": 1] && days[4].heldLimits)
    }

    @Test func streaksCountDaysInARowAndAMissingDayBreaksThem() throws {
        let days = try closedDays()
        let streaks = Streaks(days: days)
        #expect(streaks.heldLimits == Run(current: 1, best: 1))
        #expect(streaks.withoutEmergency == Run(current: 1, best: 3))
        // Without Sunday's record, Saturday and Monday do not follow one another.
        let gap = Streaks(days: days.filter { $0.day.key != "2026-03-29" && $0.day.key != "2026-03-30" })
        #expect(gap.withoutEmergency == Run(current: 1, best: 2))
        #expect(Streaks(days: []).heldLimits == Run() && Streaks(days: []).withoutEmergency == Run())
    }
}
