import Foundation
import LockrStore
import NIOHTTP1

/// A NextDNS profile's section: the API's address, the profile's id and the API key.
public struct NextDNSSettings: Sendable, Equatable {
    public var url = "https://api.nextdns.io"
    public var profile: String
    public var apiKey: SecretSource
}

/// NextDNS (`https://api.nextdns.io`, `X-Api-Key`).
///
/// lockr manages denylist entries of one profile and toggles their `active` flag. NextDNS entries
/// carry no comment, so lockr remembers in its state database which entries it created; an entry
/// that was there before is the user's and is never changed. A denylist entry blocks the domain and
/// its subdomains, so `*.example.com` rules become `example.com`; regex rules cannot be expressed and
/// are reported in `lockr status`.
public struct NextDNSBackend: Backend {
    public let name: String
    private let settings: NextDNSSettings
    private let http: BackendHTTP
    private let memory: OutboxStore
    private let profile: String

    public init(name: String, settings: NextDNSSettings, timeout: Duration, memory: OutboxStore) {
        self.name = name
        self.settings = settings
        self.memory = memory
        profile = BackendHTTP.escape(settings.profile)
        http = BackendHTTP(baseURL: settings.url, timeout: timeout)
    }

    public func reconcile(_ snapshot: BlockSnapshot) async throws(BackendError) -> SyncReport {
        var report = SyncReport()
        let listing = try await get("/profiles/\(profile)/denylist", as: Denylist.self).data
        let actual = Dictionary(listing.map { ($0.id, $0.active ?? true) }, uniquingKeysWith: { first, _ in first })
        var owned = try ownedEntries()
        var wanted: [String: Bool] = [:]
        for app in snapshot.apps {
            for rule in app.rules {
                switch rule {
                case .domain(let name), .subdomains(let name):
                    if wanted[name] != true { wanted[name] = app.blocked }
                case .regex(let pattern):
                    if app.blocked { report.notes.append("\(app.app): NextDNS cannot block the regex /\(pattern)/") }
                }
            }
        }
        for (domain, active) in wanted.sorted(by: { $0.key < $1.key }) {
            let isOwned = owned.contains(domain)
            if let current = actual[domain] {
                guard isOwned else {
                    report.notes.append("kept the user's own denylist entry \(domain)")
                    continue
                }
                guard current != active else { continue }
                try await write(
                    .PATCH, "/profiles/\(profile)/denylist/\(BackendHTTP.escape(domain))", ["active": active])
                report.writes += 1
            } else if active {
                try await write(.POST, "/profiles/\(profile)/denylist", Entry(id: domain, active: true))
                owned.insert(domain)
                try remember(owned)
                report.writes += 1
            }
        }
        for domain in owned.sorted() where wanted[domain] == nil {
            if actual[domain] != nil {
                try await write(.DELETE, "/profiles/\(profile)/denylist/\(BackendHTTP.escape(domain))", nil as Entry?)
                report.writes += 1
            }
            owned.remove(domain)
            try remember(owned)
        }
        return report
    }

    private func ownedEntries() throws(BackendError) -> Set<String> {
        do {
            let text = try memory.value("owned", for: name) ?? ""
            return Set(text.split(separator: "\n").map(String.init))
        } catch { throw .failed("\(error)") }
    }

    private func remember(_ owned: Set<String>) throws(BackendError) {
        do { try memory.setValue(owned.sorted().joined(separator: "\n"), "owned", for: name) } catch {
            throw .failed("\(error)")
        }
    }

    // MARK: Query log

    public func queries(after time: Date) async throws(BackendError) -> [LoggedQuery] {
        var found: [LoggedQuery] = []
        var cursor: String?
        let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<20 {
            var query = [("from", formatter.format(time)), ("limit", "1000"), ("sort", "asc")]
            if let cursor { query.append(("cursor", cursor)) }
            let page = try await get("/profiles/\(profile)/logs", query: query, as: LogPage.self)
            for entry in page.data {
                guard let at = AdGuardHomeBackend.parseTime(entry.timestamp), at > time else { continue }
                found.append(LoggedQuery(name: entry.domain, at: at, client: entry.clientIp ?? ""))
            }
            guard let next = page.meta?.pagination?.cursor, !page.data.isEmpty else { break }
            cursor = next
        }
        return found.sorted { $0.at < $1.at }
    }

    // MARK: HTTP

    private func send(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [], json body: Data? = nil
    )
        async throws(BackendError) -> HTTPReply
    {
        let reply = try await http.send(
            method, path, query: query, headers: [("X-Api-Key", try settings.apiKey.read())], json: body)
        switch reply.status {
        case 401, 403: throw .unauthorized("NextDNS refused the API key")
        case 429: throw .rateLimited("NextDNS answered 429")
        case 500...: throw .failed("NextDNS \(method) \(path): HTTP \(reply.status)")
        default: return reply
        }
    }

    private func get<T: Decodable>(
        _ path: String, query: [(String, String)] = [], as type: T.Type
    )
        async throws(BackendError) -> T
    {
        let reply = try await send(.GET, path, query: query)
        guard reply.status == 200 else { throw .failed("NextDNS GET \(path): HTTP \(reply.status) \(reply.text)") }
        return try reply.decode(T.self, "NextDNS GET \(path)")
    }

    private func write<Body: Encodable>(_ method: HTTPMethod, _ path: String, _ body: Body?) async throws(BackendError)
    {
        let reply = try await send(method, path, json: body.map { BackendHTTP.json($0) })
        guard (200..<300).contains(reply.status) || (method == .DELETE && reply.status == 404) else {
            throw .failed("NextDNS \(method) \(path): HTTP \(reply.status) \(reply.text)")
        }
    }
}

private struct Entry: Codable {
    let id: String
    let active: Bool?
}

private struct Denylist: Decodable {
    let data: [Entry]
}

private struct LogPage: Decodable {
    struct Item: Decodable {
        let timestamp: String?
        let domain: String
        let clientIp: String?
    }
    struct Meta: Decodable {
        struct Pagination: Decodable { let cursor: String? }
        let pagination: Pagination?
    }
    let data: [Item]
    let meta: Meta?
}
