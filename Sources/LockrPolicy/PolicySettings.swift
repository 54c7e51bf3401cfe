import CivilTime
import ConfigKit
import Foundation

/// How guarded apps are rationed.
public enum Mode: String, Sendable, Codable, CaseIterable, ChoiceOfWords {
    /// A daily budget, metered from DNS activity.
    case time
    /// One window of a few minutes per clock hour, opened on request.
    case hourly
    /// Hourly, but a window opens only when the user types the set sentence.
    case extreme
}

/// How close a typed phrase must be to the set sentence.
public enum Strictness: String, Sendable, Codable, CaseIterable {
    case strict
    case normal
    case lenient

    /// Edits (Levenshtein distance, after normalising) accepted for a phrase of `length` characters:
    /// strict none, normal 5% of the length (at least 1), lenient 10% (at least 2).
    public func allowedEdits(forLength length: Int) -> Int {
        switch self {
        case .strict: 0
        case .normal: max(1, length * 5 / 100)
        case .lenient: max(2, length * 10 / 100)
        }
    }
}

/// Time mode: the daily budget and how it is metered.
public struct TimeModeSettings: Sendable, Equatable, Codable {
    public var budget: Duration = .seconds(30 * 60)
    /// One budget per guarded app instead of one for all together.
    public var perApp = false
    public var metering = MeteringSettings()

    /// The budgets a person may choose, in minutes: what the config file, the API and an import take.
    public static let budgetMinutes: ClosedRange<Int> = 5...180
    public static let budgetRange: ClosedRange<Duration> =
        .seconds(budgetMinutes.lowerBound * 60)...(.seconds(budgetMinutes.upperBound * 60))
}

/// When DNS activity counts as use. See `UsageMeter`.
public struct MeteringSettings: Sendable, Equatable, Codable {
    /// Length of a slice, the unit of metered time. Must divide a minute.
    public var slice: Duration = .seconds(10)
    /// Queries needed in a slice and its neighbourhood for the slice to count as foreground use.
    public var minimumQueries: Int = 3
    /// Slices before the current one that form its neighbourhood.
    public var neighbourhood: Int = 2
    /// A gap between used slices no longer than this is counted too (the user switched apps briefly).
    public var grace: Duration = .seconds(30)

    /// What a client may take, beyond the TTL it was given, to look a name up again while the app is
    /// in use: a re-lookup within `max-ttl` plus this continues a stretch of sustained use.
    public static let relookupSlack: Duration = .seconds(15)

    /// Use that follows the app's last counted use after more than this opens it again (a
    /// session, for statistics).
    public static let sessionGap: Duration = .seconds(300)

    /// How far behind the newest counted slice a slice may still be counted, in slices: a stretch of
    /// sustained use is counted back to its first query, dense use back over its neighbourhood and
    /// the grace before it.
    func horizon(relookupGap: Duration) -> Int64 {
        let sustained = relookupGap.milliseconds * Int64(max(minimumQueries - 1, 0))
        let dense = slice.milliseconds * Int64(neighbourhood) + grace.milliseconds
        return max(sustained, dense) / slice.milliseconds + 2
    }

    /// Every setting at its default.
    public static let defaults = MeteringSettings()
}

/// A limited way to get more time: its length and how often per day (`[snooze]`, `[extend]`,
/// `[emergency]`).
public struct Allowance: Sendable, Equatable, Codable {
    public var length: Duration
    public var perDay: Int
}

extension Allowance: ConfigSection {
    public static let settings: [Setting<Allowance>] = [
        .duration("minutes", \.length, in: 1...60, unit: .seconds(60), "How long each one lasts, minutes ({range})."),
        .integer("per-day", \.perDay, in: 0...100, "How many a day ({range})."),
    ]
}

/// Hourly and extreme modes: the length of the window each clock hour.
public struct HourlySettings: Sendable, Equatable, Codable {
    public var window: Duration = .seconds(10 * 60)
    /// Open the hour's window on the first guarded query of the hour instead of on `lockr unlock`.
    public var openOnFirstQuery = false

    /// The windows a person may choose, in minutes: what the config file, the API and an import take.
    public static let windowMinutes = [5, 10, 15]
    public static let windowChoices: [Duration] = windowMinutes.map { .seconds($0 * 60) }
}

/// Extreme mode: the phrase gate.
public struct ExtremeSettings: Sendable, Equatable, Codable {
    /// The sentence as configured; `{minutes}` stands for the window's length.
    public var phrase = ExtremeSettings.defaultPhrase
    public var strictness = Strictness.normal
    public var window: Duration = .seconds(15 * 60)

    public static let defaultPhrase =
        "I am stupid enough to waste more time. Please give me another {minutes} minutes."

    /// The sentence to give: `phrase` with `{minutes}` replaced by the length of the window it opens
    /// (this mode's, or hourly mode's where that mode's gate asks the sentence).
    public func sentence(opening window: Duration) -> String {
        phrase.replacing("{minutes}", with: "\(window.milliseconds / 60_000)")
    }
}

