import Foundation
import NIOHTTP1

/// A Pi-hole v5's section: where it is and its API token.
public struct PiHole5Settings: Sendable, Equatable {
    public var url: String
    public var token: SecretSource
}

/// Pi-hole v5 (`/admin/api.php`, token in the query string).
///
/// lockr's entries are regex blacklist entries whose comment starts with `lockr:<app>`. v5's API has
/// no way to disable an entry or to manage groups, so an app that opens has its entries removed, and
/// entries apply to the Default group (every client). A bad token is answered with HTTP 200 and the
/// text `Not authorized!`, which lockr reports as an auth failure.
public struct PiHole5Backend: Backend {
    public let name: String
    private let settings: PiHole5Settings
    private let http: BackendHTTP

    public init(name: String, settings: PiHole5Settings, timeout: Duration) {
        self.name = name
        self.settings = settings
        http = BackendHTTP(baseURL: settings.url, timeout: timeout)
    }

    public func reconcile(_ snapshot: BlockSnapshot) async throws(BackendError) -> SyncReport {
        var report = SyncReport()
        let entries = try await call([("list", "regex_black")], as: ListReply.self).data
        let split = OwnedEntries(entries, key: \.domain, comment: \.comment)
        var wanted: Set<String> = []
        for app in snapshot.blocked {
            for rule in app.rules {
                let regex = rule.posixRegex
                wanted.insert(regex)
                if split.users.contains(regex) {
                    report.notes.append("\(app.app): kept the user's own entry \(regex)")
                } else if split.owned[regex] == nil {
                    let comment = EntryComment.forApp(app.app, note: "managed by lockr")
                    try await change([("list", "regex_black"), ("add", regex), ("comment", comment)])
                    report.writes += 1
                }
            }
        }
        for regex in split.owned.keys.sorted() where !wanted.contains(regex) {
            try await change([("list", "regex_black"), ("sub", regex)])
            report.writes += 1
        }
        return report
    }

    public func queries(after time: Date) async throws(BackendError) -> [LoggedQuery] {
        let reply = try await call(
            [
                ("getAllQueries", ""), ("from", String(Int64(time.timeIntervalSince1970))),
                ("until", String(Int64(Date().timeIntervalSince1970) + 1)),
            ],
            as: QueryReply.self)
        return reply.data.compactMap { row in
            guard row.count > 3, let seconds = Double(row[0]) else { return nil }
            let at = Date(timeIntervalSince1970: seconds)
            guard at > time else { return nil }
            return LoggedQuery(name: row[2], at: at, client: row[3])
        }.sorted { $0.at < $1.at }
    }

    private func change(_ query: [(String, String)]) async throws(BackendError) {
        let reply = try await call(query, as: ChangeReply.self)
        guard reply.success else { throw .failed("Pi-hole v5: \(reply.message ?? "change refused")") }
    }

    private func call<T: Decodable>(_ query: [(String, String)], as type: T.Type) async throws(BackendError) -> T {
        let reply = try await http.send(
            .GET, "/admin/api.php", query: query + [("auth", try settings.token.read())])
        if reply.text.hasPrefix("Not authorized") { throw .unauthorized("Pi-hole v5 did not accept the API token") }
        switch reply.status {
        case 200: return try reply.decode(T.self, "Pi-hole v5 \(query.first?.0 ?? "")")
        case 429: throw .rateLimited("Pi-hole v5 answered 429")
        default: throw .failed("Pi-hole v5: HTTP \(reply.status)")
        }
    }
}

private struct ListReply: Decodable {
    struct Entry: Decodable {
        let domain: String
        let comment: String?
    }
    let data: [Entry]
}

private struct ChangeReply: Decodable {
    let success: Bool
    let message: String?
}

private struct QueryReply: Decodable {
    let data: [[String]]
}
