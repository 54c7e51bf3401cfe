import Foundation
import LockrAPI
import LockrPolicy
import LockrPuzzles

// `lockr config export` and `lockr config import`: the household's run-time settings as one JSON
// document (`GET` and `POST /api/v1/config`), described by the `ConfigurationDocument` schema in
// docs/openapi.yaml.

/// The household's run-time settings: every person's mode, guarded apps, schedules, profiles and
/// gates, and the devices the config file gives them. Every key is required and no other is taken.
public struct ConfigurationDocument: Codable, Sendable, Equatable {
    /// The format's version: lockr reads only its own.
    public static let currentVersion = 1

    public let version: Int
    public let people: [PersonConfiguration]
}

/// One person's run-time settings.
public struct PersonConfiguration: Codable, Sendable, Equatable {
    public let name: String
    /// As the config file lists them (MAC addresses, addresses, networks): exported to say whose
    /// settings these are; an import must name the same ones, as devices are the file's to change.
    public let devices: [String]
    /// time, hourly or extreme.
    public let mode: String
    public let time: TimeConfiguration
    public let hourly: WindowConfiguration
    public let extreme: WindowConfiguration
    /// Guarded app ids.
    public let `guard`: [String]
    public let schedules: [ScheduleConfiguration]
    /// Every profile defined, on or off (whether one is on is state, not configuration).
    public let profiles: [ProfileConfiguration]
    public let gate: GateConfiguration
}

public struct TimeConfiguration: Codable, Sendable, Equatable {
    public let budgetMinutes: Int
    public let perApp: Bool

    enum CodingKeys: String, CodingKey {
        case budgetMinutes = "budget_minutes", perApp = "per_app"
    }
}

public struct WindowConfiguration: Codable, Sendable, Equatable {
    public let windowMinutes: Int

    enum CodingKeys: String, CodingKey { case windowMinutes = "window_minutes" }
}

public struct ScheduleConfiguration: Codable, Sendable, Equatable {
    public let name: String
    /// "mon-fri", "sat,sun", "daily".
    public let days: String
    /// Local wall time "HH:MM"; a `to` not after `from` is on the next day.
    public let from: String
    public let to: String
    /// App ids, catalogue groups, or `guarded`.
    public let block: [String]
}

public struct ProfileConfiguration: Codable, Sendable, Equatable {
    public let name: String
    public let block: [String]
}

public struct GateConfiguration: Codable, Sendable, Equatable {
    /// Each mode's steps: phrase, voice, puzzle.
    public let time: [String]
    public let hourly: [String]
    public let extreme: [String]
    /// typed, voice or either.
    public let input: String
    public let typedFallbackSteps: Int
    public let puzzles: PuzzleConfiguration

    enum CodingKeys: String, CodingKey {
        case time, hourly, extreme, input, puzzles
        case typedFallbackSteps = "typed_fallback_steps"
    }
}

public struct PuzzleConfiguration: Codable, Sendable, Equatable {
    /// arithmetic, chess.
    public let kinds: [String]
    /// easy, medium or hard.
    public let difficulty: String
    public let count: Int
    public let timeLimitSeconds: Int

    enum CodingKeys: String, CodingKey {
        case kinds, difficulty, count
        case timeLimitSeconds = "time_limit_seconds"
    }
}

/// `POST config`: what importing did (or, with `?check=true`, would do) for each person.
public struct ConfigurationImportResponse: Codable, Sendable, Equatable {
    /// True when only checked: nothing changed.
    public let checked: Bool
    public let people: [PersonChangeBody]

    public init(checked: Bool, people: [PersonChangeBody]) {
        self.checked = checked
        self.people = people
    }
}

public struct PersonChangeBody: Codable, Sendable, Equatable {
    public let person: String
    public let change: Components.Schemas.ChangeBody

    /// What importing did for `person` at `now`, with times read in `calendar`.
    public init(person: String, outcome: ChangeOutcome, now: Instant, calendar: DayCalendar) {
        self.person = person
        change = Components.Schemas.ChangeBody(outcome, now: now, calendar: calendar)
    }
}

/// A document that cannot be imported: where and why ("people.alice.mode: 'hour' is not a mode").
public struct ConfigurationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}

