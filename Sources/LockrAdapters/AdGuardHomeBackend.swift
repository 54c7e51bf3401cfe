import Foundation
import NIOHTTP1

/// An AdGuard Home's section: where it is, its user and password (none: no login), and the
/// clients the default person's rules apply to.
public struct AdGuardHomeSettings: Sendable, Equatable {
    public var url: String
    public var username: String?
    public var password: SecretSource?
    public var clients: [String] = []
}

/// AdGuard Home (`/control`, basic auth).
///
/// `set_rules` replaces the whole user rule list, so lockr reads the list, replaces only its own
/// block of lines between `! lockr:begin` and `! lockr:end` (appended at the end the first time), and
/// writes the list back with every other line as it was. The block holds the rules of the apps that
/// are blocked now (`||example.com^`); an open app has no lines. Each person's rules carry
/// `$client=` with their devices' addresses and networks; the default person's carry the backend's
/// `clients`, or else exclude every person's devices (`$client=~...`), so that each device gets its
/// own person's answers. `$client` takes no MAC address unless AdGuard Home is the network's DHCP
/// server, so MAC devices are left out (a note says so). A user edit made between lockr's read and
/// write is lost: AdGuard Home has no finer API.
public struct AdGuardHomeBackend: Backend {
    public let name: String
    private let settings: AdGuardHomeSettings
    private let http: BackendHTTP

    static let begin = "! lockr:begin (managed by lockr; lines up to lockr:end are replaced)"
    static let end = "! lockr:end"

    public init(name: String, settings: AdGuardHomeSettings, timeout: Duration) {
        self.name = name
        self.settings = settings
        http = BackendHTTP(baseURL: settings.url, timeout: timeout)
    }

    public func reconcile(_ snapshot: BlockSnapshot) async throws(BackendError) -> SyncReport {
        let status = try await get("/control/filtering/status", as: FilteringStatus.self)
        let current = status.user_rules ?? []
        var report = SyncReport()
        let merged = Self.merge(current, block: block(for: snapshot, &report))
        guard merged != current else { return report }
        let reply = try await send(.POST, "/control/filtering/set_rules", json: BackendHTTP.json(["rules": merged]))
        guard reply.status == 200 else { throw unexpected(reply, "set_rules") }
        report.writes += 1
        return report
    }

    /// lockr's lines for `snapshot`: empty when nothing is blocked.
    func block(for snapshot: BlockSnapshot, _ report: inout SyncReport) -> [String] {
        var lines: [String] = []
        let others = Self.addresses(snapshot.peoplesClients)
        let modifier =
            !settings.clients.isEmpty
            ? "$client=" + settings.clients.joined(separator: "|")
            : others.isEmpty ? "" : "$client=" + others.map { "~" + $0 }.joined(separator: "|")
        append(snapshot.blocked, modifier: modifier, label: "", to: &lines, &report)
        for person in snapshot.people where !person.blocked.isEmpty {
            let clients = Self.addresses(person.clients)
            if clients.count < person.clients.count {
                report.notes.append(
                    "\(person.person): AdGuard Home's $client takes no MAC address unless it is the DHCP server; "
                        + "list \(person.person)'s devices by address or network")
            }
            guard !clients.isEmpty else { continue }
            append(
                person.blocked, modifier: "$client=" + clients.joined(separator: "|"), label: " for \(person.person)",
                to: &lines, &report)
        }
        return lines.isEmpty ? [] : [Self.begin] + lines + [Self.end]
    }

    /// The clients `$client` can name: addresses and networks, not MAC addresses.
    static func addresses(_ clients: [String]) -> [String] {
        clients.filter { $0.wholeMatch(of: /(?i)[0-9a-f]{2}([:-][0-9a-f]{2}){5}/) == nil }
    }

    private func append(
        _ blocked: [AppBlock], modifier: String, label: String, to lines: inout [String], _ report: inout SyncReport
    ) {
        for app in blocked {
            lines.append("! lockr: \(app.app)\(label)")
            for rule in app.rules {
                switch rule {
                case .domain(let name): lines.append("||\(name)^\(modifier)")
                case .subdomains(let name):
                    lines.append("/\\.\(name.replacing(".", with: "\\."))$/\(modifier)")
                case .regex(let pattern):
                    guard !pattern.contains("/" as Character) else {
                        report.notes.append("\(app.app): regex \(pattern) holds a '/', which AdGuard rules cannot")
                        continue
                    }
                    lines.append("/\(pattern)/\(modifier)")
                }
            }
        }
    }

