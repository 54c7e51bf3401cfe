import ArgumentParser
import Foundation
import LockrAPI
import LockrControl
import LockrPolicy
import PlainText

struct SnoozeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze",
        abstract: "Time mode, budget spent: \"remind me in 5 min\", a short grace (a few per day)."
    )

    @Argument(help: ArgumentHelp("Only this app (default: every app out of budget).", valueName: "APP")) var app:
        String?
    @OptionGroup var client: ClientOptions
    @OptionGroup var person: PersonOption

    func run() async throws {
        let window = await client.perform(
            .snooze(app: app), person: person, as: Components.Schemas.WindowBody.self, why: nil, app: app)
        client.show(window) { "\($0.app ?? "Guarded apps") open until \($0.ends.spokenTime)." }
    }
}

struct ExtendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extend",
        abstract: "Time mode: \"add 10 min today\" to the budget (once a day)."
    )

    @Argument(help: ArgumentHelp("The app, when budgets are per app.", valueName: "APP")) var app: String?
    @OptionGroup var client: ClientOptions
    @OptionGroup var person: PersonOption

    func run() async throws {
        let answer = await client.perform(
            .extend(app: app), person: person, as: Components.Schemas.ExtendResponse.self, why: nil, app: app)
        client.show(answer) { "Today's budget is now \($0.budgetMinutes) min." }
    }
}

struct EmergencyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "emergency",
        abstract: "Hold for 8 seconds to open every guarded app for 5 minutes (defaults; logged, twice a day).",
        discussion: "A countdown runs; Ctrl-C cancels it and nothing is granted."
    )

    @OptionGroup var client: ClientOptions

    @OptionGroup var person: PersonOption

    func run() async throws {
        let hold = await client.perform(
            .beginEmergency, person: person, as: Components.Schemas.HoldResponse.self, why: nil)
        let deadline = ContinuousClock.now + .milliseconds(hold.waitMilliseconds)
        Self.sayCancelledOnInterrupt()
        if !client.json {
            // A terminal's line counts down in place; a pipe or a file gets the one line.
            let counting = isatty(STDOUT_FILENO) == 1
            var shown: Int64?
            while ContinuousClock.now < deadline {
                let left = deadline - ContinuousClock.now
                let seconds =
                    (left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 999) / 1000
                if shown == nil || (counting && shown != seconds) {
                    let line = "Emergency unlock in \(seconds) s... Ctrl-C cancels"
                    writeOut(counting ? "\r\(line) " : "\(line)\n")
                    shown = seconds
                }
                try await Task.sleep(for: min(left, .milliseconds(250)))
            }
            if counting { print("") }
        } else {
            try await Task.sleep(until: deadline)
        }
        let window = await client.perform(
            .completeEmergency(hold: UInt64(clamping: hold.hold)), person: person,
            as: Components.Schemas.WindowBody.self, why: nil)
        client.show(window) { "Every guarded app is open until \($0.ends.spokenTime). This was logged." }
    }

    /// Ctrl-C during the hold ends it, saying that nothing was granted (the hold is only completed
    /// by the call after it).
    private static func sayCancelledOnInterrupt() {
        signal(SIGINT) { _ in
            let text = "\nCancelled: nothing was granted.\n"
            _ = text.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
            _exit(130)
        }
    }
}

struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract:
            "Show events: locks, unlocks, gate passes and failures, emergencies, settings changes and PIN entries."
    )

    @Option(help: ArgumentHelp("How far back: 90s, 30m, 1h, 2d (default 1d).", valueName: "DURATION"))
    var since = "1d"
    @OptionGroup var client: ClientOptions
    @OptionGroup var person: PersonOption

    func validate() throws {
        guard parseDuration(since, defaultUnit: 1) != nil else {
            throw ValidationError("--since must be a duration such as 30m, 1h or 2d")
        }
    }

    func run() async throws {
        let seconds = parseDuration(since, defaultUnit: 1)!
        let log = await client.call {
            try await $0.getLog(query: .init(person: person.person, since: seconds)).ok.body.json
        }
        client.show(log) { log in
            guard !log.events.isEmpty else { return "No events in the last \(since)." }
            let typeWidth = log.events.map(\._type.count).max() ?? 0
            let appWidth = log.events.map { ($0.app ?? "all").count }.max() ?? 0
            // The person's column only when the log holds someone besides the default person.
            let people = Set(log.events.map(\.person))
            let personWidth = people == [People.defaultName] ? 0 : people.map(\.count).max() ?? 0
            return log.events.map { event in
                ([event.local]
                    + (personWidth == 0
                        ? [] : [event.person.padded(to: personWidth)]) + [
                        event._type.padded(to: typeWidth),
                        (event.app ?? "all").padded(to: appWidth), event.detail,
                    ]).joined(separator: "  ")
            }.joined(separator: "\n")
        }
    }
}
