import Foundation

/// One policy day: from one day start to the next, in the configured time zone.
public struct PolicyDay: Hashable, Sendable {
    /// The local date the day starts on, "2026-03-29".
    public let key: String
    public let start: Instant
    public let end: Instant

    public init(key: String, start: Instant, end: Instant) {
        self.key = key
        self.start = start
        self.end = end
    }
}

/// A local calendar date: its first instant and its day of the week (0 is Monday).
struct LocalDay: Equatable {
    let midnight: Date
    let weekday: Int
}

/// Days and clock hours in a time zone, with a day that may start at another time than midnight.
///
/// All arithmetic goes through Foundation's calendar, so days are 23 or 25 hours long across DST
/// changes and clock hours follow the local clock (a day start that falls in a skipped hour moves to
/// the first instant after it).
public struct DayCalendar: Sendable, Equatable, Codable {
    public let timeZone: TimeZone
    /// Minutes after local midnight at which a new day (budget, counters) begins.
    public let dayStartMinutes: Int
    private let calendar: Calendar

    public init(timeZone: TimeZone, dayStartMinutes: Int = 0) {
        precondition((0..<1440).contains(dayStartMinutes), "day start must be within a day")
        self.timeZone = timeZone
        self.dayStartMinutes = dayStartMinutes
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    private enum CodingKeys: String, CodingKey { case timeZone, dayStartMinutes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let identifier = try container.decode(String.self, forKey: .timeZone)
        guard let zone = TimeZone(identifier: identifier) else {
            throw DecodingError.dataCorruptedError(forKey: .timeZone, in: container, debugDescription: "unknown time zone")
        }
        let minutes = try container.decode(Int.self, forKey: .dayStartMinutes)
        guard (0..<1440).contains(minutes) else {
            throw DecodingError.dataCorruptedError(forKey: .dayStartMinutes, in: container, debugDescription: "not in a day")
        }
        self.init(timeZone: zone, dayStartMinutes: minutes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(timeZone.identifier, forKey: .timeZone)
        try container.encode(dayStartMinutes, forKey: .dayStartMinutes)
    }

    public static func == (lhs: DayCalendar, rhs: DayCalendar) -> Bool {
        lhs.timeZone.identifier == rhs.timeZone.identifier && lhs.dayStartMinutes == rhs.dayStartMinutes
    }

    /// The policy day that contains `instant`.
    public func day(containing instant: Instant) -> PolicyDay {
        let date = instant.date
        let localDay = calendar.startOfDay(for: date)
        var start = dayStart(onLocalDay: localDay)
        if start > date {
            start = dayStart(onLocalDay: calendar.date(byAdding: .day, value: -1, to: localDay)!)
        }
        let startDay = calendar.startOfDay(for: start)
        let next = dayStart(onLocalDay: calendar.date(byAdding: .day, value: 1, to: startDay)!)
        let parts = calendar.dateComponents([.year, .month, .day], from: startDay)
        let key = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        return PolicyDay(key: key, start: Instant(start), end: Instant(next))
    }

    /// Start and end of the local clock hour that contains `instant`.
    public func clockHour(containing instant: Instant) -> (start: Instant, end: Instant) {
        let interval = calendar.dateInterval(of: .hour, for: instant.date)!
        return (Instant(interval.start), Instant(interval.end))
    }

    /// Local date and time, "2026-11-21 15:00".
    public func dateTimeText(_ instant: Instant) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: instant.date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!)
    }

    /// Local wall-clock time, "15:00".
    public func clockText(_ instant: Instant) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: instant.date)
        return String(format: "%02d:%02d", parts.hour!, parts.minute!)
    }

    /// Minutes after local midnight on the wall clock at `instant` (0-1439).
    public func wallMinute(of instant: Instant) -> Int {
        let parts = calendar.dateComponents([.hour, .minute], from: instant.date)
        return parts.hour! * 60 + parts.minute!
    }

    /// The local date that contains `instant`.
    func localDay(containing instant: Instant) -> LocalDay { localDay(calendar.startOfDay(for: instant.date)) }

    func localDay(before day: LocalDay) -> LocalDay { localDay(calendar.date(byAdding: .day, value: -1, to: day.midnight)!) }

    func localDay(after day: LocalDay) -> LocalDay { localDay(calendar.date(byAdding: .day, value: 1, to: day.midnight)!) }

    private func localDay(_ midnight: Date) -> LocalDay {
        // Foundation counts Sunday as 1; lockr counts Monday as 0.
        LocalDay(midnight: midnight, weekday: (calendar.component(.weekday, from: midnight) + 5) % 7)
    }

    /// The first instant of `day` whose wall time is `minutes` after midnight or later: a time the
    /// clocks skip is the first minute after the gap, one they repeat is its first occurrence.
    /// 1440 is the next day's midnight.
    func instant(atMinute minutes: Int, of day: LocalDay) -> Instant {
        guard minutes < 1440 else { return Instant(localDay(after: day).midnight) }
        guard minutes > 0 else { return Instant(day.midnight) }
        return Instant(
            calendar.date(
                bySettingHour: minutes / 60, minute: minutes % 60, second: 0, of: day.midnight,
                matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)!)
    }

    private func dayStart(onLocalDay localMidnight: Date) -> Date {
        let hour = dayStartMinutes / 60
        let minute = dayStartMinutes % 60
        if hour == 0, minute == 0 { return localMidnight }
        return calendar.date(
            bySettingHour: hour, minute: minute, second: 0, of: localMidnight, matchingPolicy: .nextTime)!
    }
}
