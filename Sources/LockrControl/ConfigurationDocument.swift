import ConfigKit
import Foundation
import LockrAPI
import LockrPolicy
import LockrPuzzles

// `lockr config export` and `lockr config import`: the household's run-time settings as one JSON
// document (`GET` and `POST /api/v1/config`), the `ConfigurationDocument` schema of
// docs/openapi.yaml. Its types are generated from there, strict as the schema is (every key
// required, no other taken); here is what lockr reads into them and out of them.

/// A document that cannot be imported: where and why ("people.alice.mode: 'hour' is not one of
/// time, hourly, extreme").
public struct ConfigurationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}

extension Components.Schemas.ConfigurationDocument {
    /// The format's version: lockr reads only its own.
    public static let currentVersion = 1

    public init(people: [Components.Schemas.PersonConfiguration]) {
        self.init(version: ._1, people: people)
    }

    /// Reads a document strictly: every key required, no other taken, the version lockr's own,
    /// each person once.
    public static func read(_ data: Data) throws(ConfigurationProblem) -> Self {
        let document: Self
        do { document = try ControlJSON.decoder().decode(Self.self, from: data) } catch {
            throw problem(in: data, error)
        }
        try document.check()
        return document
    }

    /// Refuses a person named twice (what decoding cannot see).
    public func check() throws(ConfigurationProblem) {
        var names: Set<String> = []
        for person in people where !names.insert(person.name).inserted {
            throw ConfigurationProblem(description: "people.\(person.name): named twice")
        }
    }

    /// Why `data` could not be read as a document (`error`, what decoding it threw), named by its
    /// place: a person by their name, as the document's other problems are.
    public static func problem(in data: Data, _ error: any Error) -> ConfigurationProblem {
        guard let tree = JSONTree.read(data) else {
            return ConfigurationProblem(description: "not JSON: \(error)")
        }
        if case .number(let number) = tree["version"], let version = Int(exactly: number), version != currentVersion {
            return ConfigurationProblem(
                description: "version: this lockr reads version \(currentVersion), not \(version)")
        }
        guard let error = error as? DecodingError else { return ConfigurationProblem(description: "not understood") }
        func place(_ path: [any CodingKey]) -> String {
            var keys = path.map { $0.intValue.map(String.init) ?? $0.stringValue }
            if keys.count > 1, keys[0] == "people", let index = Int(keys[1]),
                case .array(let people) = tree["people"], people.indices.contains(index),
                case .string(let name) = people[index]["name"]
            {
                keys[1] = name
            }
            return keys.isEmpty ? "the document" : keys.joined(separator: ".")
        }
        let description: String
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            description = "\(place(context.codingPath)): must be \(ControlRouter.typeName(type))"
        case .keyNotFound(let key, let context): description = "\(place(context.codingPath + [key])): required"
        case .dataCorrupted(let context) where context.underlyingError is NotAChoice:
            description = "\(place(context.codingPath)): \(context.underlyingError!)"
        case .dataCorrupted(let context) where context.debugDescription.hasPrefix("Additional properties"):
            description = "\(place(context.codingPath)): unknown key"
        case .dataCorrupted(let context): description = "\(place(context.codingPath)): not valid"
        @unknown default: description = "not understood"
        }
        return ConfigurationProblem(description: description)
    }
}

extension Components.Schemas.PersonConfiguration {
    /// `settings` as the document writes them.
    public init(name: String, devices: [String], settings: RunTimeSettings) {
        let gate = settings.gate
        self.init(
            name: name, devices: devices, mode: settings.mode,
            time: .init(budgetMinutes: Self.minutes(settings.budget), perApp: settings.perApp),
            hourly: .init(windowMinutes: Self.minutes(settings.hourlyWindow)),
            extreme: .init(windowMinutes: Self.minutes(settings.extremeWindow)), _guard: settings.guarded,
            schedules: settings.schedules.map { schedule in
                .init(
                    name: schedule.name, days: schedule.days.description, from: Schedule.clock(schedule.from),
                    to: Schedule.clock(schedule.to), block: schedule.block)
            },
            profiles: settings.profiles.map { .init(name: $0.name, block: $0.block) },
            gate: .init(
                time: gate.time, hourly: gate.hourly, extreme: gate.extreme, input: gate.input,
                typedFallbackSteps: gate.typedFallbackSteps,
                puzzles: .init(
                    kinds: gate.puzzles.kinds, difficulty: gate.puzzles.difficulty, count: gate.puzzles.count,
                    timeLimitSeconds: Int(gate.puzzles.timeLimit.components.seconds))))
    }

    /// The settings the document asks for; a value lockr cannot take is refused with its place
    /// (numbers are checked before any arithmetic).
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
            mode: mode, budget: .seconds(Int64(time.budgetMinutes) * 60), perApp: time.perApp,
            hourlyWindow: .seconds(Int64(hourly.windowMinutes) * 60),
            extremeWindow: .seconds(Int64(extreme.windowMinutes) * 60), guarded: _guard,
            schedules: try schedules.enumerated().map { index, body throws(ConfigurationProblem) in
                try Self.schedule(body, at: "\(at).schedules.\(index)")
            },
            profiles: profiles.map { Profile(name: $0.name, block: $0.block) },
            gate: GateSettings(
                time: gate.time, hourly: gate.hourly, extreme: gate.extreme, input: gate.input,
                typedFallbackSteps: gate.typedFallbackSteps,
                puzzles: PuzzleSettings(
                    kinds: gate.puzzles.kinds, difficulty: gate.puzzles.difficulty, count: gate.puzzles.count,
                    timeLimit: .seconds(Int64(gate.puzzles.timeLimitSeconds)))))
    }

    private static func schedule(
        _ body: Components.Schemas.ScheduleConfiguration, at path: String
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

extension Components.Schemas.ConfigurationImportResponse.PeoplePayloadPayload {
    /// What importing did for `person` at `now`, with times read in `calendar`.
    public init(person: String, outcome: ChangeOutcome, now: Instant, calendar: DayCalendar) {
        self.init(person: person, change: Components.Schemas.ChangeBody(outcome, now: now, calendar: calendar))
    }
}
