import CivilTime
import Foundation
import Testing

@testable import LockrPolicy

/// `DayCalendar` reads the system's TZif files itself; Foundation's calendar with ICU's time zones
/// is the oracle it must agree with, across the DST changes of zones that have odd ones: half-hour
/// DST (Lord Howe), changes at midnight (Havana, Santiago), 45-minute offsets (Chatham,
/// Kathmandu), negative DST (Dublin), +2 h DST (Troll), a skipped day (Apia, 2011).
@Suite struct DayCalendarOracleTests {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Havana", "America/Santiago",
        "Asia/Kolkata", "Asia/Kathmandu", "Pacific/Chatham", "Europe/Dublin", "Antarctica/Troll", "Pacific/Apia",
        "America/St_Johns", "Australia/Sydney", "Europe/London", "UTC",
    ]

    /// Foundation's answers, as `DayCalendar` gave them before it read the zone files itself. In a
    /// gap of the clocks Foundation's `.nextTime` is not what lockr promises (at Troll's two-hour
    /// gap and Lord Howe's half-hour one it gives the next day's time): there the test checks the
    /// promise itself, the first instant after the gap, and that the days tile.
    struct Oracle {
        let calendar: Calendar
        let dayStartMinutes: Int

        init(_ identifier: String, dayStartMinutes: Int) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: identifier)!
            self.calendar = calendar
            self.dayStartMinutes = dayStartMinutes
        }

        func day(containing date: Date) -> (key: String, start: Date, end: Date) {
            let localDay = calendar.startOfDay(for: date)
            var start = dayStart(localDay)
            if start > date { start = dayStart(calendar.date(byAdding: .day, value: -1, to: localDay)!) }
            let startDay = calendar.startOfDay(for: start)
            // The next date's own midnight: a day whose midnight the clocks skip starts at 01:00,
            // and a day added to that is 01:00 too (the old DayCalendar got that wrong).
            let next = dayStart(calendar.startOfDay(for: calendar.date(byAdding: .day, value: 1, to: startDay)!))
            let parts = calendar.dateComponents([.year, .month, .day], from: startDay)
            return (String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!), start, next)
        }

        func dayStart(_ midnight: Date) -> Date { at(minute: dayStartMinutes, of: midnight) }

        func at(minute: Int, of midnight: Date) -> Date {
            guard minute > 0 else { return midnight }
            return calendar.date(
                bySettingHour: minute / 60, minute: minute % 60, second: 0, of: midnight, matchingPolicy: .nextTime,
                repeatedTimePolicy: .first, direction: .forward)!
        }

        func text(_ date: Date) -> String {
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
            return String(
                format: "%04d-%02d-%02d %02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!)
        }
    }

    /// Instants from 2010 to 2035: every 5 days 1 h 37 min, and around each of the zone's changes.
    static func instants(_ zone: ZoneRules) -> [Int64] {
        let from: Int64 = 1_262_304_000
        let to: Int64 = 2_051_222_400
        var instants = Array(stride(from: from, to: to, by: 5 * 86_400 + 3_600 + 37 * 60))
        var cursor = from
        while let change = zone.nextChange(after: cursor), change < to {
            instants += [-3_601, -1_800, -1, 0, 1, 1_799, 3_600].map { change + $0 }
            cursor = change
        }
        return instants
    }

    @Test(arguments: zones)
    func offsetsAndWallClocksAreFoundations(_ identifier: String) throws {
        let zone = try ZoneDatabase().zone(identifier)
        let oracle = Oracle(identifier, dayStartMinutes: 0)
        var changes = 0
        var cursor: Int64 = 1_262_304_000
        while let change = zone.nextChange(after: cursor), change < 2_051_222_400 {
            changes += 1
            cursor = change
        }
        #expect(
            ["UTC", "Asia/Kolkata", "Asia/Kathmandu"].contains(identifier) || changes > 0, "\(identifier) has changes")
        for seconds in Self.instants(zone) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let expected = oracle.calendar.timeZone.secondsFromGMT(for: date)
            guard Int(zone.offset(at: seconds)) == expected else {
                Issue.record("\(identifier) at \(date): offset \(zone.offset(at: seconds)), Foundation \(expected)")
                return
            }
            let calendar = DayCalendar(zone: zone)
            let instant = Instant(milliseconds: seconds * 1_000)
            guard calendar.dateTimeText(instant) == oracle.text(date) else {
                Issue.record(
                    "\(identifier) at \(date): \(calendar.dateTimeText(instant)), Foundation \(oracle.text(date))")
                return
            }
        }
    }

    @Test(arguments: zones)
    func daysHoursAndWallTimesAreFoundations(_ identifier: String) throws {
        let zone = try ZoneDatabase().zone(identifier)
        for dayStart in [0, 150] {
            let calendar = DayCalendar(zone: zone, dayStartMinutes: dayStart)
            let oracle = Oracle(identifier, dayStartMinutes: dayStart)
            for seconds in Self.instants(zone) {
                let date = Date(timeIntervalSince1970: TimeInterval(seconds) + 0.25)
                let instant = Instant(date)
                let day = calendar.day(containing: instant)
                // Days follow one another without gaps or overlaps, whatever the clocks do.
                guard day.start <= instant, instant < day.end, calendar.day(containing: day.end).start == day.end,
                    calendar.day(containing: day.start - .milliseconds(1)).end == day.start
                else {
                    Issue.record("\(identifier) day start \(dayStart) at \(date): \(day) does not tile")
                    return
                }
                // Where Foundation's day holds the instant and runs from the day start asked for on
                // one date to the next date's (neither in a gap of the clocks), it is lockr's. (The old
                // DayCalendar's day could miss the instant beside a gap or a change at midnight.)
                let expected = oracle.day(containing: date)
                let reads = { (start: Date, date: CivilDate) in
                    zone.wallClock(at: Int64(start.timeIntervalSince1970))
                        == CivilDateTime(
                            secondsSinceEpoch: Int64(date.daysSinceEpoch) * 86_400 + Int64(dayStart) * 60)
                }
                let startDate = zone.wallClock(at: Int64(expected.start.timeIntervalSince1970)).date
                guard
                    !(expected.start <= date && date < expected.end) || !reads(expected.start, startDate)
                        || !reads(expected.end, CivilDate(daysSinceEpoch: startDate.daysSinceEpoch + 1))
                        || (day.key == expected.key && day.start == Instant(expected.start)
                            && day.end == Instant(expected.end))
                else {
                    Issue.record("\(identifier) day start \(dayStart) at \(date): \(day), Foundation \(expected)")
                    return
                }
                let hour = calendar.clockHour(containing: instant)
                let expectedHour = oracle.calendar.dateInterval(of: .hour, for: date)!
                guard hour.start == Instant(expectedHour.start), hour.end == Instant(expectedHour.end) else {
                    Issue.record("\(identifier) at \(date): hour \(hour), Foundation \(expectedHour)")
                    return
                }
                guard dayStart == 0 else { continue }
                let localDay = calendar.localDay(containing: instant)
                let midnight = oracle.calendar.startOfDay(for: date)
                guard localDay.weekday == (oracle.calendar.component(.weekday, from: midnight) + 5) % 7 else {
                    Issue.record("\(identifier) at \(date): weekday \(localDay.weekday)")
                    return
                }
                for minute in [0, 1, 120, 150, 181, 1_439, 1_440] {
                    let wall = calendar.instant(atMinute: minute, of: localDay)
                    let expectedWall =
                        minute == 1_440
                        ? oracle.calendar.startOfDay(for: oracle.calendar.date(byAdding: .day, value: 1, to: midnight)!)
                        : oracle.at(minute: minute, of: midnight)
                    let asked = Int64(localDay.date.daysSinceEpoch) * 86_400 + Int64(minute) * 60
                    let foundationReads = zone.wallClock(at: Int64(expectedWall.timeIntervalSince1970))
                    let skipped =
                        Int64(foundationReads.date.daysSinceEpoch) * 86_400 + Int64(foundationReads.secondOfDay)
                        != asked
                    let seconds = wall.wholeSeconds
                    let reads = { (at: Int64) in Int64(at) + Int64(zone.offset(at: at)) }
                    // Where Foundation's answer is not the time asked for, it is in a gap of the clocks
                    // (or on the wrong day, as Foundation gives St. John's 23:59 after its 00:01 change):
                    // lockr's is that time or the first instant after the gap.
                    let right =
                        skipped
                        ? reads(seconds) == asked || (reads(seconds - 1) < asked && reads(seconds) > asked)
                        : wall == Instant(expectedWall)
                    guard right else {
                        Issue.record(
                            "\(identifier) on \(localDay.date) at minute \(minute): \(wall), Foundation \(expectedWall)"
                        )
                        return
                    }
                }
            }
        }
    }
}
