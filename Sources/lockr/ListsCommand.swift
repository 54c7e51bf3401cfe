import ArgumentParser
import Foundation
import LockrAPI
import LockrControl
import NIOCore

struct ListsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lists",
        abstract: "Show the block and allow lists given by URL, and fetch them now.",
        discussion: """
            Lists given by URL in blocklists and allowlists are fetched at start and every [lists] refresh; a failed \
            fetch keeps the copy before in force. Files are read at start and on SIGHUP.
            """,
        subcommands: [Show.self, Update.self], defaultSubcommand: Show.self
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Each list's rules, when it was fetched and when it is next, and any failure.")
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let answer = await client.call { try await $0.lists().ok.body.json }
            client.show(answer) { answer in
                answer.lists.isEmpty
                    ? "No list is given by URL (blocklists and allowlists take https:// URLs)."
                    : answer.lists.map(listLines).joined(separator: "\n")
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch a list now (its name or URL, as `lockr lists` shows it), or every list, one by one.")
        @Argument(help: ArgumentHelp("The list; every list when left out.", valueName: "NAME")) var name: String?
        @OptionGroup var client: ClientOptions

        func run() async throws {
            var names = name.map { [$0] } ?? []
            if name == nil {
                names = await client.call { try await $0.lists().ok.body.json }.lists.map(\.name)
            }
            if names.isEmpty, !client.json { print("No list is given by URL.") }
            var fetched: [Components.Schemas.ListBody] = []
            var failed = false
            for (index, list) in names.enumerated() {
                if !client.json { print("[\(index + 1)/\(names.count)] fetching \(list) ...") }
                do {
                    let answer = try await client.send(timeout: .seconds(30)) {
                        try await $0.updateLists(body: .json(.init(name: list))).ok.body.json
                    }
                    fetched += answer.lists
                    failed = failed || answer.lists.contains { $0.lastError != nil }
                    if !client.json { print(answer.lists.map(listLines).joined(separator: "\n")) }
                } catch ControlClientError.unreachable(let why) where why.contains("no answer in time") {
                    failed = true
                    if !client.json { print("  still fetching after 30 s; `lockr lists` shows how it ends") }
                } catch {
                    client.fail(error)
                }
            }
            if client.json { print(ClientOptions.prettyJSON(fetched)) }
            if failed { throw ExitCode(1) }
        }
    }
}

/// A list's lines: its name and rules, then how its fetches go.
func listLines(_ list: Components.Schemas.ListBody) -> String {
    let role = list.roles.map(\.rawValue).joined(separator: "+")
    let whose = (list.shared ? ["everyone"] : []) + list.people
    var lines = ["\(list.name)  \(role) for \(whose.joined(separator: ", ")): \(list.rules) rules"]
    let checked = list.checked.map { "fetched \(shortTime($0))" } ?? "never fetched"
    let next = list.fetching ? "fetching now" : "next \(shortTime(list.next))"
    lines.append("  \(checked), \(next)" + (list.kept || list.checked == nil ? "" : " (no copy kept)"))
    if let error = list.lastError {
        let kept = list.kept ? "; the copy kept stays in force" : ""
        lines.append("  last fetch failed (\(list.failures) in a row): \(error)\(kept)")
    }
    return lines.joined(separator: "\n")
}

/// "2026-11-27 10:00" from RFC 3339 text, in this machine's time zone.
private func shortTime(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter.string(from: date)
}
