import ArgumentParser
import Foundation
import LockrAPI
import LockrControl
import PlainText

struct QueriesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queries",
        abstract: "Show the query log: who asked for which name, and what lockr answered and why.",
        discussion: """
            The log keeps each query for [query-log] retention (7 days by default), within [query-log] \
            max-size (256 MB; the oldest go first). A person whose privacy is \
            "apps" has only the names of apps logged, one whose privacy is "counts" none (their queries are only \
            counted, for `lockr stats`). When the log cannot keep up or be written (a full disk, a locked \
            database), entries are dropped rather than answers delayed; the count is shown at the end.
            """
    )

    @Flag(name: .shortAndLong, help: "Keep printing queries as they are answered, until Ctrl-C.")
    var follow = false
    @Option(help: ArgumentHelp("Only this device: an address or MAC address.", valueName: "ADDRESS"))
    var client: String?
    @Flag(help: "Only blocked queries.")
    var blocked = false
    @Option(
        help: ArgumentHelp("How far back: 90s, 30m, 1h, 2d (default: the newest, whenever).", valueName: "DURATION"))
    var since: String?
    @Option(help: "At most this many of the newest (1-10000).")
    var limit = 50
    @OptionGroup var options: ClientOptions
    @OptionGroup var person: PersonOption

    func validate() throws {
        if let since, parseDuration(since, defaultUnit: 1) == nil {
            throw ValidationError("--since must be a duration such as 30m, 1h or 2d")
        }
        guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
    }

    func run() async throws {
        var answer = await options.call { try await $0.getQueries(query: query(after: nil)).ok.body.json }
        let printer = QueryLinePrinter(json: options.json, showsPerson: person.person == nil && answer.people.count > 1)
        if !answer.enabled {
            printError("The query log is off ([query-log] enabled = false).")
            throw ExitCode(1)
        }
        if !follow {
            if options.json {
                options.show(answer) { _ in "" }
            } else {
                if answer.entries.isEmpty { print("No queries logged\(since.map { " in the last \($0)" } ?? "").") }
                for entry in answer.entries { printer.print(entry) }
                if answer.dropped > 0 {
                    print("(\(answer.dropped) entries dropped since lockr started: the log could not be written)")
                }
            }
            return
        }
        for entry in answer.entries { printer.print(entry) }
        fflush(nil)
        var last = answer.entries.last?.id ?? 0
        if answer.entries.isEmpty, let newest = try await newestID() { last = newest }
        while true {
            try await Task.sleep(for: .seconds(1))
            answer = await options.call { try await $0.getQueries(query: query(after: last)).ok.body.json }
            for entry in answer.entries { printer.print(entry) }
            // Standard output is fully buffered when it is a pipe: each line goes out as it comes.
            fflush(nil)
            last = answer.entries.last?.id ?? last
        }
    }

    /// The id of the newest entry of all, so that following starts from now.
    private func newestID() async throws -> Int64? {
        await options.call { try await $0.getQueries(query: .init(limit: 1)).ok.body.json }.entries.last?.id
    }

    private func query(after: Int64?) -> Operations.GetQueries.Input.Query {
        Operations.GetQueries.Input.Query(
            person: person.person, client: client, blocked: blocked ? ._true : nil,
            since: after == nil ? since.flatMap { parseDuration($0, defaultUnit: 1) } : nil, after: after.map(Int.init),
            limit: after == nil ? limit : 10_000)
    }
}

/// Prints logged queries one per line: as JSON objects with --json, else as columns.
struct QueryLinePrinter {
    let json: Bool
    /// Whether lines name the person (when the household has several and no one was named).
    let showsPerson: Bool

    init(json: Bool, showsPerson: Bool) {
        self.json = json
        self.showsPerson = showsPerson
    }

    func print(_ entry: Components.Schemas.QueryEntryBody) {
        if json {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Swift.print(String(decoding: (try? encoder.encode(entry)) ?? Data(), as: UTF8.self))
            return
        }
        Swift.print(line(entry))
    }

    /// "14:03:22  192.168.1.20  alice  www.tiktok.com  A  blocked  tiktok: budget spent".
    func line(_ entry: Components.Schemas.QueryEntryBody) -> String {
        let clock = LocalClock.reading(entry.at)
        let time =
            clock.date == LocalClock.reading(Date()).date ? clock.clockText(seconds: true) : clock.text(seconds: true)
        var detail = entry.outcome.rawValue
        if let reason = entry.reason { detail += " (\(reason))" }
        if let upstream = entry.upstream { detail += " by \(upstream)" }
        if let latency = entry.latencyMs { detail += " in \(PlainText.fixed(latency, decimals: 1)) ms" }
        return
            ([time, entry.client.padded(to: max(15, entry.client.count))]
            + (showsPerson ? [entry.person] : []) + [entry.name.isEmpty ? "-" : entry.name, entry._type, detail])
            .joined(separator: "  ")
    }
}
