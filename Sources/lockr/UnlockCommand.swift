import ArgumentParser
import Foundation
import LockrControl

struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Open the hour's window for an app, or all guarded apps (hourly and extreme modes).",
        discussion: """
            In extreme mode the sentence must be typed at a terminal: pasted text is refused, and an empty \
            line or Ctrl-D sends nothing. Three wrong attempts start cooldowns of 15 s, 45 s, then 120 s.
            """
    )

    @Argument(help: ArgumentHelp("Catalogue id of the app.", valueName: "APP")) var app: String?
    @Flag(help: "Every guarded app.") var all = false
    @OptionGroup var client: ClientOptions

    func validate() throws {
        guard (app == nil) == all else { throw ValidationError("name one app, or pass --all") }
    }

    func run() async throws {
        var request = UnlockRequest(app: app, all: all ? true : nil)
        let answer: UnlockResponse
        do {
            answer = try await send(request)
        } catch let PhraseNeeded.prompt(message, sentence) {
            guard isatty(STDIN_FILENO) == 1 else {
                client.fail(
                    "\(message) (at a terminal: the sentence must be typed)",
                    body: ErrorBody(error: message, code: "phrase_required"))
            }
            switch SentencePrompt.ask(sentence) {
            case .typed(let typed):
                request = UnlockRequest(app: app, all: all ? true : nil, phrase: typed)
            case .pasted:
                client.fail(
                    "pasted text is not accepted: type the sentence (nothing was sent)",
                    body: ErrorBody(error: "pasted", code: "pasted"))
            case .nothing:
                client.fail("nothing typed; nothing was sent", body: ErrorBody(error: "nothing typed", code: "cancelled"))
            }
            answer = try await send(request)
        }
        client.show(answer) { answer in
            var lines = answer.opened.map { "\($0.app ?? "all"): open until \($0.ends.spokenTime)" }
            lines += answer.alreadyOpen.map { "\($0.app ?? "all"): already open until \($0.ends.spokenTime)" }
            return lines.joined(separator: "\n")
        }
    }

    private enum PhraseNeeded: Error { case prompt(message: String, sentence: String) }

    /// Sends the request; a missing phrase becomes `PhraseNeeded`, any other failure ends the command.
    private func send(_ request: UnlockRequest) async throws -> UnlockResponse {
        do {
            return try await client.send(.POST, "unlock", body: request, as: UnlockResponse.self)
        } catch let ControlClientError.refused(_, body) where body.code == "phrase_required" && request.phrase == nil {
            let sentence = body.error.firstMatch(of: /"(.*)"$/).map { String($0.1) } ?? body.error
            throw PhraseNeeded.prompt(message: body.error, sentence: sentence)
        } catch {
            client.fail(error)
        }
    }
}
