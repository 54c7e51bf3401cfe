import Foundation
import NIOHTTP1
import Synchronization

/// Pi-hole v6 (FTL's REST API under `/api`).
///
/// lockr's entries are regex deny entries (`(\.|^)example\.com$` for a domain and its subdomains)
/// whose comment starts with `lockr:<app>`, in lockr's own group (`group`, created when missing) and,
/// when no `clients` are configured, in the Default group too; configured clients are added to
/// lockr's group (keeping their other groups). An app that opens has its entries disabled, not
/// deleted; an app no longer guarded has them deleted. Entries without the marker are the user's and
/// are never changed, even for the same domain.
///
/// Auth: `POST /api/auth` with the password (or an app password) once; the session id is reused
/// (`X-FTL-SID`) until the backend answers 401, and released on shutdown, as Pi-hole has few session
/// seats (429 when they are taken).
public final class PiHole6Backend: Backend {
    public let name: String
    private let settings: BackendSettings
    private let http: BackendHTTP
    private let session = Mutex<String?>(nil)
    /// The login in flight, which concurrent callers share (each login takes one of few seats).
    private let pendingLogin = Mutex<Task<String?, any Error>?>(nil)
    /// Set once a login found that no password is needed.
    private let needsNoLogin = Mutex(false)

    static let defaultGroup = 0

    public init(settings: BackendSettings) {
        name = settings.name
        self.settings = settings
        http = BackendHTTP(baseURL: settings.url, timeout: settings.timeout)
    }

    // MARK: Sync

    public func reconcile(_ snapshot: BlockSnapshot) async throws(BackendError) -> SyncReport {
        var report = SyncReport()
        let group = try await lockrGroup(&report)
        if !settings.clients.isEmpty { try await bindClients(to: group, &report) }
        let groups = settings.clients.isEmpty ? [group, Self.defaultGroup] : [group]
        let entries = try await get("/api/domains/deny", as: DomainList.self).domains
        let split = OwnedEntries(entries, key: \.key, comment: \.comment)
        var wanted: Set<EntryKey> = []
        for app in snapshot.apps {
            let comment = EntryComment.forApp(app.app, note: "managed by lockr; changes are undone")
            var missing: [String: [String]] = [:]
            for rule in app.rules {
                let key = EntryKey(kind: "regex", domain: rule.posixRegex)
                wanted.insert(key)
                if split.users.contains(key) {
                    report.notes.append("\(app.app): kept the user's own entry \(key.domain)")
                    continue
                }
                if let entry = split.owned[key] {
                    if entry.enabled != app.blocked || Set(entry.groups) != Set(groups) || entry.comment != comment {
                        try await put(key, DomainUpdate(comment: comment, groups: groups, enabled: app.blocked))
                        report.writes += 1
                    }
                } else if app.blocked {
                    missing[key.kind, default: []].append(key.domain)
                }
            }
            for (kind, domains) in missing.sorted(by: { $0.key < $1.key }) {
                let added = try await post(
                    "/api/domains/deny/\(kind)", NewDomains(domain: domains, comment: comment, groups: groups))
                report.writes += added.processed?.success?.count ?? domains.count
                for error in added.processed?.errors ?? [] {
                    report.notes.append(
                        "\(app.app): \(error.item ?? "?") not added: \(error.error ?? "no reason given")")
                }
            }
        }
        let stale = split.owned.keys.filter { !wanted.contains($0) }.sorted { $0.domain < $1.domain }
        if !stale.isEmpty {
            let items = stale.map { BatchItem(item: $0.domain, type: "deny", kind: $0.kind) }
            let reply = try await send(.POST, "/api/domains:batchDelete", json: BackendHTTP.json(items))
            guard reply.status == 204 || reply.status == 404 else { throw unexpected(reply, "deleting old entries") }
            report.writes += stale.count
        }
        return report
    }

    /// lockr's group id, creating the group if it is missing.
    private func lockrGroup(_ report: inout SyncReport) async throws(BackendError) -> Int {
        let path = "/api/groups/\(BackendHTTP.escape(settings.group))"
        if let group = try await get(path, as: GroupList.self).groups.first(where: { $0.name == settings.group }) {
            return group.id
        }
        let created = try await post(
            "/api/groups",
            NewGroup(name: settings.group, comment: "lockr: guarded apps (managed by lockr)", enabled: true),
            as: GroupList.self)
        report.writes += 1
        // Created by someone else meanwhile: the reply names it only in processed.errors.
        if let group = created.groups.first(where: { $0.name == settings.group }) { return group.id }
        let listed = try await get(path, as: GroupList.self).groups
        guard let group = listed.first(where: { $0.name == settings.group }) else {
            throw .failed("Pi-hole did not create the group \(settings.group)")
        }
        return group.id
    }

