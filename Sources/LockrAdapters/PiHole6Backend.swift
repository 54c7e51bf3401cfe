import CivilTime
import DNSFilter
import Foundation
import LockrPolicy
import LockrStore
import NIOHTTP1
import Synchronization

/// A Pi-hole v6's section: where it is, its password (none when it asks for none), the clients
/// lockr's entries apply to (none: every client in Default) and lockr's group.
public struct PiHole6Settings: Sendable, Equatable {
    public var url: String
    public var password: SecretSource?
    public var clients: [String] = []
    public var group = "lockr"
}

/// Pi-hole v6 (FTL's REST API under `/api`).
///
/// lockr's entries are regex deny entries (`(\.|^)example\.com$` for a domain and its subdomains)
/// whose comment starts with `lockr:<app>`. The default person's reach lockr's own group (`group`,
/// created when missing) and, when no `clients` are configured, the Default group too; configured
/// clients are added to lockr's group (keeping their other groups). Each person with devices has a
/// group of their own (`lockr-alice`) holding their devices as clients. An entry is enabled in the
/// groups of those who have its app blocked now; when nobody does it is disabled, not deleted; an app
/// nobody guards any more has its entries deleted. Pi-hole puts every client in the Default group
/// too, so a person's devices also get the default person's blocks: the strictest of both holds.
/// Entries without the marker are the user's and are never changed, even for the same domain.
///
/// Auth: `POST /api/auth` with the password (or an app password) once; the session id is reused
/// (`X-FTL-SID`) until the backend answers 401, and released on shutdown, as Pi-hole has few session
/// seats (429 when they are taken). With `memory`, the session id is kept in the state database, so a
/// lockr killed or restarted takes its session up again instead of holding a second seat.
public final class PiHole6Backend: Backend {
    public let name: String
    private let settings: PiHole6Settings
    private let http: BackendHTTP
    private let session: Mutex<String?>
    /// Where the session id is kept across restarts.
    private let memory: OutboxStore?
    /// The login in flight, which concurrent callers share (each login takes one of few seats).
    private let pendingLogin = Mutex<Task<String?, any Error>?>(nil)
    /// Set once a login found that no password is needed.
    private let needsNoLogin = Mutex(false)

    static let defaultGroup = 0
    static let groupComment = "lockr: guarded apps (managed by lockr)"

    public init(name: String, settings: PiHole6Settings, timeout: Duration, memory: OutboxStore? = nil) {
        self.name = name
        self.settings = settings
        self.memory = memory
        http = BackendHTTP(baseURL: settings.url, timeout: timeout)
        session = Mutex(try? memory?.value(Self.sessionKey, for: name))
    }

    static let sessionKey = "session"

    /// Sets the session id in use, and the one kept for the next start.
    private func remember(_ sid: String?) {
        session.withLock { $0 = sid }
        try? memory?.setValue(sid, Self.sessionKey, for: name)
    }

    // MARK: Sync