extension PersonConfiguration {
    /// `settings` as the document writes them.
    public init(name: String, devices: [String], settings: RunTimeSettings) {
        self.name = name
        self.devices = devices
        mode = settings.mode.rawValue
        time = TimeConfiguration(budgetMinutes: Self.minutes(settings.budget), perApp: settings.perApp)
        hourly = WindowConfiguration(windowMinutes: Self.minutes(settings.hourlyWindow))
        extreme = WindowConfiguration(windowMinutes: Self.minutes(settings.extremeWindow))
        self.guard = settings.guarded
        schedules = settings.schedules.map { schedule in
            ScheduleConfiguration(
                name: schedule.name, days: schedule.days.description, from: Schedule.clock(schedule.from),
                to: Schedule.clock(schedule.to), block: schedule.block)
        }
        profiles = settings.profiles.map { ProfileConfiguration(name: $0.name, block: $0.block) }
        let gate = settings.gate
        self.gate = GateConfiguration(
            time: gate.time.map(\.rawValue), hourly: gate.hourly.map(\.rawValue), extreme: gate.extreme.map(\.rawValue),
            input: gate.input.rawValue, typedFallbackSteps: gate.typedFallbackSteps,
            puzzles: PuzzleConfiguration(
                kinds: gate.puzzles.kinds.map(\.rawValue), difficulty: gate.puzzles.difficulty.rawValue,
                count: gate.puzzles.count, timeLimitSeconds: Int(gate.puzzles.timeLimit.components.seconds)))
    }

    /// The settings the document asks for; a value lockr cannot read or take is refused with its
    /// place (numbers are checked before any arithmetic).
    public func settings() throws(ConfigurationProblem) -> RunTimeSettings {
        let at = "people.\(name)"
        try Self.check(time.budgetMinutes, in: TimeModeSettings.budgetMinutes, at: "\(at).time.budget_minutes")
        try Self.check(hourly.windowMinutes, in: HourlySettings.windowMinutes, at: "\(at).hourly.window_minutes")
        try Self.check(extreme.windowMinutes, in: HourlySettings.windowMinutes, at: "\(at).extreme.window_minutes")
        try Self.check(
            gate.typedFallbackSteps, in: GateSettings.typedFallbackStepsRange, at: "\(at).gate.typed_fallback_steps")
        try Self.check(gate.puzzles.count, in: PuzzleSettings.countRange, at: "\(at).gate.puzzles.count")
        try Self.check(
            gate.puzzles.timeLimitSeconds, in: PuzzleSettings.timeLimitSeconds,
            at: "\(at).gate.puzzles.time_limit_seconds")
        return RunTimeSettings(
            mode: try Self.choice(mode, at: "\(at).mode", as: Mode.self),
            budget: .seconds(Int64(time.budgetMinutes) * 60), perApp: time.perApp,
            hourlyWindow: .seconds(Int64(hourly.windowMinutes) * 60),
            extremeWindow: .seconds(Int64(extreme.windowMinutes) * 60), guarded: self.guard,
            schedules: try schedules.enumerated().map { index, body throws(ConfigurationProblem) in
                try Self.schedule(body, at: "\(at).schedules.\(index)")
            },
            profiles: profiles.map { Profile(name: $0.name, block: $0.block) },
            gate: try gateSettings(at: "\(at).gate"))
    }

    private func gateSettings(at path: String) throws(ConfigurationProblem) -> GateSettings {
        func steps(_ names: [String], _ key: String) throws(ConfigurationProblem) -> [GateStep] {
            try names.map { name throws(ConfigurationProblem) in
                try Self.choice(name, at: "\(path).\(key)", as: GateStep.self)
            }
        }
        let puzzles = gate.puzzles
        return GateSettings(
            time: try steps(gate.time, "time"), hourly: try steps(gate.hourly, "hourly"),
            extreme: try steps(gate.extreme, "extreme"),
            input: try Self.choice(gate.input, at: "\(path).input", as: SentenceInput.self),
            typedFallbackSteps: gate.typedFallbackSteps,
            puzzles: PuzzleSettings(
                kinds: try puzzles.kinds.map { kind throws(ConfigurationProblem) in
                    try Self.choice(kind, at: "\(path).puzzles.kinds", as: PuzzleKind.self)
                },
                difficulty: try Self.choice(puzzles.difficulty, at: "\(path).puzzles.difficulty", as: Difficulty.self),
                count: puzzles.count, timeLimit: .seconds(Int64(puzzles.timeLimitSeconds))))
    }