    /// Puts each configured client in lockr's group, keeping the groups it has.
    private func bindClients(to group: Int, _ report: inout SyncReport) async throws(BackendError) {
        for client in settings.clients {
            let path = "/api/clients/\(BackendHTTP.escape(client))"
            if let known = try await get(path, as: ClientList.self).clients.first(where: { $0.client == client }) {
                guard !known.groups.contains(group) else { continue }
                let reply = try await send(
                    .PUT, path,
                    json: BackendHTTP.json(ClientUpdate(comment: known.comment, groups: known.groups + [group])))
                guard reply.status == 200 else { throw unexpected(reply, "adding \(client) to \(settings.group)") }
            } else {
                _ = try await post(
                    "/api/clients",
                    NewClient(client: client, comment: "lockr: guarded client", groups: [Self.defaultGroup, group]),
                    as: ClientList.self)
            }
            report.writes += 1
        }
    }

    // MARK: Query log

    public func queries(after time: Date) async throws(BackendError) -> [LoggedQuery] {
        let until = Date()
        let page = try await get(
            "/api/queries",
            query: [
                ("from", String(Int64(time.timeIntervalSince1970))),
                ("until", String(Int64(until.timeIntervalSince1970) + 1)),
                ("length", "10000"),
            ], as: QueryList.self)
        return page.queries.compactMap { query in
            let at = Date(timeIntervalSince1970: query.time)
            guard at > time else { return nil }
            return LoggedQuery(name: query.domain, at: at, client: query.client?.ip ?? "")
        }.sorted { $0.at < $1.at }
    }

    // MARK: Session

    public func close() async {
        guard let sid = session.withLock({ $0 }) else { return }
        _ = try? await http.send(.DELETE, "/api/auth", headers: [("X-FTL-SID", sid)])
        session.withLock { $0 = nil }
    }

    private func login() async throws(BackendError) -> String? {
        guard let secret = settings.secret else {
            let reply = try await http.send(.GET, "/api/auth")
            let state = try reply.decode(SessionReply.self, "Pi-hole login").session
            guard reply.status == 200, state.valid else {
                throw .unauthorized("Pi-hole asks for a password; set password-file or password-env")
            }
            needsNoLogin.withLock { $0 = true }
            return nil
        }
        let reply = try await http.send(
            .POST, "/api/auth", json: BackendHTTP.json(["password": try secret.read()]))
        switch reply.status {
        case 200:
            let state = try reply.decode(SessionReply.self, "Pi-hole login").session
            guard state.valid else { throw .unauthorized("Pi-hole did not accept the password") }
            if state.sid == nil { needsNoLogin.withLock { $0 = true } }
            session.withLock { $0 = state.sid }
            return state.sid
        case 401: throw .unauthorized("Pi-hole did not accept the password from \(secret)")
        case 429:
            throw .rateLimited(
                "Pi-hole has no free API session seat (close other sessions or raise webserver.api.max_sessions)")
        default: throw unexpected(reply, "login")
        }
    }

    /// A session id to use: the current one unless it is `rejected`, else one from a (shared) login.
    private func sessionID(replacing rejected: String? = nil) async throws(BackendError) -> String? {
        if let current = session.withLock({ $0 }), current != rejected { return current }
        if rejected == nil, needsNoLogin.withLock({ $0 }) { return nil }
        let task = pendingLogin.withLock { pending in
            if let pending { return pending }
            let task = Task { () async throws -> String? in try await self.login() }
            pending = task
            return task
        }
        defer { pendingLogin.withLock { if $0 == task { $0 = nil } } }
        do { return try await task.value } catch let error as BackendError { throw error } catch {
            throw .failed("Pi-hole login: \(error)")
        }
    }

    private func send(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [], json body: Data? = nil
    ) async throws(BackendError) -> HTTPReply {
        var sid = try await sessionID()
        var reply = try await http.send(
            method, path, query: query, headers: sid.map { [("X-FTL-SID", $0)] } ?? [], json: body)
        if reply.status == 401 {
            session.withLock { if $0 == sid { $0 = nil } }
            needsNoLogin.withLock { $0 = false }
            sid = try await sessionID(replacing: sid)
            reply = try await http.send(
                method, path, query: query, headers: sid.map { [("X-FTL-SID", $0)] } ?? [], json: body)
        }
        switch reply.status {
        case 401: throw .unauthorized("Pi-hole refused the session")
        case 429: throw .rateLimited("Pi-hole answered 429")
        case 500...: throw unexpected(reply, "\(method) \(path)")
        default: return reply
        }
    }

