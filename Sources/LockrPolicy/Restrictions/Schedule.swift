import Foundation
import PlainText

/// Days of the week.
public struct Weekdays: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Monday first, as the names read.
    static let names = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    public static let everyDay = Weekdays(rawValue: 0x7F)

    /// The day `index` places after Monday (0 = Monday).
    static func day(_ index: Int) -> Weekdays { Weekdays(rawValue: 1 << UInt8(index)) }

    /// Reads "mon-fri", "sat,sun", "mon,wed-fri", "daily", "weekdays" or "weekends".
    public init?(_ text: String) {
        var days: Weekdays = []
        for part in text.lowercased().split(separator: ",").map(\.trimmed) {
            switch part {
            case "daily", "every-day", "all": days.formUnion(.everyDay)
            case "weekdays": days.formUnion(Weekdays(rawValue: 0x1F))
            case "weekends", "weekend": days.formUnion(Weekdays(rawValue: 0x60))
            default:
                let ends = part.split(separator: "-", omittingEmptySubsequences: false).map {
                    Self.index(of: String($0))
                }
                guard ends.count <= 2, let first = ends.first ?? nil, let last = ends.last ?? nil else { return nil }
                // A range may wrap past Sunday: "fri-mon".
                var index = first
                while true {
                    days.insert(Self.day(index))
                    if index == last { break }
                    index = (index + 1) % 7
                }
            }
        }
        guard !days.isEmpty else { return nil }
        self = days
    }

    /// Monday's index 0 for "mon", "monday", "tues", ...: three letters at least of a day's name.
    private static func index(of name: String) -> Int? {
        let fullNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
        return name.count >= 3 ? fullNames.firstIndex { $0.hasPrefix(name) } : nil
    }

    /// "mon-fri", "sat,sun", "daily".
    public var description: String {
        if self == .everyDay { return "daily" }
        var parts: [String] = []
        var index = 0
        while index < 7 {
            guard contains(Self.day(index)) else {
                index += 1
                continue
            }
            var end = index
            while end + 1 < 7, contains(Self.day(end + 1)) { end += 1 }
            parts.append(end - index >= 2 ? "\(Self.names[index])-\(Self.names[end])" : Self.names[index])
            if end - index == 1 { parts.append(Self.names[end]) }
            index = end + 1
        }
        return parts.joined(separator: ",")
    }
}

/// A weekly range in local wall time that blocks chosen apps whatever the mode says; only the
/// emergency opens them. A range whose end is not after its start runs past midnight and belongs
/// to the day it starts on (`mon-fri 22:00-07:00` ends on Saturday morning).
///
/// On days the clock changes, a time that does not exist (02:30 on the night clocks go forward)
/// means the first minute after the gap (03:00), and a time that happens twice (02:30 on the night
/// they go back) means its first occurrence: a range never starts twice, nor ends and starts again.
public struct Schedule: Sendable, Equatable, Codable {
    public var name: String
    public var days: Weekdays
    /// Minutes after midnight: 0-1439.
    public var from: Int
    /// Minutes after midnight: 1-1440 (24:00 ends at the next midnight).
    public var to: Int
    /// What it blocks: app ids, catalogue groups ("social"), or `guarded` (every guarded app).
    public var block: [String]

    public init(name: String, days: Weekdays, from: Int, to: Int, block: [String]) {
        self.name = name
        self.days = days
        self.from = from
        self.to = to
        self.block = block
    }

    /// What is wrong with it, for people, or nil.
    public var problem: String? {
        if let problem = People.problem(with: name) { return problem.replacing("person", with: "schedule") }
        if !(0..<1440).contains(from) || !(1...1440).contains(to) { return "times must be 00:00 to 24:00" }
        if from == to { return "from and to are the same: a range must not be empty (00:00-24:00 is the whole day)" }
        if block.isEmpty { return "say what it blocks (apps, groups such as social, or guarded)" }
        return nil
    }

    /// "mon-fri 22:00-07:00".
    public var timesText: String { "\(days.description) \(Self.clock(from))-\(Self.clock(to))" }

    /// "07:00" for 420 minutes.
    public static func clock(_ minutes: Int) -> String {
        PlainText.padded(minutes / 60, to: 2) + ":" + PlainText.padded(minutes % 60, to: 2)
    }

