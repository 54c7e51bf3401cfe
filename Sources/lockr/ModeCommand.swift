import ArgumentParser
import LockrControl

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
        guard ["time", "hourly", "extreme"].contains(mode) else {
            throw ValidationError("mode must be time, hourly or extreme")
        }
        if let budget, !(parseDuration(budget).map { $0 % 60 == 0 && (300...10_800).contains($0) } ?? false) {
            throw ValidationError("--budget must be whole minutes from 5m to 3h, such as 45m or 1h30m, not '\(budget)'")
        }
        if let window, ![300, 600, 900].contains(parseDuration(window) ?? 0) {
            throw ValidationError("--window must be 5m, 10m or 15m, not '\(window)'")
        }
    }

    func run() async throws {
        let request = ModeRequest(
            mode: mode, budgetMinutes: budget.flatMap { parseDuration($0) }.map { $0 / 60 },
            windowMinutes: window.flatMap { parseDuration($0) }.map { $0 / 60 }, perApp: perApp)
        let answer = await client.change(.PUT, person: person, person.path("mode"), { phrase in
            ModeRequest(
                mode: request.mode, budgetMinutes: request.budgetMinutes, windowMinutes: request.windowMinutes,
                perApp: request.perApp, phrase: phrase)
        }, as: ModeResponse.self)
        client.show(answer) { answer in (["Mode: \(answer.summary)."] + changeLines(answer.change)).joined(separator: "\n") }
    }
}
