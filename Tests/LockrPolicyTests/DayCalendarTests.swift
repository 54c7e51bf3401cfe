import CivilTime
import Foundation
import LockrPolicy
import Testing

@Suite struct DayCalendarTests {
    let berlin = try! ZoneDatabase().zone("Europe/Berlin")
    let newYork = try! ZoneDatabase().zone("America/New_York")

    @Test func springForwardDayInBerlinHas23Hours() {
        let calendar = DayCalendar(zone: berlin)
        let day = calendar.day(containing: at("2026-03-29T12:00:00+02:00"))
        #expect(day.key == "2026-03-29")
        #expect(day.start == at("2026-03-29T00:00:00+01:00"))
        #expect(day.end == at("2026-03-30T00:00:00+02:00"))
        #expect(day.end - day.start == .seconds(23 * 3600))
    }

    @Test func fallBackDayInBerlinHas25Hours() {
        let calendar = DayCalendar(zone: berlin)
        let day = calendar.day(containing: at("2026-10-25T02:30:00+01:00"))
        #expect(day.key == "2026-10-25")
        #expect(day.end - day.start == .seconds(25 * 3600))
    }

    @Test func dayStartAfterMidnightBelongsToThePreviousDate() {
        let calendar = DayCalendar(zone: newYork, dayStartMinutes: 4 * 60)
        // 03:59 local (EDT, the clocks sprang forward at 02:00) on March 8 is still March 7's day.
        let early = calendar.day(containing: at("2026-03-08T03:59:00-04:00"))
        #expect(early.key == "2026-03-07")
        #expect(early.end == at("2026-03-08T04:00:00-04:00"))
        // From 04:00 EST on March 7 to 04:00 EDT on March 8: 23 hours.
        #expect(early.end - early.start == .seconds(23 * 3600))
        let later = calendar.day(containing: at("2026-03-08T04:00:00-04:00"))
        #expect(later.key == "2026-03-08")
        #expect(later.end - later.start == .seconds(24 * 3600))
    }

    @Test func dayStartInsideTheSkippedHourMovesToTheHourAfter() {
        let calendar = DayCalendar(zone: berlin, dayStartMinutes: 2 * 60 + 30)
        let day = calendar.day(containing: at("2026-03-29T12:00:00+02:00"))
        #expect(day.start == at("2026-03-29T03:00:00+02:00"))
    }

    @Test func clockHoursFollowTheLocalClockAcrossDST() {
        let calendar = DayCalendar(zone: berlin)
        // 01:30 CET on the spring day: the next clock hour starts at 03:00 CEST, 30 real minutes later.
        let spring = calendar.clockHour(containing: at("2026-03-29T01:30:00+01:00"))
        #expect(spring.end == at("2026-03-29T03:00:00+02:00"))
        #expect(calendar.clockText(spring.end) == "03:00")
        // The repeated hour in autumn is two separate clock hours of 60 minutes each.
        let first = calendar.clockHour(containing: at("2026-10-25T02:30:00+02:00"))
        let second = calendar.clockHour(containing: at("2026-10-25T02:30:00+01:00"))
        #expect(first.end - first.start == .seconds(3600))
        #expect(second.start == first.end)
        #expect(calendar.clockText(second.start) == "02:00")
    }

    @Test func halfHourTimeZonesHaveHoursOnTheHalfHourOfUTC() {
        let calendar = DayCalendar(zone: try! ZoneDatabase().zone("Asia/Kolkata"))
        let hour = calendar.clockHour(containing: at("2026-06-01T10:10:00Z"))
        #expect(hour.start == at("2026-06-01T09:30:00Z"))
    }
}

/// One rounding for each kind of span, wherever it is shown: waits up, use down.
@Suite struct SpokenDurationTests {
    @Test func useIsRoundedDownAndWaitsUp() {
        let table: [(Duration, use: String, wait: String)] = [
            (.seconds(0), "0 s", "0 s"), (.milliseconds(59_500), "59 s", "1 min"), (.seconds(80), "1 min", "2 min"),
            (.seconds(3600), "1 h", "1 h"), (.seconds(3661), "1 h 1 min", "1 h 2 min"), (.seconds(-5), "0 s", "0 s"),
        ]
        for (span, use, wait) in table {
            #expect(span.spokenAsUse == use, "\(span)")
            #expect(span.spoken == wait, "\(span)")
        }
    }
}