    private func get<T: Decodable>(
        _ path: String, query: [(String, String)] = [], as type: T.Type
    ) async throws(BackendError) -> T {
        let reply = try await send(.GET, path, query: query)
        if reply.status == 404, let empty = T.self as? EmptyListing.Type { return empty.empty as! T }
        guard reply.status == 200 else { throw unexpected(reply, "GET \(path)") }
        return try reply.decode(T.self, "GET \(path)")
    }

    private func post<Body: Encodable, T: Decodable>(
        _ path: String, _ body: Body, as type: T.Type
    ) async throws(BackendError) -> T {
        let reply = try await send(.POST, path, json: BackendHTTP.json(body))
        guard reply.status == 201 || reply.status == 200 else { throw unexpected(reply, "POST \(path)") }
        return try reply.decode(T.self, "POST \(path)")
    }

    private func post(_ path: String, _ body: NewDomains) async throws(BackendError) -> DomainList {
        try await post(path, body, as: DomainList.self)
    }

    private func put(_ key: EntryKey, _ update: DomainUpdate) async throws(BackendError) {
        let path = "/api/domains/deny/\(key.kind)/\(BackendHTTP.escape(key.domain))"
        let reply = try await send(.PUT, path, json: BackendHTTP.json(update))
        guard reply.status == 200 || reply.status == 201 else { throw unexpected(reply, "PUT \(key.domain)") }
    }

    private func unexpected(_ reply: HTTPReply, _ what: String) -> BackendError {
        let message = (try? JSONDecoder().decode(ErrorReply.self, from: reply.body)).map {
            [$0.error.message, $0.error.hint].compactMap { $0 }.joined(separator: ": ")
        }
        return .failed("Pi-hole \(what): HTTP \(reply.status)\(message.map { " (\($0))" } ?? "")")
    }
}

// MARK: - Wire shapes (domains.yaml, groups.yaml, clients.yaml, auth.yaml, queries.yaml)

/// A listing that a 404 means is empty.
private protocol EmptyListing { static var empty: Self { get } }

private struct EntryKey: Hashable {
    let kind: String
    let domain: String
}

private struct DomainEntry: Decodable {
    let domain: String
    let kind: String
    let comment: String?
    let groups: [Int]
    let enabled: Bool
    var key: EntryKey { EntryKey(kind: kind, domain: domain) }
}

private struct DomainList: Decodable, EmptyListing {
    struct Processed: Decodable {
        struct Item: Decodable {
            let item: String?
            let error: String?
        }
        let success: [Item]?
        let errors: [Item]?
    }
    let domains: [DomainEntry]
    let processed: Processed?
    static var empty: DomainList { DomainList(domains: [], processed: nil) }
}

private struct NewDomains: Encodable {
    let domain: [String]
    let comment: String
    let groups: [Int]
    var enabled = true
}

private struct DomainUpdate: Encodable {
    var type = "deny"
    var kind = "regex"
    let comment: String
    let groups: [Int]
    let enabled: Bool
}

private struct BatchItem: Encodable {
    let item: String
    let type: String
    let kind: String
}

private struct GroupList: Decodable, EmptyListing {
    struct Group: Decodable {
        let name: String
        let id: Int
    }
    let groups: [Group]
    static var empty: GroupList { GroupList(groups: []) }
}

private struct NewGroup: Encodable {
    let name: String
    let comment: String
    let enabled: Bool
}

private struct ClientList: Decodable, EmptyListing {
    struct Client: Decodable {
        let client: String
        let comment: String?
        let groups: [Int]
    }
    let clients: [Client]
    static var empty: ClientList { ClientList(clients: []) }
}

private struct NewClient: Encodable {
    let client: String
    let comment: String
    let groups: [Int]
}

private struct ClientUpdate: Encodable {
    let comment: String?
    let groups: [Int]
}

private struct SessionReply: Decodable {
    struct Session: Decodable {
        let valid: Bool
        let sid: String?
    }
    let session: Session
}

private struct ErrorReply: Decodable {
    struct Body: Decodable {
        let key: String?
        let message: String?
        let hint: String?
    }
    let error: Body
}

private struct QueryList: Decodable {
    struct Query: Decodable {
        struct Client: Decodable { let ip: String? }
        let time: Double
        let domain: String
        let client: Client?
    }
    let queries: [Query]
}