    /// `rules` with lockr's block replaced by `block` (or removed when it is empty), every other line
    /// kept in place. A begin marker without its end (hand-edited) takes only lockr's own lines with it.
    static func merge(_ rules: [String], block: [String]) -> [String] {
        var kept: [String] = []
        var index = rules.startIndex
        var insertAt: Int?
        while index < rules.endIndex {
            let line = rules[index]
            guard line.hasPrefix("! lockr:begin") else {
                kept.append(line)
                index += 1
                continue
            }
            if insertAt == nil { insertAt = kept.count }
            let end = rules[index...].firstIndex(of: Self.end)
            if let end {
                index = end + 1
            } else {
                index += 1
                while index < rules.endIndex, Self.looksLikeLockrLine(rules[index]) { index += 1 }
            }
        }
        guard !block.isEmpty else { return kept }
        var merged = kept
        merged.insert(contentsOf: block, at: insertAt ?? kept.count)
        return merged
    }

    private static func looksLikeLockrLine(_ line: String) -> Bool {
        line.hasPrefix("! lockr:") || line.hasPrefix("||") || line.hasPrefix("/")
    }

    // MARK: Query log

    public func queries(after time: Date) async throws(BackendError) -> [LoggedQuery] {
        var found: [LoggedQuery] = []
        var seen: Set<String> = []
        var olderThan: String?
        for _ in 0..<20 {
            var query = [("limit", "500")]
            if let olderThan { query.append(("older_than", olderThan)) }
            let page = try await get("/control/querylog", query: query, as: QueryLog.self)
            let entries = page.data ?? []
            var reachedOld = false
            for entry in entries {
                guard let at = Self.parseTime(entry.time) else { continue }
                guard at > time else {
                    reachedOld = true
                    continue
                }
                // Pages overlap where `older_than` rounds; an entry is taken once.
                let key = "\(entry.time ?? "")|\(entry.question?.name ?? "")|\(entry.client ?? "")"
                guard seen.insert(key).inserted else { continue }
                found.append(LoggedQuery(name: entry.question?.name ?? "", at: at, client: entry.client ?? ""))
            }
            guard !reachedOld, entries.count == 500, let oldest = page.oldest, !oldest.isEmpty else { break }
            olderThan = oldest
        }
        return found.filter { !$0.name.isEmpty }.sorted { $0.at < $1.at }
    }

    static func parseTime(_ text: String?) -> Date? {
        // With or without fractional seconds (Go writes up to nine digits).
        guard let text else { return nil }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    // MARK: HTTP

    private func send(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [], json body: Data? = nil
    )
        async throws(BackendError) -> HTTPReply
    {
        var headers: [(String, String)] = []
        if let secret = settings.password {
            let credentials = "\(settings.username ?? "admin"):\(try secret.read())"
            headers.append(("Authorization", "Basic " + Data(credentials.utf8).base64EncodedString()))
        }
        let reply = try await http.send(method, path, query: query, headers: headers, json: body)
        switch reply.status {
        case 401, 403: throw .unauthorized("AdGuard Home refused the user name or password")
        case 429: throw .rateLimited("AdGuard Home answered 429")
        case 500...: throw unexpected(reply, "\(method) \(path)")
        default: return reply
        }
    }

    private func get<T: Decodable>(
        _ path: String, query: [(String, String)] = [], as type: T.Type
    )
        async throws(BackendError) -> T
    {
        let reply = try await send(.GET, path, query: query)
        guard reply.status == 200 else { throw unexpected(reply, "GET \(path)") }
        return try reply.decode(T.self, "GET \(path)")
    }

    private func unexpected(_ reply: HTTPReply, _ what: String) -> BackendError {
        .failed("AdGuard Home \(what): HTTP \(reply.status) \(reply.text)")
    }
}

private struct FilteringStatus: Decodable {
    let user_rules: [String]?
}

private struct QueryLog: Decodable {
    struct Entry: Decodable {
        struct Question: Decodable { let name: String? }
        let time: String?
        let question: Question?
        let client: String?
    }
    let oldest: String?
    let data: [Entry]?
}
