import ArgumentParser
import Foundation
import LockrAPI
import LockrControl
import NIOCore

/// Reads a line at the terminal without showing it.
enum PinPrompt {
    static func read(_ prompt: String) -> String? {
        // Echo goes off before the prompt shows, so that nothing typed after it is ever shown.
        var saved = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if isTerminal {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &hidden)
        }
        print(prompt, terminator: "")
        fflush(nil)
        let line = readLine(strippingNewline: true)
        if isTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        print("")
        return line
    }
}

struct PinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin",
        abstract: "The household's PIN: when set, every change that loosens protection needs it.",
        discussion: """
            Unlock, snooze and extend never need it: they pass their own gates. It is kept only as a slow salted \\
            hash (scrypt); five wrong entries in a row start lockouts of 30 s, doubling up to an hour.
            """,
        subcommands: [Set.self, Change.self, Clear.self]
    )

    /// How long the daemon's answer may take to begin: it hashes a PIN slowly on purpose (scrypt, 32
    /// MiB), once or twice per call, which takes seconds on a small machine that is busy.
    static let hashingTimeout: TimeAmount = .seconds(60)

    /// Asks for a new PIN twice.
    static func newPIN(_ client: ClientOptions) -> String {
        let body = Components.Schemas.ErrorBody(error: "setting a PIN", code: .badRequest)
        let first = client.askPIN("New PIN (4 to 64 characters): ", body: body)
        let second = client.askPIN("Again: ", body: body)
        guard first == second else { client.fail("the two PINs differ; nothing changed", body: body) }
        return first
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a PIN (when none is set).")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let pin = PinCommand.newPIN(client)
            let answer = await client.call(timeout: PinCommand.hashingTimeout) {
                try await $0.setPin(body: .json(.init(pin: pin))).ok.body.json
            }
            client.show(answer) { _ in "PIN set: changes that loosen protection now need it." }
        }
    }

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change the PIN (asks for the current one).")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let current = client.askPIN(
                "Current PIN: ", body: Components.Schemas.ErrorBody(error: "the current PIN", code: .pinRequired))
            let pin = PinCommand.newPIN(client)
            do {
                _ = try await client.send(timeout: PinCommand.hashingTimeout) {
                    try await $0.setPin(headers: .init(xLockrPIN: current), body: .json(.init(pin: pin))).ok.body.json
                }
            } catch { client.fail(error) }
            print("PIN changed.")
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the PIN (asks for it).")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let current = client.askPIN(
                "PIN: ", body: Components.Schemas.ErrorBody(error: "the PIN", code: .pinRequired))
            do {
                _ = try await client.send(timeout: PinCommand.hashingTimeout) {
                    try await $0.clearPin(headers: .init(xLockrPIN: current)).ok.body.json
                }
            } catch { client.fail(error) }
            print("PIN cleared.")
        }
    }
}
