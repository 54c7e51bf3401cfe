import ArgumentParser
import Foundation
import LockrAPI
import LockrControl
import LockrPolicy

extension ClientOptions {
    /// Asks the daemon for `action`. When the daemon wants the PIN (one is set and a settings
    /// change loosens) or its gate passed (puzzles, the sentence), asks for them at the terminal and
    /// sends again; `why` is shown before the gate.
    func perform<Answer: Codable & Sendable>(
        _ action: PolicyAction, person: PersonOption, as type: Answer.Type,
        why: String? = "This change loosens protection: it costs the mode's gate.", app: String? = nil,
        typeInstead: Bool = false, voice: VoiceClip? = nil
    ) async -> Answer {
        guard let request = action.request else {
            fail(
                "lockr cannot ask for \(action.name.rawValue) this way",
                body: Components.Schemas.ErrorBody(error: "", code: .badRequest))
        }
        var phrase: String?
        var pin: String?
        var walked = false
        while true {
            do {
                let answer = try await send { [phrase, pin] in try await request.send($0, person.person, phrase, pin) }
                guard let answer = answer as? Answer else {
                    fail(
                        ControlClientError.badAnswer("the daemon's answer to \(action.name.rawValue) is not a \(type)"))
                }
                return answer
            } catch ControlClientError.refused(_, let body) where body.code == .pinRequired && pin == nil {
                pin = askPIN("PIN (a PIN protects settings): ", body: body)
            } catch ControlClientError.refused(_, let body)
                where [.phraseRequired, .gateRequired].contains(body.code) && !walked
            {
                if let why { print(why) }
                walked = true
                phrase = await GateWalk(client: self, person: person, app: app, typeInstead: typeInstead, voice: voice)
                    .walk()
            } catch {
                fail(error)
            }
        }
    }

    /// A PIN read at the terminal without echo; ends the command when none comes.
    func askPIN(_ prompt: String, body: Components.Schemas.ErrorBody) -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            fail("\(body.error): the PIN is asked for at a terminal, without echo; run this at one", body: body)
        }
        guard let pin = PinPrompt.read(prompt), !pin.isEmpty else {
            fail(
                "nothing typed; nothing was sent",
                body: Components.Schemas.ErrorBody(error: "nothing typed", code: .cancelled))
        }
        return pin
    }
}

/// Lines for what a settings change did: what applies now, what waits and until when (the
/// commands they name say `--person` for a `person` other than the default one).
func changeLines(_ change: Components.Schemas.ChangeBody, person: String? = nil) -> [String] {
    let lines =
        change.applied.map { "Now: \($0)." } + change.pending.map { pendingLine($0, person: person) }
        + change.cancelled.map { "#\($0.id) \($0.change) — cancelled: no longer asked for." }
    return lines.isEmpty ? ["Nothing changed (`lockr pending list` shows what waits)."] : lines
}

/// "#3 time.budget-minutes: 30 min → 45 min — pending, applies at 2026-11-22 04:00 (in 9 h 13 min)".
func pendingLine(_ pending: Components.Schemas.PendingBody, person: String? = nil) -> String {
    var line = "#\(pending.id) \(pending.change) — pending, applies at \(pending.appliesAt.local)"
    if pending.appliesAt.inSeconds > 0 { line += " (in \(spoken(seconds: pending.appliesAt.inSeconds)))" }
    if pending.awaitingSentence {
        let naming = person.map { $0 == People.defaultName ? "" : " --person \($0)" } ?? ""
        line += " once the gate is passed: `lockr pending confirm \(pending.id)\(naming)`"
    }
    return line + " · from \(pending.source)"
}

struct PendingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "Changes that loosen protection, waiting for their time: list, cancel or confirm them.",
        discussion: """
            A change that loosens (a weaker mode, a bigger budget, an app no longer guarded, ...) waits for the \
            current mode's next reset (the next day in time mode, the next clock hour otherwise) and at least the \
            commitment delay; in extreme mode it costs the sentence. Tightening applies at once.
            """,
        subcommands: [List.self, Cancel.self, Confirm.self], defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the pending changes.")
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.call {
                try await $0.listPending(query: .init(person: person.person)).ok.body.json
            }
            client.show(answer) { answer in
                answer.pending.isEmpty
                    ? "No change is pending."
                    : answer.pending.map { pendingLine($0, person: person.person) }.joined(separator: "\n")
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel a pending change: the setting stays as it is.")
        @Argument(help: ArgumentHelp("The change's number (`lockr pending list`).", valueName: "ID")) var id: Int
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.perform(
                .cancelPending(id: id), person: person, as: Components.Schemas.PendingResponse.self, why: nil)
            client.show(answer) { _ in "Cancelled #\(id)." }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Type the sentence for a pending change from the config file (extreme mode).")
        @Argument(help: ArgumentHelp("The change's number (`lockr pending list`).", valueName: "ID")) var id: Int
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.perform(
                .confirmPending(id: id), person: person, as: Components.Schemas.PendingResponse.self)
            client.show(answer) { answer in
                answer.pending.first { $0.id == id }.map { "Confirmed: \(pendingLine($0))" }
                    ?? "Confirmed #\(id): it applied."
            }
        }
    }
}

struct SettingsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: "Go back to the config file's settings, dropping changes made with `lockr mode` and `lockr guard`.",
        subcommands: [Reset.self]
    )

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Drop every change made through the CLI or API (what loosens waits like any loosening change).")
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.perform(.resetSettings, person: person, as: Components.Schemas.ModeResponse.self)
            client.show(answer) { answer in
                (["Back to the config file. Mode: \(answer.summary)."] + changeLines(answer.change)).joined(
                    separator: "\n")
            }
        }
    }
}
