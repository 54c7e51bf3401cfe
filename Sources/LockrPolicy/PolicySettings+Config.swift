import CivilTime
import ConfigKit
import Foundation

/// A person's policy in the config file: `[policy]`, `[time]`, `[hourly]`, `[extreme]`, `[snooze]`,
/// `[extend]`, `[emergency]` and `[puzzles]`, at the top level and in each `[people.NAME]`.
extension PolicySettings {
    /// The sections, in the order the reference lists them.
    public static let configSections: [SectionDeclaration<PolicySettings>] = [
        SectionDeclaration("policy", policySection),
        SectionDeclaration("time", timeSection),
        SectionDeclaration("hourly", hourlySection),
        SectionDeclaration("extreme", extremeSection),
        SectionDeclaration("puzzles", \.gate.puzzles),
        SectionDeclaration("snooze", \.snooze),
        SectionDeclaration("extend", \.extend),
        SectionDeclaration(
            "emergency",
            Allowance.settings.map { $0.within(\.emergency) } + [
                .duration(
                    "hold-seconds", \.emergencyHold, in: 0...60, unit: .seconds(1),
                    "How long the emergency button must be held, seconds ({range}).")
            ]),
    ]

    static let policySection: [Setting<PolicySettings>] = [
        .choice("mode", \.mode, "time, hourly or extreme."),
        Setting(
            "time-zone",
            "Time zone of days and clock hours: a name in the system's time zone database (/usr/share/zoneinfo, the tzdata package), or on a machine without it a POSIX TZ rule such as \"CET-1CEST,M3.5.0,M10.5.0/3\". Unset: the system's ($TZ, else /etc/localtime, /etc/timezone, /etc/TZ; else UTC). `lockr status` shows the zone in use.",
            update: { reader, key, policy in
                guard let name = reader.string(key) else { return }
                let zone: ZoneRules
                do {
                    zone = try ZoneDatabase().zone(name)
                } catch {
                    reader.problem(key, "\(error)")
                    return
                }
                policy.calendar = DayCalendar(zone: zone, dayStartMinutes: policy.calendar.dayStartMinutes)
            },
            write: { "\"\($0.calendar.zone.identifier)\"" }, same: { $0.calendar.zone == $1.calendar.zone }
        ).shown(as: "\"Europe/Berlin\""),
        Setting(
            "day-start", "When a new day (budget, counters) begins, HH:MM local time.",
            update: { reader, key, policy in
                guard let text = reader.string(key) else { return }
                guard let minutes = Schedule.minutes(text), minutes < 1440 else {
                    reader.problem(key, "expected a time of day HH:MM, not '\(text)'")
                    return
                }
                policy.calendar = DayCalendar(zone: policy.calendar.zone, dayStartMinutes: minutes)
            },
            write: { "\"\(Schedule.clock($0.calendar.dayStartMinutes))\"" },
            same: { $0.calendar.dayStartMinutes == $1.calendar.dayStartMinutes }),
        .duration(
            "max-ttl", \.maximumTTL, in: 1...Int(maximumTTLLimit.components.seconds), unit: .seconds(1),
            "Upper bound on the TTL of a guarded app's answers, seconds ({range}; they are also cut to the time left). Metering takes a re-lookup within max-ttl + 15 s as sustained use, so the two go together."
        ),
        Setting(
            "commitment-delay", \.commitmentDelay,
            "How long a change that loosens protection waits, on top of the current mode's own reset (see \"Changes that loosen\" in modes.md): a duration such as \"24h\" (up to 30 days), or \"0\".",
            read: { reader, key in
                guard let text = reader.string(key) else { return nil }
                guard let seconds = DurationText.seconds(text, plainUnit: nil), seconds <= 30 * 86_400 else {
                    reader.problem(
                        key, "expected a duration up to 30 days such as \"24h\", \"90m\" or \"0\", not '\(text)'")
                    return nil
                }
                return .seconds(seconds)
            },
            write: { "\"\(DurationText.written(seconds: Int($0.components.seconds)))\"" }),
    ]

