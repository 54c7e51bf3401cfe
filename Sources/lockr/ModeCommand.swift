import ArgumentParser
import LockrAPI
import LockrControl
import LockrPolicy

struct ModeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mode",
        abstract: "Switch mode: time (daily budget), hourly (a window each hour) or extreme (hourly behind a phrase).",
        discussion: """
            Examples: `lockr mode time --budget 45m`, `lockr mode hourly --window 10m`, `lockr mode extreme`. \
            A stricter setting applies at once; one that loosens waits for its time (see `lockr pending`).
            """
    )

    @Argument(help: ArgumentHelp("time, hourly or extreme.", valueName: "MODE")) var mode: String
    @Option(help: ArgumentHelp("Time mode: the daily budget, 5m to 3h (45m, 1h30m).", valueName: "DURATION"))
    var budget: String?
    @Option(help: ArgumentHelp("Hourly and extreme: the window, 5m, 10m or 15m.", valueName: "DURATION")) var window:
        String?
    @Flag(inversion: .prefixedNo, help: "Time mode: one budget per app instead of one for all.") var perApp: Bool?
    @OptionGroup var client: ClientOptions
    @OptionGroup var person: PersonOption

    func validate() throws {
        _ = try chosenMode()
        if let budget, minutes(budget).map(TimeModeSettings.budgetMinutes.contains) != true {
            throw ValidationError("--budget must be whole minutes from 5m to 3h, such as 45m or 1h30m, not '\(budget)'")
        }
        if let window, minutes(window).map(HourlySettings.windowMinutes.contains) != true {
            throw ValidationError(
                "--window must be \(HourlySettings.windowMinutes.map { "\($0)m" }.spokenAlternatives), not '\(window)'")
        }
    }

    private func chosenMode() throws -> Mode {
        guard let chosen = Mode(rawValue: mode) else { throw ValidationError("mode must be time, hourly or extreme") }
        return chosen
    }

    /// `text`'s whole minutes; nil when it is no duration of whole minutes.
    private func minutes(_ text: String) -> Int? {
        parseDuration(text).flatMap { $0 % 60 == 0 ? $0 / 60 : nil }
    }

    func run() async throws {
        let action = PolicyAction.setMode(
            try chosenMode(), budget: budget.flatMap(minutes).map { .seconds($0 * 60) }, perApp: perApp,
            window: window.flatMap(minutes).map { .seconds($0 * 60) })
        let answer = await client.perform(action, person: person, as: Components.Schemas.ModeResponse.self)
        client.show(answer) { answer in
            (["Mode: \(answer.summary)."] + changeLines(answer.change)).joined(separator: "\n")
        }
    }
}