/// Everything the policy engine needs to decide, apart from state and time.
public struct PolicySettings: Sendable, Equatable, Codable {
    public var mode = Mode.time
    public var calendar = DayCalendar(zone: ZoneDatabase.systemZone, dayStartMinutes: 4 * 60)
    public var time = TimeModeSettings()
    public var hourly = HourlySettings()
    public var extreme = ExtremeSettings()
    /// Time mode, once the budget is spent: a short grace ("remind me in 5 min").
    public var snooze = Allowance(length: .seconds(5 * 60), perDay: 3)
    /// Time mode: more budget for today ("add 10 min today").
    public var extend = Allowance(length: .seconds(10 * 60), perDay: 1)
    /// Any mode: a window for every guarded app after an uninterrupted hold.
    public var emergency = Allowance(length: .seconds(5 * 60), perDay: 2)
    /// How long the emergency button must be held.
    public var emergencyHold: Duration = .seconds(8)
    /// Upper bound on the TTL of an allowed guarded answer (it is also clamped to the time left).
    public var maximumTTL: Duration = .seconds(30)
    /// How long a change that loosens protection waits before it takes effect, on top of the current
    /// mode's own gate (see `Loosening` and `PendingChange`).
    public var commitmentDelay: Duration = .zero
    /// What each mode's gate asks.
    public var gate = GateSettings()

    /// Every setting at its default, in this machine's time zone, days starting at 04:00.
    public static var defaults: PolicySettings { PolicySettings() }

    enum CodingKeys: String, CodingKey {
        case mode, calendar, time, hourly, extreme, snooze, extend, emergency, emergencyHold, maximumTTL
        case commitmentDelay, gate
    }

    /// The window length of an hourly or extreme mode.
    var windowLength: Duration { mode == .extreme ? extreme.window : hourly.window }

    /// The mode and its main number, as `lockr status` shows it.
    public var modeSummary: String {
        switch mode {
        case .time: "time, budget \(time.budget.spoken) a day" + (time.perApp ? " per app" : " for all apps")
        case .hourly: "hourly, \(hourly.window.spoken) per hour"
        case .extreme: "extreme, \(extreme.window.spoken) per hour behind the phrase"
        }
    }

    /// The longest `maximumTTL` accepted: the meter takes a re-lookup within `maximumTTL` plus
    /// `MeteringSettings.relookupSlack` as sustained use, which must stay well below the few minutes
    /// between background pings.
    public static let maximumTTLLimit: Duration = .seconds(60)

    /// How soon after one query an open app's next one continues a stretch of sustained use: clients
    /// look names up again when the TTL lockr gave them (at most `maximumTTL`) runs out.
    var relookupGap: Duration { maximumTTL + MeteringSettings.relookupSlack }

    /// Problems that make these settings unusable, as sentences naming the setting.
    public func problems() -> [String] {
        var problems: [String] = []
        if !TimeModeSettings.budgetRange.contains(time.budget) {
            problems.append("budget must be 5 to 180 minutes, not \(time.budget.spoken)")
        }
        let slice = time.metering.slice.milliseconds
        if slice < 1000 || slice > 60_000 || 60_000 % slice != 0 {
            problems.append("metering slice must be whole seconds that divide a minute (1-60 s)")
        }
        if !(1...20).contains(time.metering.minimumQueries) { problems.append("metering min-queries must be 1 to 20") }
        if time.metering.neighbourhood < 0 { problems.append("metering neighbourhood must not be negative") }
        if time.metering.grace < .zero { problems.append("metering grace must not be negative") }
        if !HourlySettings.windowChoices.contains(hourly.window) {
            problems.append("hourly window must be 5, 10 or 15 minutes, not \(hourly.window.spoken)")
        }
        if !HourlySettings.windowChoices.contains(extreme.window) {
            problems.append("extreme window must be 5, 10 or 15 minutes, not \(extreme.window.spoken)")
        }
        if PhraseGate.normalize(extreme.phrase).isEmpty { problems.append("extreme phrase must contain letters") }
        for (name, allowance) in [("snooze", snooze), ("extend", extend), ("emergency", emergency)] {
            if allowance.length <= .zero || allowance.length > .seconds(3600) {
                problems.append("\(name) length must be 1 s to 60 min")
            }
            if allowance.perDay < 0 { problems.append("\(name) per_day must not be negative") }
        }
        if emergencyHold < .zero || emergencyHold > .seconds(60) { problems.append("emergency hold must be 0-60 s") }
        if commitmentDelay < .zero || commitmentDelay > .seconds(30 * 86_400) {
            problems.append("commitment delay must be 0 to 30 days")
        }
        if maximumTTL < .seconds(1) || maximumTTL > Self.maximumTTLLimit {
            problems.append("maximum TTL of guarded answers must be 1 to \(Self.maximumTTLLimit.spoken)")
        }
        return problems + gate.problems()
    }
}

extension Array where Element == Int {
    /// "5, 10 or 15", as a message lists the choices.
    public var spokenChoices: String {
        guard let last else { return "" }
        return count == 1 ? "\(last)" : dropLast().map(String.init).joined(separator: ", ") + " or \(last)"
    }
}

// In an extension, so that Swift still makes the memberwise initialiser (this module and tests).
extension PolicySettings {
    /// Settings as a store kept them; a store an older lockr wrote has no gate: the defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decode(Mode.self, forKey: .mode)
        calendar = try container.decode(DayCalendar.self, forKey: .calendar)
        time = try container.decode(TimeModeSettings.self, forKey: .time)
        hourly = try container.decode(HourlySettings.self, forKey: .hourly)
        extreme = try container.decode(ExtremeSettings.self, forKey: .extreme)
        snooze = try container.decode(Allowance.self, forKey: .snooze)
        extend = try container.decode(Allowance.self, forKey: .extend)
        emergency = try container.decode(Allowance.self, forKey: .emergency)
        emergencyHold = try container.decode(Duration.self, forKey: .emergencyHold)
        maximumTTL = try container.decode(Duration.self, forKey: .maximumTTL)
        commitmentDelay = try container.decode(Duration.self, forKey: .commitmentDelay)
        gate = try container.decodeIfPresent(GateSettings.self, forKey: .gate) ?? GateSettings()
    }
}
