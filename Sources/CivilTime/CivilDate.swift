import PlainText

/// A date on the proleptic Gregorian calendar, counted in days from 1970-01-01.
///
/// The conversions are Howard Hinnant's `days_from_civil` and `civil_from_days`
/// (https://howardhinnant.github.io/date_algorithms.html): exact for every year an `Int` holds.
public struct CivilDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let year: Int
    /// 1-12.
    public let month: Int
    /// 1-31.
    public let day: Int

    /// The date `year`-`month`-`day`; a day past the month's end rolls into the next month.
    public init(year: Int, month: Int, day: Int) {
        self.init(daysSinceEpoch: Self.days(year: year, month: month, day: day))
    }

    /// The date `days` after 1970-01-01 (before it when negative).
    public init(daysSinceEpoch days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date.
    public var daysSinceEpoch: Int { Self.days(year: year, month: month, day: day) }

    /// The day of the week, 0 for Monday to 6 for Sunday.
    public var weekday: Int { Self.weekday(daysSinceEpoch: daysSinceEpoch) }

    /// The day of the week of the date `days` after 1970-01-01 (a Thursday), 0 for Monday.
    public static func weekday(daysSinceEpoch days: Int) -> Int { ((days % 7) + 7 + 3) % 7 }

    /// "2026-03-29".
    public var description: String {
        "\(PlainText.padded(year, to: 4))-\(PlainText.padded(month, to: 2))-\(PlainText.padded(day, to: 2))"
    }

    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    /// Whether `year` has a 29 February.
    public static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// Days in `month` (1-12) of `year`.
    public static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func days(year: Int, month: Int, day: Int) -> Int {
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// A wall-clock reading: a civil date and the seconds since its midnight.
public struct CivilDateTime: Hashable, Sendable {
    public let date: CivilDate
    /// 0-86399.
    public let secondOfDay: Int

    /// The reading `seconds` after 1970-01-01 00:00 on the same clock.
    public init(secondsSinceEpoch seconds: Int64) {
        let (days, second) = Self.floorDivide(seconds, 86_400)
        date = CivilDate(daysSinceEpoch: Int(days))
        secondOfDay = Int(second)
    }

    public var hour: Int { secondOfDay / 3_600 }
    public var minute: Int { secondOfDay / 60 % 60 }
    public var second: Int { secondOfDay % 60 }

    /// The clock's time, "15:00", or with `seconds` "15:00:07".
    public func clockText(seconds: Bool = false) -> String {
        let minutes = PlainText.padded(hour, to: 2) + ":" + PlainText.padded(minute, to: 2)
        return seconds ? minutes + ":" + PlainText.padded(second, to: 2) : minutes
    }

    /// Date and time, "2026-11-21 15:00", or with `seconds` "2026-11-21 15:00:07".
    public func text(seconds: Bool = false) -> String { "\(date) \(clockText(seconds: seconds))" }

    /// Quotient rounded down and a remainder that is never negative.
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }
}
