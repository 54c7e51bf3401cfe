import ArgumentParser
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
    @OptionGroup var person: PersonOption

    func validate() throws {
        guard (app == nil) == all else { throw ValidationError("name one app, or pass --all") }
    }

    func run() async throws {
        let answer = await client.change(
            .POST, person.path("unlock"), { UnlockRequest(app: app, all: all ? true : nil, phrase: $0) }, as: UnlockResponse.self,
            why: nil)
        client.show(answer) { answer in
            var lines = answer.opened.map { "\($0.app ?? "all"): open until \($0.ends.spokenTime)" }
            lines += answer.alreadyOpen.map { "\($0.app ?? "all"): already open until \($0.ends.spokenTime)" }
            return lines.joined(separator: "\n")
        }
    }
}
