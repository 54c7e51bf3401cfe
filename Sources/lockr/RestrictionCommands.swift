import ArgumentParser
import LockrAPI
import LockrControl
import LockrPolicy
import PlainText

struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Weekly ranges that block apps whatever the mode says (bedtime, school hours).",
        discussion: """
            A schedule blocks its apps, catalogue groups (social, video, games, ...) or every guarded app \
            (`guarded`) during its range, in the person's time zone; only the emergency opens them. A range \
            whose end is not after its start runs past midnight. On the night clocks go forward, a start that \
            does not exist (02:30) begins when the clocks reach the next minute after the gap (03:00); on the \
            night they go back, a time that happens twice counts at its first occurrence. Adding a schedule \
            applies at once; removing one, or narrowing it, loosens protection and waits like any loosening \
            change (`lockr pending list`).
            """,
        subcommands: [List.self, Add.self, Remove.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the schedules in force.")

        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.call {
                try await $0.listSchedules(query: .init(person: person.person)).ok.body.json
            }
            client.show(answer) { answer in
                answer.schedules.isEmpty
                    ? "No schedule of \(answer.person)'s: `lockr schedule add NAME --days mon-fri --from 22:00 --to 07:00 --block social`."
                    : (["Schedules of \(answer.person):"] + answer.schedules.map(scheduleLine)).joined(separator: "\n")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Add a schedule, or replace the one of that name: `lockr schedule add bedtime --days mon-fri --from 22:00 --to 07:00 --block social,tiktok`."
        )

        @Argument(help: ArgumentHelp("A name, such as bedtime.", valueName: "NAME")) var name: String
        @Option(help: ArgumentHelp("Days: mon-fri, sat,sun, daily, weekdays, weekends.", valueName: "DAYS"))
        var days = "daily"
        @Option(help: ArgumentHelp("Start, local time.", valueName: "HH:MM")) var from: String
        @Option(help: ArgumentHelp("End, local time (not after the start: the next day).", valueName: "HH:MM")) var to:
            String
        @Option(help: ArgumentHelp("Apps, groups or `guarded`, separated by commas.", valueName: "LIST")) var block:
            String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let entries = listEntries(block)
            let schedule: Schedule
            do {
                schedule = try ControlRouter.schedule(
                    Components.Schemas.ScheduleRequest(name: name, days: days, from: from, to: to, block: entries))
            } catch { client.fail(error.error, body: error) }
            let answer = await client.perform(
                .addSchedule(schedule), person: person, as: Components.Schemas.SchedulesResponse.self)
            client.show(answer) { answer in
                let lines = answer.change.map { changeLines($0, person: person.person) } ?? []
                return (lines + answer.schedules.filter { $0.name == name }.map(scheduleLine)).joined(separator: "\n")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a schedule (it loosens protection, so it waits).")

        @Argument(help: ArgumentHelp("The schedule's name.", valueName: "NAME")) var name: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.perform(
                .removeSchedule(name: name), person: person, as: Components.Schemas.SchedulesResponse.self)
            client.show(answer) { answer in
                (answer.change.map { changeLines($0, person: person.person) } ?? []).joined(separator: "\n")
            }
        }
    }
}

/// The entries of "social, tiktok": split at commas, trimmed, empty ones dropped.
func listEntries(_ text: String) -> [String] {
    text.split(separator: ",").map { $0.trimmed }.filter { !$0.isEmpty }
}

/// "bedtime   mon-fri 22:00-07:00  blocks social, tiktok  · in force until 07:00".
func scheduleLine(_ schedule: Components.Schemas.ScheduleBody) -> String {
    var line =
        "\(schedule.name)  \(schedule.days) \(schedule.from)-\(schedule.to)  blocks \(schedule.block.joined(separator: ", "))"
    if let until = schedule.activeUntil { line += "  · in force until \(until.local)" }
    return line
}

/// "work  blocks social, video  · on until 18:00" or "· off".
func profileLine(_ profile: Components.Schemas.ProfileBody) -> String {
    var line = "\(profile.name)  blocks \(profile.block.joined(separator: ", "))  · "
    line += profile.active ? "on" + (profile.until.map { " until \($0.local)" } ?? "") : "off"
    return line + (profile.fromConfig ? "  (config file)" : "")
}

struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Named selections of apps blocked outright while switched on (work, homework, bedtime).",
        discussion: """
            A profile changes nothing until it is switched on, which applies at once; `--for 2h` switches it \
            off by itself. Switching it off restores exactly what the mode and schedules say, and needs the \
            household's PIN when one is set. Active profiles survive restarts. One HTTP call toggles one, for a \
            phone shortcut or an NFC tag: see docs/household.md.
            """,
        subcommands: [List.self, Show.self, Add.self, Remove.self, Activate.self, Deactivate.self, Toggle.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every profile and whether it is on.")

        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.call {
                try await $0.listProfiles(query: .init(person: person.person)).ok.body.json
            }
            client.show(answer) { answer in
                answer.profiles.isEmpty
                    ? "No profile of \(answer.person)'s: `lockr profile add work --block social,video`."
                    : (["Profiles of \(answer.person):"] + answer.profiles.map(profileLine)).joined(separator: "\n")
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one profile.")

        @Argument(help: ArgumentHelp("The profile's name.", valueName: "NAME")) var name: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.call {
                try await $0.getProfile(path: .init(name: name), query: .init(person: person.person)).ok.body.json
            }
            client.show(answer, profileLine)
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Define a profile, or redefine one: `lockr profile add work --block social,video`.")

        @Argument(help: ArgumentHelp("A name, such as work.", valueName: "NAME")) var name: String
        @Option(help: ArgumentHelp("Apps, groups or `guarded`, separated by commas.", valueName: "LIST")) var block:
            String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.perform(
                .defineProfile(Profile(name: name, block: listEntries(block))), person: person,
                as: Components.Schemas.ProfileBody.self)
            client.show(answer, profileLine)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a profile made with `lockr profile add`.")

        @Argument(help: ArgumentHelp("The profile's name.", valueName: "NAME")) var name: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.perform(
                .removeProfile(name: name), person: person, as: Components.Schemas.ProfilesResponse.self)
            client.show(answer) { _ in "Removed profile \(name)." }
        }
    }

    struct Activate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Switch a profile on, at once.")

        @Argument(help: ArgumentHelp("The profile's name.", valueName: "NAME")) var name: String
        @OptionGroup var duration: ForOption
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            await switchProfile(.activate, name, minutes: duration.minutes, client: client, person: person)
        }
    }

    struct Deactivate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Switch a profile off (the PIN, when one is set).")

        @Argument(help: ArgumentHelp("The profile's name.", valueName: "NAME")) var name: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            await switchProfile(.deactivate, name, minutes: nil, client: client, person: person)
        }
    }

    struct Toggle: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Switch a profile on when it is off, off when it is on.")

        @Argument(help: ArgumentHelp("The profile's name.", valueName: "NAME")) var name: String
        @OptionGroup var duration: ForOption
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            await switchProfile(.toggle, name, minutes: duration.minutes, client: client, person: person)
        }
    }
}

/// `--for`: how long a profile switched on stays on.
struct ForOption: ParsableArguments {
    @Option(
        name: .customLong("for"),
        help: ArgumentHelp(
            "When it switches on: off again after this long, such as 45m or 2h (at most 7d).", valueName: "DURATION"))
    var duration: String?

    func validate() throws {
        guard duration == nil || minutes != nil else {
            throw ValidationError("--for must be 1m to 7d, such as 45m or 2h, not '\(duration!)'")
        }
    }

    /// The duration in whole minutes, when one was given and is valid.
    var minutes: Int? {
        guard let duration, let seconds = parseDuration(duration), (60...7 * 86_400).contains(seconds) else {
            return nil
        }
        return seconds / 60
    }
}

/// Switches the profile `name` on (for `minutes`, else until switched off), off or over.
private func switchProfile(
    _ how: ProfileSwitch, _ name: String, minutes: Int?, client: ClientOptions, person: PersonOption
) async {
    let answer = await client.perform(
        .switchProfile(name: name, how, duration: minutes.map { .seconds($0 * 60) }), person: person,
        as: Components.Schemas.ProfileBody.self)
    client.show(answer, profileLine)
}
