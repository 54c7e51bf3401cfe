import ArgumentParser
import LockrAPI
import LockrControl
import LockrPolicy
import PlainText

struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps lockr can guard (the catalogue and [apps] in the config), and which are guarded.",
        discussion: "`lockr apps tik` shows the apps whose id, name or group contains 'tik'."
    )

    @Argument(help: ArgumentHelp("Only apps whose id, name or group contains this.", valueName: "TEXT"))
    var filter: String?
    @OptionGroup var client: ClientOptions
    @OptionGroup var person: PersonOption

    func run() async throws {
        let answer = await client.call { try await $0.getApps(query: .init(person: person.person)).ok.body.json }
        let needle = filter?.lowercased()
        let apps = answer.apps.filter { app in
            guard let needle else { return true }
            return [app.id, app.name.lowercased(), app.group].contains { $0.firstRange(of: needle) != nil }
        }
        client.show(Components.Schemas.AppsResponse(apps: apps)) { listing in
            guard !listing.apps.isEmpty else {
                let names = Dictionary(answer.apps.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
                let hint = filter.flatMap { AppNames.suggestion(for: $0, in: names) }.map { " Did you mean \($0)?" }
                return "No app matches '\(filter ?? "")'.\(hint ?? "")"
            }
            let idWidth = listing.apps.map(\.id.count).max() ?? 0
            let nameWidth = listing.apps.map(\.name.count).max() ?? 0
            let groupWidth = listing.apps.map(\.group.count).max() ?? 0
            return listing.apps.map { app in
                [
                    app.id.padded(to: idWidth),
                    app.name.padded(to: nameWidth),
                    app.group.padded(to: groupWidth),
                    app.guarded ? "guarded" : "",
                ].joined(separator: "  ").trimmingTrailingSpaces()
            }.joined(separator: "\n")
        }
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