    static let timeSection: [Setting<PolicySettings>] = [
        .duration(
            "budget-minutes", \.time.budget, in: TimeModeSettings.budgetMinutes, unit: .seconds(60),
            "The daily budget, minutes ({range})."),
        .bool("per-app", \.time.perApp, "One budget per app instead of one for all guarded apps."),
        Setting(
            "slice-seconds", \.time.metering.slice, "Metering: the slice length, seconds dividing a minute.",
            read: { reader, key in
                guard let value = reader.integer(key, in: 1...60) else { return nil }
                guard 60 % value == 0 else {
                    reader.problem(key, "must divide a minute (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60)")
                    return nil
                }
                return .seconds(value)
            },
            write: { "\($0.components.seconds)" }),
        .integer(
            "min-queries", \.time.metering.minimumQueries, in: 1...20,
            "Queries needed in a slice and its neighbourhood ({range}); also the queries in a row that make sustained use."
        ),
        .integer(
            "neighbourhood", \.time.metering.neighbourhood, in: 0...60,
            "The slices before a slice whose queries count with it ({range})."),
        .duration(
            "grace-seconds", \.time.metering.grace, in: 0...600, unit: .seconds(1),
            "The gap between used slices that still counts, seconds ({range})."),
        gate(
            "gate", \.gate.time,
            "What `snooze` and `extend` ask first: any of \"phrase\", \"voice\", \"puzzle\" (all to be passed)."),
    ]

    static let hourlySection: [Setting<PolicySettings>] = [
        window(\.hourly.window),
        .bool(
            "open-on-first-query", \.hourly.openOnFirstQuery,
            "Open the window on the hour's first query instead of on `lockr unlock`."),
        gate("gate", \.gate.hourly, "What `lockr unlock` asks first, as in [time]."),
    ]

    static let extremeSection: [Setting<PolicySettings>] = [
        Setting(
            "phrase", \.extreme.phrase, "The sentence; {minutes} stands for the window's length.",
            read: { reader, key in
                guard let text = reader.string(key) else { return nil }
                guard !PhraseGate.normalize(text).isEmpty else {
                    reader.problem(key, "must contain letters")
                    return nil
                }
                return text
            },
            write: quotedConfigString),
        .choice(
            "strictness", \.extreme.strictness,
            "strict (exact), normal (5% of the letters may differ) or lenient (10%)."),
        window(\.extreme.window),
        Setting(
            "gate", \.gate.extreme,
            "What `lockr unlock` asks: \"phrase\" (the sentence, given as `input` allows), \"voice\" (the sentence, spoken), \"puzzle\"; several are all asked. Every mode's gate also guards changes that loosen.",
            read: { reader, key in
                guard let steps = reader.choices(key, as: GateStep.self) else { return nil }
                guard !steps.isEmpty else {
                    reader.problem(key, "must ask something (phrase, voice or puzzle): extreme mode is its gate")
                    return nil
                }
                return steps
            },
            write: written),
        .choice(
            "input", \.gate.input,
            "How the sentence may be given: \"typed\", \"voice\" (recognised on this machine) or \"either\"."),
        .integer(
            "typed-fallback-steps", \.gate.typedFallbackSteps, in: GateSettings.typedFallbackStepsRange,
            "Where it must be spoken, typing it instead first costs a wait this many steps further along the cooldown ladder (15 s, 45 s, 120 s) than wrong answers have brought you today ({range}); 0 = no wait."
        ),
    ]

    /// A mode's window, minutes: one of `HourlySettings.windowMinutes`.
    private static func window(_ path: WritableKeyPath<PolicySettings, Duration> & Sendable) -> Setting<PolicySettings>
    {
        Setting(
            "window-minutes", path, "Window per clock hour, minutes: \(HourlySettings.windowMinutes.spokenChoices).",
            read: { reader, key in
                guard let value = reader.integer(key, in: 1...60) else { return nil }
                guard HourlySettings.windowMinutes.contains(value) else {
                    reader.problem(key, "must be \(HourlySettings.windowMinutes.spokenChoices)")
                    return nil
                }
                return .seconds(value * 60)
            },
            write: { "\($0.components.seconds / 60)" })
    }

    /// A mode's gate: the steps it asks, each once.
    private static func gate(
        _ key: String, _ path: WritableKeyPath<PolicySettings, [GateStep]> & Sendable, _ summary: String
    ) -> Setting<PolicySettings> {
        Setting(key, path, summary, read: { $0.choices($1, as: GateStep.self) }, write: written)
    }

    private static func written(_ steps: [GateStep]) -> String {
        "[" + steps.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + "]"
    }
}