    /// Reads "HH:MM" (00:00 to 24:00) into minutes after midnight.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]),
            let minute = Int(parts[1]),
            (0...59).contains(minute), (0...23).contains(hour) || (hour == 24 && minute == 0)
        else { return nil }
        return hour * 60 + minute
    }

    var crossesMidnight: Bool { to <= from }

    /// The stretch of the range that contains `instant`, or nil when it is not in force then.
    func occurrence(containing instant: Instant, calendar: DayCalendar) -> (start: Instant, end: Instant)? {
        let today = calendar.localDay(containing: instant)
        for startDay in crossesMidnight ? [calendar.localDay(before: today), today] : [today]
        where days.contains(Weekdays.day(startDay.weekday)) {
            let start = calendar.instant(atMinute: from, of: startDay)
            let end = calendar.instant(
                atMinute: to, of: crossesMidnight ? calendar.localDay(after: startDay) : startDay)
            if start <= instant, instant < end { return (start, end) }
        }
        return nil
    }

    /// Every minute of the week it covers, as local wall time (for telling whether an edit
    /// covers less).
    var minutesOfWeek: Set<Int> {
        var minutes = Set<Int>()
        for day in 0..<7 where days.contains(Weekdays.day(day)) {
            let start = day * 1440 + from
            let end = day * 1440 + (crossesMidnight ? to + 1440 : to)
            for minute in start..<end { minutes.insert(minute % (7 * 1440)) }
        }
        return minutes
    }

    /// Whether `self` blocks at least what `other` blocks, whenever `other` does.
    func covers(_ other: Schedule) -> Bool {
        Set(block).isSuperset(of: other.block) && minutesOfWeek.isSuperset(of: other.minutesOfWeek)
    }
}

/// A named selection of apps blocked outright while it is on, switched on and off by the person
/// (at once, or for a while); off, it changes nothing.
public struct Profile: Sendable, Equatable, Codable {
    public var name: String
    /// What it blocks: app ids, catalogue groups, or `guarded`.
    public var block: [String]

    public init(name: String, block: [String]) {
        self.name = name
        self.block = block
    }

    /// What is wrong with it, for people, or nil.
    public var problem: String? {
        if let problem = People.problem(with: name) { return problem.replacing("person", with: "profile") }
        if block.isEmpty { return "say what it blocks (apps, groups such as social, or guarded)" }
        return nil
    }
}

/// A profile that is on, and until when (nil: until switched off).
public struct ActiveProfile: Sendable, Equatable, Codable {
    public var name: String
    public var since: Instant
    public var until: Instant?
}

/// What the apps a schedule or profile blocks are named by: app ids, catalogue groups, `guarded`.
public enum AppSelection {
    /// Every guarded app.
    public static let guardedKeyword = "guarded"

    /// What is wrong with `block`: the entries that name no app, group or `guarded`, each with a
    /// hint, and the groups there are; nil when every entry names something.
    public static func problem(_ block: [String], apps: [String: String], groups: [String: String]) -> String? {
        let groupNames = Set(groups.values)
        let unknown = block.filter { entry in
            entry.lowercased() != guardedKeyword && !groupNames.contains(entry.lowercased())
                && AppNames.resolve(entry, in: apps) == nil
        }.map { entry in
            "'\(entry)'" + (AppNames.suggestion(for: entry, in: apps).map { " (did you mean \($0)?)" } ?? "")
        }
        guard !unknown.isEmpty else { return nil }
        return "block: no app or group \(unknown.joined(separator: ", ")) (groups: "
            + "\(groupNames.sorted().joined(separator: ", ")); or guarded)"
    }

    /// The app ids `block` names.
    static func apps(
        _ block: [String], apps: [String: String], groups: [String: String], guarded: [String]
    ) -> [String] {
        var selected: [String] = []
        func add(_ app: String) { if !selected.contains(app) { selected.append(app) } }
        for entry in block {
            let lowered = entry.lowercased()
            if lowered == guardedKeyword {
                guarded.forEach(add)
            } else if let app = AppNames.resolve(entry, in: apps) {
                add(app)
            } else {
                groups.filter { $0.value == lowered }.keys.sorted().forEach(add)
            }
        }
        return selected
    }
}
