import ArgumentParser
import LockrAPI
import LockrControl
import LockrPolicy
import PlainText

struct FiltersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "filters",
        abstract: "A person's own deny and allow entries, lists by URL and safe search (kept across restarts).",
        discussion: """
            An entry is one rule of a list: `games.example` (the name and its subdomains), `|games.example^` \
            (the name only), `*.games.example` (its subdomains only) or `/^games[0-9]*\\./` (a POSIX regex over the \
            name). A list is an http:// or https:// URL, fetched now and kept up to date as [lists] says; \
            `lockr lists` shows how its fetches go. An allow entry beats every block rule, a guarded app aside \
            (only its policy opens it). A deny entry or a block list applies at once; removing one, adding an \
            allow entry or an allow list, and milder safe search loosen protection: they pass the mode's gate \
            and wait like any loosening change (`lockr pending list`).
            """,
        subcommands: [List.self, Deny.self, Allow.self, Blocklist.self, Allowlist.self, Remove.self, SafeSearch.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the entries and safe search in force.")

        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            let answer = await client.call { try await $0.getFilters(query: .init(person: person.person)).ok.body.json }
            client.show(answer) { filterLines($0).joined(separator: "\n") }
        }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Block a name: `lockr filters deny games.example --comment \"homework first\"`.")

        @Argument(help: ArgumentHelp("A rule: name, |name^, *.name or /regex/.", valueName: "RULE")) var rule: String
        @OptionGroup var entry: EntryOptions

        func run() async throws { await entry.add(.deny, rule) }
    }

    struct Allow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Let a name through whatever blocks it (it loosens, so it waits): `lockr filters allow school.example`."
        )

        @Argument(help: ArgumentHelp("A rule: name, |name^, *.name or /regex/.", valueName: "RULE")) var rule: String
        @OptionGroup var entry: EntryOptions

        func run() async throws { await entry.add(.allow, rule) }
    }

    struct Blocklist: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Block every name of a list by URL (hosts, plain or adblock), kept up to date.")

        @Argument(help: ArgumentHelp("The list's http:// or https:// URL.", valueName: "URL")) var url: String
        @OptionGroup var entry: EntryOptions

        func run() async throws { await entry.add(.blocklist, url) }
    }

    struct Allowlist: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let every name of a list by URL through (it loosens, so it waits).")

        @Argument(help: ArgumentHelp("The list's http:// or https:// URL.", valueName: "URL")) var url: String
        @OptionGroup var entry: EntryOptions

        func run() async throws { await entry.add(.allowlist, url) }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an entry: `lockr filters remove deny games.example` (a deny entry or a block list waits)."
        )

        @Argument(help: ArgumentHelp("deny, allow, blocklist or allowlist.", valueName: "KIND"))
        var kind: Components.Schemas.FilterKind
        @Argument(help: ArgumentHelp("The rule or URL, as `lockr filters` shows it.", valueName: "VALUE"))
        var value: String
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func run() async throws {
            await send(
                Components.Schemas.FilterChangeRequest(change: .remove, kind: kind, value: value), client: client,
                person: person)
        }
    }

    struct SafeSearch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "safe-search",
            abstract: "Switch the search engines' strict modes on or off, and set YouTube's restricted mode.")

        @Argument(
            help: ArgumentHelp(
                "on or off: Google, Bing, DuckDuckGo and the others of the catalogue.", valueName: "on|off"))
        var state: Switch
        @Option(
            help: ArgumentHelp(
                "strict, moderate or off (default: moderate while the search engines are on).", valueName: "LEVEL"))
        var youtube: Components.Schemas.FilterChangeRequest.YoutubePayload?
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        enum Switch: String, ExpressibleByArgument { case on, off }

        func run() async throws {
            await send(
                Components.Schemas.FilterChangeRequest(change: .safeSearch, safeSearch: state == .on, youtube: youtube),
                client: client, person: person)
        }
    }

    struct EntryOptions: ParsableArguments {
        @Option(help: ArgumentHelp("Why it is there, shown beside it.", valueName: "TEXT")) var comment: String?
        @OptionGroup var client: ClientOptions
        @OptionGroup var person: PersonOption

        func add(_ kind: Components.Schemas.FilterKind, _ value: String) async {
            await send(
                Components.Schemas.FilterChangeRequest(change: .add, kind: kind, value: value, comment: comment),
                client: client, person: person)
        }
    }

    /// Checks `body` as the daemon does, sends it (with the sentence and PIN when a loosening change
    /// asks for them) and shows what it did.
    static func send(_ body: Components.Schemas.FilterChangeRequest, client: ClientOptions, person: PersonOption) async
    {
        let change: FilterChange
        do { change = try ControlRouter.filterChange(body) } catch { client.fail(error.error, body: error) }
        let answer = await client.perform(
            .changeFilters(change), person: person, as: Components.Schemas.FiltersResponse.self)
        client.show(answer) { answer in
            ((answer.change.map { changeLines($0, person: person.person) } ?? []) + filterLines(answer))
                .joined(separator: "\n")
        }
    }
}

extension Components.Schemas.FilterKind: ExpressibleByArgument {}
extension Components.Schemas.FilterChangeRequest.YoutubePayload: ExpressibleByArgument {}

/// "Safe search: search engines on, YouTube strict." then one line per entry.
func filterLines(_ answer: Components.Schemas.FiltersResponse) -> [String] {
    let safe = "Safe search: search engines \(answer.safeSearch ? "on" : "off"), YouTube \(answer.youtube.rawValue)."
    guard !answer.entries.isEmpty else {
        return [safe, "No entries of their own: `lockr filters deny NAME`, `lockr filters blocklist URL`."]
    }
    let width = answer.entries.map(\.kind.rawValue.count).max() ?? 0
    return [safe]
        + answer.entries.map { entry in
            let kind = entry.kind.rawValue.padded(to: width)
            return "\(kind)  \(entry.value)" + (entry.comment.isEmpty ? "" : "  # \(entry.comment)")
        }
}
