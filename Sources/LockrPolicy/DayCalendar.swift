import CivilTime

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

/// A local calendar date and its day of the week (0 is Monday).
struct LocalDay: Equatable {
    let date: CivilDate
    var weekday: Int { date.weekday }
}

/// Days and clock hours in a time zone, with a day that may start at another time than midnight.
///
/// Days are 23 or 25 hours long across DST changes and clock hours follow the local clock: a wall
/// time the clocks skip is the first instant after the gap, one they repeat its first occurrence.
/// The zone's rules come from the system's time zone database (`ZoneRules`), not from ICU.
public struct DayCalendar: Sendable, Equatable, Codable {
    public let zone: ZoneRules
    /// Minutes after local midnight at which a new day (budget, counters) begins.
    public let dayStartMinutes: Int

    public init(zone: ZoneRules, dayStartMinutes: Int = 0) {
        precondition((0..<1440).contains(dayStartMinutes), "day start must be within a day")
        self.zone = zone
        self.dayStartMinutes = dayStartMinutes
    }

    private enum CodingKeys: String, CodingKey { case timeZone, dayStartMinutes }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let identifier = try container.decode(String.self, forKey: .timeZone)
        let zone: ZoneRules
        do {
            zone = try ZoneDatabase().zone(identifier)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .timeZone, in: container, debugDescription: "\(error)")
        }
        let minutes = try container.decode(Int.self, forKey: .dayStartMinutes)
        guard (0..<1440).contains(minutes) else {
            throw DecodingError.dataCorruptedError(
                forKey: .dayStartMinutes, in: container, debugDescription: "not in a day")
        }
        self.init(zone: zone, dayStartMinutes: minutes)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zone.identifier, forKey: .timeZone)
        try container.encode(dayStartMinutes, forKey: .dayStartMinutes)
    }

    /// The policy day that contains `instant`.
    public func day(containing instant: Instant) -> PolicyDay {
        var startDay = wallClock(instant).date
        var start = dayStart(on: startDay)
        if start > instant {
            startDay = CivilDate(daysSinceEpoch: startDay.daysSinceEpoch - 1)
            start = dayStart(on: startDay)
        }
        var next = dayStart(on: CivilDate(daysSinceEpoch: startDay.daysSinceEpoch + 1))
        if next <= instant {
            // The clocks went back across midnight (St. John's before 2011): the next date's day began
            // at its first midnight, though the wall clock reads the date before again.
            startDay = CivilDate(daysSinceEpoch: startDay.daysSinceEpoch + 1)
            start = next
            next = dayStart(on: CivilDate(daysSinceEpoch: startDay.daysSinceEpoch + 1))
        }
        return PolicyDay(key: startDay.description, start: start, end: next)
    }

    /// Start and end of the local clock hour that contains `instant`.
    public func clockHour(containing instant: Instant) -> (start: Instant, end: Instant) {
        let seconds = instant.wholeSeconds
        let local = seconds + Int64(zone.offset(at: seconds))
        let intoHour = (local % 3_600 + 3_600) % 3_600
        let start = Instant(milliseconds: (seconds - intoHour) * 1_000)
        return (start, start + .seconds(3_600))
    }

    /// Local date and time, "2026-11-21 15:00".
    public func dateTimeText(_ instant: Instant) -> String {
        wallClock(instant).text()
    }

    /// Local wall-clock time, "15:00".
    public func clockText(_ instant: Instant) -> String {
        wallClock(instant).clockText()
    }

    /// Minutes after local midnight on the wall clock at `instant` (0-1439).
    public func wallMinute(of instant: Instant) -> Int { wallClock(instant).secondOfDay / 60 }

    /// The local date that contains `instant`.
    func localDay(containing instant: Instant) -> LocalDay { LocalDay(date: wallClock(instant).date) }

    func localDay(before day: LocalDay) -> LocalDay {
        LocalDay(date: CivilDate(daysSinceEpoch: day.date.daysSinceEpoch - 1))
    }

    func localDay(after day: LocalDay) -> LocalDay {
        LocalDay(date: CivilDate(daysSinceEpoch: day.date.daysSinceEpoch + 1))
    }

    /// The first instant of `day` whose wall time is `minutes` after midnight or later: a time the
    /// clocks skip is the first minute after the gap, one they repeat is its first occurrence.
    /// 1440 is the next day's midnight.
    func instant(atMinute minutes: Int, of day: LocalDay) -> Instant {
        let wall = Int64(day.date.daysSinceEpoch) * 86_400 + Int64(minutes) * 60
        return Instant(milliseconds: zone.firstInstant(atWallClock: wall) * 1_000)
    }

    private func dayStart(on date: CivilDate) -> Instant {
        instant(atMinute: dayStartMinutes, of: LocalDay(date: date))
    }

    private func wallClock(_ instant: Instant) -> CivilDateTime { zone.wallClock(at: instant.wholeSeconds) }
}