    public func reconcile(_ snapshot: BlockSnapshot) async throws(BackendError) -> SyncReport {
        var report = SyncReport()
        let group = try await lockrGroup(named: settings.group, &report)
        var clientGroups: Set<Int> =
            settings.clients.isEmpty
            ? [Self.defaultGroup] : try await bind(settings.clients, to: group, settings.group, &report)
        var audiences = [
            (apps: snapshot.apps, groups: settings.clients.isEmpty ? [group, Self.defaultGroup] : [group])
        ]
        for person in snapshot.people where !person.clients.isEmpty {
            let name = Self.groupName(settings.group, person: person.person)
            let personGroup = try await lockrGroup(named: name, &report)
            clientGroups.formUnion(try await bind(person.clients, to: personGroup, name, &report))
            audiences.append((person.apps, [personGroup]))
        }
        let wanted = Self.wantedEntries(audiences)
        let entries = try await get("/api/domains/deny", as: DomainList.self).domains
        let split = OwnedEntries(entries, key: \.key, comment: \.comment)
        var missing: [MissingBatch: [String]] = [:]
        for (key, entry) in wanted.sorted(by: { $0.key.domain < $1.key.domain }) {
            let comment = EntryComment.forApp(entry.app, note: "managed by lockr; changes are undone")
            if split.users.contains(key) {
                report.notes.append("\(entry.app): kept the user's own entry \(key.domain)")
                continue
            }
            if let owned = split.owned[key] {
                if owned.enabled != entry.enabled || Set(owned.groups) != Set(entry.groups) || owned.comment != comment
                {
                    try await put(key, DomainUpdate(comment: comment, groups: entry.groups, enabled: entry.enabled))
                    report.writes += 1
                }
            } else if entry.enabled {
                missing[MissingBatch(app: entry.app, kind: key.kind, groups: entry.groups), default: []].append(
                    key.domain)
            }
        }
        for (batch, domains) in missing.sorted(by: {
            "\($0.key.app) \($0.key.groups)" < "\($1.key.app) \($1.key.groups)"
        }) {
            let comment = EntryComment.forApp(batch.app, note: "managed by lockr; changes are undone")
            let added = try await post(
                "/api/domains/deny/\(batch.kind)", NewDomains(domain: domains, comment: comment, groups: batch.groups))
            report.writes += added.processed?.success?.count ?? domains.count
            for error in added.processed?.errors ?? [] {
                report.notes.append("\(batch.app): \(error.item ?? "?") not added: \(error.error ?? "no reason given")")
            }
        }
        let stale = split.owned.keys.filter { wanted[$0] == nil }.sorted { $0.domain < $1.domain }
        if !stale.isEmpty {
            let items = stale.map { BatchItem(item: $0.domain, type: "deny", kind: $0.kind) }
            let reply = try await send(.POST, "/api/domains:batchDelete", json: BackendHTTP.json(items))
            guard reply.status == 204 || reply.status == 404 else { throw unexpected(reply, "deleting old entries") }
            report.writes += stale.count
        }
        report.notEnforcing = try await enforcementProblems(snapshot, clientGroups: clientGroups)
        return report
    }

    /// The group that holds a person's entries: `lockr-alice` beside `lockr`.
    static func groupName(_ base: String, person: String) -> String { "\(base)-\(person)" }

    /// One entry as it should be: enabled in the groups of those who have its app blocked now; when
    /// nobody does, disabled and in the groups of all who guard it.
    struct WantedEntry: Equatable {
        let app: String
        var blockedIn: Set<Int> = []
        var guardedIn: Set<Int> = []

        var enabled: Bool { !blockedIn.isEmpty }
        var groups: [Int] { (enabled ? blockedIn : guardedIn).sorted() }
    }

    /// Each rule's entry for everyone's apps (`audiences`: apps and the groups their devices are in).
    fileprivate static func wantedEntries(_ audiences: [(apps: [AppBlock], groups: [Int])]) -> [EntryKey: WantedEntry] {
        var wanted: [EntryKey: WantedEntry] = [:]
        for audience in audiences {
            for app in audience.apps {
                for rule in app.rules {
                    let key = EntryKey(kind: "regex", domain: rule.posixRegex)
                    wanted[key, default: WantedEntry(app: app.app)].guardedIn.formUnion(audience.groups)
                    if app.blocked { wanted[key]!.blockedIn.formUnion(audience.groups) }
                }
            }
        }
        return wanted
    }

    /// What keeps lockr's entries from blocking, though they are in place: switches that belong to the
    /// household and are reported, never overridden. Pi-hole's blocking turned off (`pihole disable`),
    /// the Default group disabled while lockr's entries reach every client through it, and an enabled
    /// allow entry (allow beats deny on FTL) covering a name of an app that should be blocked.
    private func enforcementProblems(
        _ snapshot: BlockSnapshot, clientGroups: Set<Int>
    ) async throws(BackendError) -> [String] {
        var problems: [String] = []
        let blocking = try await get("/api/dns/blocking", as: BlockingReply.self)
        if blocking.blocking != "enabled" {
            let until = blocking.timer.map { seconds in
                let end = ZoneDatabase.systemZone.wallClock(at: Int64((Date() + seconds).timeIntervalSince1970))
                return "until \(Schedule.clock(end.secondOfDay / 60))"
            }
            problems.append(
                "blocking is \(blocking.blocking) on Pi-hole (\(until ?? "until someone turns it back on"))")
        }
        if settings.clients.isEmpty,
            try await get("/api/groups", as: GroupList.self).groups.contains(where: {
                $0.id == Self.defaultGroup && $0.enabled == false
            })
        {
            problems.append(
                "the Default group is disabled on Pi-hole, and lockr's entries reach every client through it")
        }
        let allowed = try await get("/api/domains/allow", as: DomainList.self).domains.filter {
            $0.enabled && !clientGroups.isDisjoint(with: $0.groups)
        }
        var seen: Set<String> = []
        for app in snapshot.blocked + snapshot.people.flatMap(\.blocked) where seen.insert(app.app).inserted {
            let covering = allowed.filter { entry in app.rules.contains { AllowCoverage.covers(entry, $0) } }
            for entry in covering.prefix(3) {
                problems.append("allow entry \"\(entry.domain)\" keeps \(app.app) open")
            }
        }
        return problems
    }