    private static func schedule(
        _ body: ScheduleConfiguration, at path: String
    ) throws(ConfigurationProblem) -> Schedule {
        guard let days = Weekdays(body.days) else {
            throw ConfigurationProblem(
                description: "\(path).days: '\(body.days)' is no days such as mon-fri, sat,sun or daily")
        }
        guard let from = Schedule.minutes(body.from) else {
            throw ConfigurationProblem(description: "\(path).from: '\(body.from)' is no time HH:MM (00:00 to 24:00)")
        }
        guard let to = Schedule.minutes(body.to) else {
            throw ConfigurationProblem(description: "\(path).to: '\(body.to)' is no time HH:MM (00:00 to 24:00)")
        }
        return Schedule(name: body.name, days: days, from: from, to: to, block: body.block)
    }

    private static func choice<Value: RawRepresentable & CaseIterable>(
        _ text: String, at path: String, as: Value.Type
    )
        throws(ConfigurationProblem) -> Value where Value.RawValue == String
    {
        guard let value = Value(rawValue: text) else {
            let choices = Value.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationProblem(description: "\(path): '\(text)' is not one of \(choices)")
        }
        return value
    }

    private static func minutes(_ duration: Duration) -> Int { Int(duration.components.seconds / 60) }

    private static func check(_ value: Int, in range: ClosedRange<Int>, at path: String) throws(ConfigurationProblem) {
        guard range.contains(value) else {
            throw ConfigurationProblem(
                description: "\(path): must be \(range.lowerBound) to \(range.upperBound), not \(value)")
        }
    }

    private static func check(_ value: Int, in choices: [Int], at path: String) throws(ConfigurationProblem) {
        guard choices.contains(value) else {
            throw ConfigurationProblem(description: "\(path): must be \(choices.spokenChoices), not \(value)")
        }
    }
}

extension ConfigurationDocument {
    public init(people: [PersonConfiguration]) {
        version = Self.currentVersion
        self.people = people
    }

    /// Reads a document strictly: every key required, no other taken, the version lockr's own.
    public static func read(_ data: Data) throws(ConfigurationProblem) -> ConfigurationDocument {
        let tree: Any
        do { tree = try JSONSerialization.jsonObject(with: data) } catch {
            throw ConfigurationProblem(description: "not JSON: \(error.localizedDescription)")
        }
        if let version = (tree as? [String: Any])?["version"] as? Int, version != currentVersion {
            throw ConfigurationProblem(
                description: "version: this lockr reads version \(currentVersion), not \(version)")
        }
        let document: ConfigurationDocument
        do { document = try ControlJSON.decoder().decode(ConfigurationDocument.self, from: data) } catch {
            throw ConfigurationProblem(description: describe(error))
        }
        // Every key is required, so the document written again has every key it knows.
        let known = (try? JSONSerialization.jsonObject(with: ControlJSON.encoder().encode(document))) ?? [:]
        if let unknown = unknownKey(in: tree, known: known, at: "") {
            throw ConfigurationProblem(description: "\(unknown): unknown key")
        }
        var names: Set<String> = []
        for person in document.people where !names.insert(person.name).inserted {
            throw ConfigurationProblem(description: "people.\(person.name): named twice")
        }
        return document
    }

    /// The first key of `tree` that `known` (the same document as lockr writes it) lacks.
    private static func unknownKey(in tree: Any, known: Any, at path: String) -> String? {
        if let object = tree as? [String: Any], let knownObject = known as? [String: Any] {
            for key in object.keys.sorted() {
                let place = path.isEmpty ? key : "\(path).\(key)"
                guard let inner = knownObject[key] else { return place }
                if let found = unknownKey(in: object[key]!, known: inner, at: place) { return found }
            }
        } else if let array = tree as? [Any], let knownArray = known as? [Any] {
            for (index, (element, knownElement)) in zip(array, knownArray).enumerated() {
                if let found = unknownKey(in: element, known: knownElement, at: "\(path).\(index)") { return found }
            }
        }
        return nil
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not understood" }
        func path(_ context: DecodingError.Context, _ key: (any CodingKey)? = nil) -> String {
            let keys = (context.codingPath + (key.map { [$0] } ?? [])).map {
                $0.intValue.map(String.init) ?? ControlRouter.snakeCase($0.stringValue)
            }
            return keys.isEmpty ? "the document" : keys.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "\(path(context)): must be \(ControlRouter.typeName(type))"
        case .keyNotFound(let key, let context): return "\(path(context, key)): required"
        case .dataCorrupted(let context): return "\(path(context)): not valid"
        @unknown default: return "not understood"
        }
    }
}
