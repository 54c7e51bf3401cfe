import ArgumentParser
import LockrAPI
import LockrControl

struct ExplainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Say what lockr would answer for a name now, and why, without asking upstream.",
        discussion: """
            The answer is the one a device of the person (or the device at --client) would get this very \
            moment: a list rule and its list, an anti-bypass name, a guarded app with its mode, window or \
            budget, schedule or profile, or nothing at all. Nothing is metered, counted or opened.
            """
    )

    @Argument(help: "The name, such as www.tiktok.com.")
    var name: String
    @Option(help: ArgumentHelp("The record type (default A).", valueName: "TYPE"))
    var type = "A"
    @Option(help: ArgumentHelp("As the device at this address would be answered.", valueName: "IP"))
    var client: String?
    @OptionGroup var options: ClientOptions
    @OptionGroup var person: PersonOption

    func validate() throws {
        if client != nil, person.person != nil { throw ValidationError("give --person or --client, not both") }
    }

    func run() async throws {
        let query = Operations.Explain.Input.Query(name: name, _type: type, person: person.person, client: client)
        let body = await options.call { try await $0.explain(query: query).ok.body.json }
        options.show(body) { body in
            var lines = [
                "\(body.name) \(body._type), for \(body.person)\(body.client.map { " (\($0))" } ?? "") in \(body.mode) mode"
            ]
            switch body.verdict {
            case .blocked: lines.append("  blocked: \(body.reason)" + (body.code.map { " [\($0.rawValue)]" } ?? ""))
            case .appOpen: lines.append("  open: \(body.reason)")
            case .allowed: lines.append("  allowed: \(body.reason)")
            case .lockr: lines.append("  answered by lockr: \(body.reason)")
            }
            if let rule = body.rule, let list = body.list { lines.append("  rule: \(rule) in \(list)") }
            lines.append("  answer: \(body.answer)")
            return lines.joined(separator: "\n")
        }
    }
}
