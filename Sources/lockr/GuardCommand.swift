import ArgumentParser
import LockrAPI
import LockrControl
import LockrPolicy

struct GuardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guard",
        abstract: "Start or stop guarding a catalogue app (kept across restarts, on top of the config).",
        subcommands: [Add.self, Remove.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Guard an app, e.g. `lockr guard add tiktok`.")

        @Argument(help: ArgumentHelp("Catalogue id (see blocklists/).", valueName: "APP")) var app: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.perform(
                .guardApp(app), person: person, as: Components.Schemas.GuardResponse.self, why: nil)
            client.show(answer) { "Guarding \(app). Guarded: \($0.guarded.joined(separator: ", "))." }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop guarding an app.")

        @Argument(help: ArgumentHelp("Catalogue id.", valueName: "APP")) var app: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.perform(
                .unguardApp(app), person: person, as: Components.Schemas.GuardResponse.self)
            client.show(answer) { answer in
                let guarded = "Guarded: \(answer.guarded.isEmpty ? "none" : answer.guarded.joined(separator: ", "))."
                guard answer.change.applied.isEmpty else { return "No longer guarding \(app). \(guarded)" }
                return (changeLines(answer.change) + [guarded]).joined(separator: "\n")
            }
        }
    }
}
