/// A POSIX `TZ` rule with the extensions of RFC 8536 (rule times from -167 to 167 hours),
/// `CET-1CEST,M3.5.0,M10.5.0/3`: what a TZif file's footer gives for the times after its last
/// transition, or a zone of its own on a machine without the database.
public struct PosixZoneRule: Hashable, Sendable {
    /// The rule as written.
    public let text: String
    /// Seconds east of UTC in standard time.
    public let standardOffset: Int32
    /// Daylight saving time, if the zone has it.
    public let daylight: Daylight?

    /// When daylight saving time starts and ends, and its offset.
    public struct Daylight: Hashable, Sendable {
        /// Seconds east of UTC while it is in effect.
        public let offset: Int32
        public let start: Change
        public let end: Change
    }

    /// A day of the year and the local time of day at which a change happens.
    public struct Change: Hashable, Sendable {
        public let day: Day
        /// Seconds after the day's midnight on the clock in effect before the change; -167 to 167 h.
        public let seconds: Int32
    }

    /// How a rule names its day.
    public enum Day: Hashable, Sendable {
        /// `Jn`: the nth day, 1-365, never counting 29 February.
        case julianNoLeap(Int)
        /// `n`: the day after n days, 0-365, counting 29 February.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `weekday` (0 Sunday) of week `week` (1-5, 5 the last) of `month`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    /// Parses a `TZ` string; nil if it is not one.
    public init?(_ text: String) {
        self.text = text
        var scanner = RuleScanner(Array(text.utf8))
        guard scanner.name(), let standard = scanner.offset(maxHours: 24) else { return nil }
        standardOffset = -standard
        if scanner.atEnd {
            daylight = nil
            return
        }
        guard scanner.name() else { return nil }
        var daylightOffset = standardOffset + 3_600
        if !scanner.peek(","), !scanner.atEnd {
            guard let offset = scanner.offset(maxHours: 24) else { return nil }
            daylightOffset = -offset
        }
        // A zone with daylight saving time and no rule for it is not what a TZif footer holds.
        guard scanner.take(","), let start = scanner.change(), scanner.take(","), let end = scanner.change(),
            scanner.atEnd
        else { return nil }
        daylight = Daylight(offset: daylightOffset, start: start, end: end)
    }

    /// Seconds east of UTC at `seconds` after the epoch (UTC).
    public func offset(at seconds: Int64) -> Int32 {
        guard let daylight else { return standardOffset }
        let year = CivilDateTime(secondsSinceEpoch: seconds + Int64(standardOffset)).date.year
        return isDaylight(seconds, in: year, daylight) ? daylight.offset : standardOffset
    }

    /// The first instant after `seconds` at which the offset changes; nil if it never does.
    public func nextChange(after seconds: Int64) -> Int64? {
        guard let daylight, daylight.offset != standardOffset else { return nil }
        let year = CivilDateTime(secondsSinceEpoch: seconds + Int64(standardOffset)).date.year
        var candidates: [Int64] = []
        for candidateYear in (year - 1)...(year + 2) {
            let (start, end) = changes(in: candidateYear, daylight)
            candidates += [start, end]
        }
        return candidates.sorted().first { $0 > seconds && offset(at: $0 - 1) != offset(at: $0) }
    }

    private func isDaylight(_ seconds: Int64, in year: Int, _ daylight: Daylight) -> Bool {
        let (start, end) = changes(in: year, daylight)
        return start < end ? (start <= seconds && seconds < end) : !(end <= seconds && seconds < start)
    }

    /// The instants (UTC) daylight saving time starts and ends in `year`.
    private func changes(in year: Int, _ daylight: Daylight) -> (start: Int64, end: Int64) {
        let start = localSeconds(daylight.start, year) - Int64(standardOffset)
        let end = localSeconds(daylight.end, year) - Int64(daylight.offset)
        return (start, end)
    }

    private func localSeconds(_ change: Change, _ year: Int) -> Int64 {
        let firstOfYear = CivilDate.days(year: year, month: 1, day: 1)
        let day: Int
        switch change.day {
        case .julianNoLeap(let n):
            day = firstOfYear + n - 1 + (CivilDate.isLeap(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            day = firstOfYear + n
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate.days(year: year, month: month, day: 1)
            let firstWeekday = (CivilDate.weekday(daysSinceEpoch: first) + 1) % 7  // 0 Sunday
            var dayOfMonth = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            let length = CivilDate.daysIn(month: month, of: year)
            while dayOfMonth > length { dayOfMonth -= 7 }
            day = first + dayOfMonth - 1
        }
        return Int64(day) * 86_400 + Int64(change.seconds)
    }
}

/// Reads the parts of a `TZ` string.
private struct RuleScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    func peek(_ character: Character) -> Bool { !atEnd && bytes[index] == character.asciiValue! }

    mutating func take(_ character: Character) -> Bool {
        guard peek(character) else { return false }
        index += 1
        return true
    }

    /// A zone abbreviation: three or more letters, or `<...>` of letters, digits, + and -.
    mutating func name() -> Bool {
        let start = index
        if take("<") {
            while !atEnd, bytes[index] != UInt8(ascii: ">") {
                let byte = bytes[index]
                guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") else {
                    return false
                }
                index += 1
            }
            guard index - start - 1 >= 3, take(">") else { return false }
            return true
        }
        while !atEnd, isLetter(bytes[index]) { index += 1 }
        return index - start >= 3
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, west of UTC positive as POSIX writes it.
    mutating func offset(maxHours: Int) -> Int32? {
        var sign: Int32 = 1
        if take("-") { sign = -1 } else { _ = take("+") }
        guard let hours = number(maxDigits: 3), hours <= maxHours else { return nil }
        var seconds = hours * 3_600
        if take(":") {
            guard let minutes = number(maxDigits: 2), minutes < 60 else { return nil }
            seconds += minutes * 60
            if take(":") {
                guard let rest = number(maxDigits: 2), rest < 60 else { return nil }
                seconds += rest
            }
        }
        return sign * Int32(seconds)
    }

    /// `date[/time]`.
    mutating func change() -> PosixZoneRule.Change? {
        let day: PosixZoneRule.Day
        if take("J") {
            guard let n = number(maxDigits: 3), (1...365).contains(n) else { return nil }
            day = .julianNoLeap(n)
        } else if take("M") {
            guard let month = number(maxDigits: 2), (1...12).contains(month), take("."),
                let week = number(maxDigits: 1), (1...5).contains(week), take("."),
                let weekday = number(maxDigits: 1), weekday <= 6
            else { return nil }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let n = number(maxDigits: 3), n <= 365 else { return nil }
            day = .zeroBased(n)
        }
        var seconds: Int32 = 7_200
        if take("/") {
            guard let time = offset(maxHours: 167) else { return nil }
            seconds = time
        }
        return PosixZoneRule.Change(day: day, seconds: seconds)
    }

    private mutating func number(maxDigits: Int) -> Int? {
        var value = 0
        var digits = 0
        while !atEnd, isDigit(bytes[index]), digits < maxDigits {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        return digits == 0 ? nil : value
    }

    private func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
