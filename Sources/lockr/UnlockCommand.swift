import ArgumentParser
import Foundation
import LockrControl

struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Open the hour's window for an app, or all guarded apps (hourly and extreme modes).",
        discussion: """
            In extreme mode the sentence must be typed; it is asked for when stdin is a terminal, \
            or given with --phrase. Three wrong attempts start cooldowns of 15 s, 45 s, then 120 s.
            """
    )

    @Argument(help: ArgumentHelp("Catalogue id of the app.", valueName: "APP")) var app: String?
    @Flag(help: "Every guarded app.") var all = false
    @Option(help: ArgumentHelp("Extreme mode: the sentence, for scripts.", valueName: "TEXT")) var phrase: String?
    @OptionGroup var client: ClientOptions

    func validate() throws {
        guard (app == nil) == all else { throw ValidationError("name one app, or pass --all") }
    }

    func run() async throws {
        var request = UnlockRequest(app: app, all: all ? true : nil, phrase: phrase)
        let answer: UnlockResponse
        do {
            answer = try await send(request)
        } catch let PhraseNeeded.prompt(message) {
            guard isatty(STDIN_FILENO) == 1 else {
                client.fail(message, body: ErrorBody(error: message, code: "phrase_required"))
            }
            print(message.replacingOccurrences(of: "extreme mode: type the phrase to unlock: ", with: "Type this:\n  "))
            print("> ", terminator: "")
            request = UnlockRequest(app: app, all: all ? true : nil, phrase: readLine() ?? "")
            answer = try await send(request)
        }
        client.show(answer) { answer in
            var lines = answer.opened.map { "\($0.app ?? "all"): open until \($0.ends.spokenTime)" }
            lines += answer.alreadyOpen.map { "\($0.app ?? "all"): already open until \($0.ends.spokenTime)" }
            return lines.joined(separator: "\n")
        }
    }

    private enum PhraseNeeded: Error { case prompt(String) }

    /// Sends the request; a missing phrase becomes `PhraseNeeded`, any other failure ends the command.
    private func send(_ request: UnlockRequest) async throws -> UnlockResponse {
        do {
            return try await client.send(.POST, "unlock", body: request, as: UnlockResponse.self)
        } catch let ControlClientError.refused(_, body) where body.code == "phrase_required" && request.phrase == nil {
            throw PhraseNeeded.prompt(body.error)
        } catch {
            client.fail(error)
        }
    }
}
