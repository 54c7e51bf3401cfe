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
            abstract: "Fetch a list now (its name or URL, as `lockr lists` shows it), or every list.",
            discussion: """
                Every list is fetched in one go, so the rules are built and swapped in once; each list \
                is shown as its fetch starts and ends.
                """)
        @Argument(help: ArgumentHelp("The list; every list when left out.", valueName: "NAME")) var name: String?
        @OptionGroup var client: ClientOptions

        func run() async throws {
            let before = await client.call { try await $0.lists().ok.body.json }.lists
            let names = name.map { [$0] } ?? before.map(\.name)
            if names.isEmpty {
                if client.json {
                    print(ClientOptions.prettyJSON([Components.Schemas.ListBody]()))
                } else {
                    print("No list is given by URL.")
                }
                return
            }
            // Shows each list as its fetch starts and ends, until the answer comes.
            let poller = Task { [client] in
                var progress = Progress(names: names, before: before, quiet: client.json)
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(200))
                    if !Task.isCancelled, let now = try? await client.send({ try await $0.lists().ok.body.json }) {
                        progress.show(now.lists)
                    }
                }
                return progress
            }
            // One request for all: the daemon fetches them in turn and swaps the rules in once.
            let fetched: [Components.Schemas.ListBody]
            do {
                fetched = try await client.send(timeout: .seconds(30 * Int64(names.count))) { [name] in
                    try await $0.updateLists(body: .json(.init(name: name))).ok.body.json
                }.lists
            } catch ControlClientError.unreachable(let why) where why.firstRange(of: "no answer in time") != nil {
                poller.cancel()
                if !client.json { print("  still fetching; `lockr lists` shows how it ends") }
                throw ExitCode(1)
            } catch {
                poller.cancel()
                client.fail(error)
            }
            poller.cancel()
            var progress = await poller.value
            progress.finish(fetched)
            if client.json { print(ClientOptions.prettyJSON(fetched)) }
            if fetched.contains(where: { $0.lastError != nil }) { throw ExitCode(1) }
        }

        /// What has been shown of each list's fetch: "[2/3] fetching NAME ..." as it starts, its
        /// lines once it ended (its last check or attempt moved on, and it is not fetching).
        struct Progress {
            let names: [String]
            let before: [String: Components.Schemas.ListBody]
            let quiet: Bool
            var announced = 0
            var ended = 0

            init(names: [String], before: [Components.Schemas.ListBody], quiet: Bool) {
                self.names = names
                self.before = Dictionary(before.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
                self.quiet = quiet
            }

            /// Shows what `lists` (as the daemon has them now) say started or ended, in order.
            mutating func show(_ lists: [Components.Schemas.ListBody]) {
                let now = Dictionary(lists.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
                while ended < names.count, let list = now[names[ended]] {
                    if announced == ended, list.fetching || hasEnded(list) { announce(names[ended]) }
                    guard hasEnded(list) else { return }
                    end(list)
                }
            }

            /// Shows the rest from `fetched`, the answer, in the order asked.
            mutating func finish(_ fetched: [Components.Schemas.ListBody]) {
                show(fetched)
                for list in fetched.dropFirst(ended) {
                    if announced == ended { announce(list.name) }
                    end(list)
                }
            }

            private mutating func announce(_ name: String) {
                if !quiet { print("[\(announced + 1)/\(names.count)] fetching \(name) ...") }
                announced += 1
            }

            private mutating func end(_ list: Components.Schemas.ListBody) {
                if !quiet { print(listLines(list)) }
                ended += 1
            }

            private func hasEnded(_ list: Components.Schemas.ListBody) -> Bool {
                guard !list.fetching else { return false }
                let earlier = before[list.name]
                return list.checked != earlier?.checked || list.failures != earlier?.failures
                    || list.lastError != earlier?.lastError
            }
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
private func shortTime(_ date: Date) -> String { LocalClock.reading(date).text() }