    /// The id of lockr's group `name`, creating the group if it is missing and enabling it if it was
    /// disabled by hand (then its entries would stop applying to its clients).
    private func lockrGroup(named name: String, _ report: inout SyncReport) async throws(BackendError) -> Int {
        let path = "/api/groups/\(BackendHTTP.escape(name))"
        if let group = try await get(path, as: GroupList.self).groups.first(where: { $0.name == name }) {
            if group.enabled == false {
                let reply = try await send(
                    .PUT, path,
                    json: BackendHTTP.json(
                        NewGroup(name: name, comment: group.comment ?? Self.groupComment, enabled: true)))
                guard reply.status == 200 else { throw unexpected(reply, "enabling the group \(name)") }
                report.writes += 1
            }
            return group.id
        }
        let created = try await post(
            "/api/groups", NewGroup(name: name, comment: Self.groupComment, enabled: true), as: GroupList.self)
        report.writes += 1
        // Created by someone else meanwhile: the reply names it only in processed.errors.
        if let group = created.groups.first(where: { $0.name == name }) { return group.id }
        let listed = try await get(path, as: GroupList.self).groups
        guard let group = listed.first(where: { $0.name == name }) else {
            throw .failed("Pi-hole did not create the group \(name)")
        }
        return group.id
    }

    /// Puts each of `clients` in `group` (named `name`), keeping the groups it has; returns every group
    /// the clients are in.
    private func bind(
        _ clients: [String], to group: Int, _ name: String, _ report: inout SyncReport
    ) async throws(BackendError) -> Set<Int> {
        var groups: Set<Int> = [group, Self.defaultGroup]
        for client in clients {
            let path = "/api/clients/\(BackendHTTP.escape(client))"
            if let known = try await get(path, as: ClientList.self).clients.first(where: { $0.client == client }) {
                groups.formUnion(known.groups)
                guard !known.groups.contains(group) else { continue }
                let reply = try await send(
                    .PUT, path,
                    json: BackendHTTP.json(ClientUpdate(comment: known.comment, groups: known.groups + [group])))
                guard reply.status == 200 else { throw unexpected(reply, "adding \(client) to \(name)") }
            } else {
                _ = try await post(
                    "/api/clients",
                    NewClient(client: client, comment: "lockr: guarded client", groups: [Self.defaultGroup, group]),
                    as: ClientList.self)
            }
            report.writes += 1
        }
        return groups
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

    public func close() async throws(BackendError) {
        // A login still on its way ends in a session too (it runs on, uncancelled): wait for it,
        // so that its session is ended as well and not left to time out on the Pi-hole.
        if let pending = pendingLogin.withLock({ $0 }) { _ = try? await pending.value }
        guard let sid = session.withLock({ $0 }) else { return }
        let reply: HTTPReply
        do {
            reply = try await http.send(.DELETE, "/api/auth", headers: [("X-FTL-SID", sid)])
        } catch .unreachable {
            // Once more on a connection of its own: a kept-alive one may have been closed under it.
            reply = try await http.send(.DELETE, "/api/auth", headers: [("X-FTL-SID", sid)])
        }
        // 401: the session had already ended. Any other failure keeps it for the next start to take up.
        guard (200..<300).contains(reply.status) || reply.status == 401 else { throw unexpected(reply, "logout") }
        remember(nil)
    }

    private func login() async throws(BackendError) -> String? {
        guard let secret = settings.password else {
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
            remember(state.sid)
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
        if rejected == nil, needsNoLogin.withLock({ $0 }) { return nil }
        // The session is read under the login's lock: a login that ended between a look at the
        // session and this lock must not be followed by a second one, whose seat would never be freed.
        let found: (session: String?, login: Task<String?, any Error>?) = pendingLogin.withLock { pending in
            if let current = session.withLock({ $0 }), current != rejected { return (current, nil) }
            if let pending { return (nil, pending) }
            let task = Task { () async throws -> String? in try await self.login() }
            pending = task
            return (nil, task)
        }
        guard let task = found.login else { return found.session }
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
            if session.withLock({ $0 == sid }) { remember(nil) }
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
