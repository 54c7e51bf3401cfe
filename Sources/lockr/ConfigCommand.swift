import ArgumentParser
import Foundation
import LockrAPI
import LockrControl
import LockrDaemon

struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract:
            "Export the household's run-time settings as JSON, or import them; print the config file's reference.",
        discussion: """
            The document holds each person's mode, budget and windows, guarded apps, schedules, profiles and \
            gates, and the devices the config file gives them (version 1; the ConfigurationDocument schema in \
            docs/openapi.yaml describes it). \
            Devices, people, the sentence and the allowances are the config file's: an import must name the same \
            people's devices, and changes none of them.
            """,
        subcommands: [Export.self, Import.self, Reference.self]
    )

    struct Reference: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print every key of the config file with what it does and its default, as TOML: `lockr config reference > lockr.toml`."
        )

        func run() { print(LockrConfiguration.reference, terminator: "") }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the run-time settings of everyone as JSON: `lockr config export > settings.json`.")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let document: Components.Schemas.ConfigurationDocument
            do {
                document = try await client.client().call { try await $0.exportConfiguration().ok.body.json }
            } catch {
                client.fail(error)
            }
            print(ClientOptions.prettyJSON(document))
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask for the settings a JSON document gives, for everyone it names at once.",
            discussion: """
                The whole document is checked before anything changes; a bad one changes nothing and the \
                message names the field. What tightens applies at once; what loosens waits like any loosening \
                change (the mode's next reset and the commitment delay) and, where the person's mode has a \
                gate, for `lockr pending confirm ID --person P`, as a change in the config file does. A PIN, \
                when one is set, is asked for when something loosens.
                """)
        @Argument(help: ArgumentHelp("The JSON document (`-` reads standard input).", valueName: "FILE"))
        var file: String
        @Flag(help: "Only say what would change; change nothing.")
        var check = false
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let data: Data
            if file == "-" {
                data = readStandardInput()
            } else {
                guard let read = FileManager.default.contents(atPath: file) else {
                    client.fail(
                        "cannot read \(file)",
                        body: Components.Schemas.ErrorBody(error: "cannot read \(file)", code: .badRequest))
                }
                data = read
            }
            let document: Components.Schemas.ConfigurationDocument
            do throws(ConfigurationProblem) { document = try Components.Schemas.ConfigurationDocument.read(data) } catch
            {
                let message = "\(file == "-" ? "standard input" : file): \(error.description); nothing changed"
                client.fail(message, body: Components.Schemas.ErrorBody(error: message, code: .invalidConfiguration))
            }
            let answer = await send(document)
            client.show(answer) { answer in
                var lines = [answer.checked ? "Checked; nothing changed. Importing would do this:" : "Imported."]
                for person in answer.people {
                    let changes =
                        person.change.applied.isEmpty && person.change.pending.isEmpty
                        ? ["No change."] : changeLines(person.change, person: person.person)
                    lines.append("\(person.person):")
                    lines += changes.map { "  " + $0 }
                }
                return lines.joined(separator: "\n")
            }
        }

        /// Sends the document, asking for the PIN when the daemon wants it.
        private func send(
            _ document: Components.Schemas.ConfigurationDocument
        ) async -> Components.Schemas.ConfigurationImportResponse {
            var pin: String?
            while true {
                do {
                    return try await client.client().call { [check, pin] in
                        try await $0.importConfiguration(
                            query: .init(check: check ? ._true : nil), headers: .init(xLockrPIN: pin),
                            body: .json(document)
                        ).ok.body.json
                    }
                } catch ControlClientError.refused(_, let body) where body.code == .pinRequired && pin == nil {
                    pin = client.askPIN("PIN (a PIN protects settings): ", body: body)
                } catch {
                    client.fail(error)
                }
            }
        }
    }
}
