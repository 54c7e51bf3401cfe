import Foundation
import Synchronization

/// Pi-hole v6 as its OpenAPI files and FTL v6.4 behave: sessions with few seats (429 when full),
/// `X-FTL-SID` auth on everything but login, groups (which can be disabled), clients, deny and allow
/// domains (regex and exact), the blocking switch (`pihole disable`, with a timer), the query log;
/// adding an existing domain answers 201 with the failure only in `processed.errors`. `blocks`
/// decides as FTL does: nothing while blocking is off, allow beats deny, and an entry applies only
/// through an enabled group the client is in.
public final class FakePiHole6: FakeBackend {
    public let spec: OpenAPISpec?
    public let password: String?
    public let seats: Int
    private let state = Mutex(State())

    public struct Domain: Sendable, Equatable {
        public var id: Int
        public var domain: String
        public var type: String
        public var kind: String
        public var comment: String?
        public var groups: [Int]
        public var enabled: Bool
    }

    public struct Group: Sendable, Equatable {
        public var id: Int
        public var name: String
        public var comment: String?
        public var enabled = true
    }

    public struct Client: Sendable, Equatable {
        public var id: Int
        public var client: String
        public var comment: String?
        public var groups: [Int]
    }

    private struct State {
        var sessions: [String: Int] = [:]
        var logins = 0
        var nextID = 1
        var domains: [Domain] = []
        var groups = [Group(id: 0, name: "Default", comment: "The default group")]
        var clients: [Client] = []
        var queries: [(time: Double, domain: String, client: String)] = []
        var hidden: Set<String> = []
        var blocking = true
        var blockingTimerEnds: Date?
    }

    public init(specDirectory: String, password: String? = "secret", seats: Int = 4) throws {
        spec = try OpenAPISpec.shared(directory: specDirectory, file: "main.yaml", prefix: "/api")
        self.password = password
        self.seats = seats
    }

    // MARK: Test access

    public var domains: [Domain] { state.withLock { $0.domains } }
    public var groups: [Group] { state.withLock { $0.groups } }
    public var clients: [Client] { state.withLock { $0.clients } }
    public var openSessions: Int { state.withLock { $0.sessions.count } }
    public var logins: Int { state.withLock { $0.logins } }

    /// Adds an entry as a person would in the web interface.
    public func addUserDomain(
        _ domain: String, type: String = "deny", kind: String = "exact", comment: String? = "mine"
    ) {
        state.withLock { state in
            state.domains.append(
                Domain(
                    id: state.nextID, domain: domain, type: type, kind: kind, comment: comment, groups: [0],
                    enabled: true))
            state.nextID += 1
        }
    }

    /// Switches a group off or on by hand, as the web interface's group page does.
    public func setGroup(_ name: String, enabled: Bool) {
        state.withLock { state in
            if let index = state.groups.firstIndex(where: { $0.name == name }) { state.groups[index].enabled = enabled }
        }
    }

    /// `pihole disable [for seconds]` / `pihole enable`.
    public func setBlocking(_ on: Bool, for seconds: Double? = nil) {
        state.withLock { state in
            state.blocking = on
            state.blockingTimerEnds = seconds.map { Date() + $0 }
        }
    }

    /// Adds an entry that listings do not show yet, as one added between lockr's read and write.
    public func addUnlistedDomain(_ domain: String, kind: String = "regex") {
        addUserDomain(domain, kind: kind)
        state.withLock { _ = $0.hidden.insert(domain) }
    }

    /// Deletes an entry by hand.
    public func deleteDomain(_ domain: String) { state.withLock { $0.domains.removeAll { $0.domain == domain } } }

    /// Ends every session, as a Pi-hole restart or a password change does.
    public func dropSessions() { state.withLock { $0.sessions.removeAll() } }

    public func logQuery(_ domain: String, client: String = "192.168.1.23", at time: Date = Date()) {
        state.withLock { $0.queries.append((time.timeIntervalSince1970, domain, client)) }
    }

    /// Whether a name is blocked for a client in `clientGroups` (default: Default) as FTL decides:
    /// not at all while blocking is off; an allow entry beats every deny entry; an entry counts only
    /// through an enabled group the client is in (regexes as POSIX ERE).
    public func blocks(_ name: String, groups clientGroups: Set<Int> = [0]) -> Bool {
        state.withLock { state in
            guard state.blocking else { return false }
            let live = Set(state.groups.filter(\.enabled).map(\.id)).intersection(clientGroups)
            func matches(_ type: String) -> Bool {
                state.domains.contains { entry in
                    guard entry.enabled, entry.type == type, !live.isDisjoint(with: entry.groups) else { return false }
                    if entry.kind == "exact" { return entry.domain == name }
                    return name.range(of: entry.domain, options: .regularExpression) != nil
                }
            }
            return !matches("allow") && matches("deny")
        }
    }

    /// Whether a name is blocked for `client` (an address or MAC as Pi-hole names clients): in the
    /// groups of its client entry, or only Default when it has none.
    public func blocks(_ name: String, client: String) -> Bool {
        let groups = state.withLock { state in state.clients.first { $0.client == client }.map { Set($0.groups) } }
        return blocks(name, groups: groups ?? [0])
    }

    // MARK: Handling

    public func handle(_ request: FakeRequest) -> FakeResponse {
        let path = Array(request.segments.dropFirst())  // after "api"
        if path == ["auth"] {
            switch request.method {
            case "POST": return login(request)
            case "DELETE":
                guard let sid = request.headers["x-ftl-sid"],
                    state.withLock({ $0.sessions.removeValue(forKey: sid) }) != nil
                else { return unauthorized() }
                return FakeResponse(status: 204)
            default:
                if password == nil { return .json(200, session(valid: true, sid: nil)) }
                return .json(401, session(valid: false, sid: nil))
            }
        }
        if password != nil {
            guard let sid = request.headers["x-ftl-sid"], state.withLock({ $0.sessions[sid] != nil }) else {
                return unauthorized()
            }
        }
        switch (request.method, path.first) {
        case ("GET", "groups"): return getGroups(path.count > 1 ? path[1] : nil)
        case ("POST", "groups"): return addGroup(request)
        case ("PUT", "groups") where path.count == 2: return updateGroup(path[1], request)
        case ("GET", "dns") where path == ["dns", "blocking"]: return blockingStatus()
        case ("GET", "clients"): return getClients(path.count > 1 ? path[1] : nil)
        case ("POST", "clients"): return addClient(request)
        case ("PUT", "clients") where path.count == 2: return updateClient(path[1], request)
        case ("GET", "domains"): return getDomains(Array(path.dropFirst()))
        case ("POST", "domains:batchDelete"): return batchDelete(request)
        case ("POST", "domains") where path.count == 3: return addDomains(type: path[1], kind: path[2], request)
        case ("PUT", "domains") where path.count == 4:
            return updateDomain(type: path[1], kind: path[2], domain: path[3], request)
        case ("GET", "queries"): return queries(request)
        default: return .json(404, error("not_found", "Not found"))
        }
    }

    private func login(_ request: FakeRequest) -> FakeResponse {
        guard let body = request.json() as? [String: Any], let given = body["password"] as? String else {
            return .json(400, error("bad_request", "No password found in JSON payload"))
        }
        guard given == password else {
            return .json(401, session(valid: false, sid: nil, message: "password incorrect"))
        }
        return state.withLock { state in
            guard state.sessions.count < seats else {
                return .json(429, error("api_seats_exceeded", "API seats exceeded"))
            }
            let sid = UUID().uuidString
            state.sessions[sid] = 1
            state.logins += 1
            return .json(200, session(valid: true, sid: sid, message: "correct password"))
        }
    }

    private func getGroups(_ name: String?) -> FakeResponse {
        state.withLock { state in
            .json(
                200, ["groups": state.groups.filter { name == nil || $0.name == name }.map(Self.object), "took": 0.001])
        }
    }

    private func addGroup(_ request: FakeRequest) -> FakeResponse {
        guard let body = request.json() as? [String: Any], let name = body["name"] as? String else {
            return .json(400, error("bad_request", "Invalid request body data (no valid JSON)"))
        }
        return state.withLock { state in
            if state.groups.contains(where: { $0.name == name }) {
                return .json(
                    201,
                    [
                        "groups": [],
                        "processed": [
                            "success": [], "errors": [["item": name, "error": "UNIQUE constraint failed: group.name"]],
                        ], "took": 0.001,
                    ])
            }
            let group = Group(id: state.nextID, name: name, comment: body["comment"] as? String)
            state.nextID += 1
            state.groups.append(group)
            return .json(
                201,
                [
                    "groups": [Self.object(group)], "processed": ["success": [["item": name]], "errors": []],
                    "took": 0.001,
                ])
        }
    }

    private func updateGroup(_ name: String, _ request: FakeRequest) -> FakeResponse {
        guard let body = request.json() as? [String: Any] else {
            return .json(400, error("bad_request", "Invalid request body data (no valid JSON)"))
        }
        return state.withLock { state in
            guard let index = state.groups.firstIndex(where: { $0.name == name }) else { return .json(404, ["took": 0.001]) }
            state.groups[index].name = body["name"] as? String ?? name
            state.groups[index].comment = body["comment"] as? String
            state.groups[index].enabled = body["enabled"] as? Bool ?? true
            return .json(
                200,
                [
                    "groups": [Self.object(state.groups[index])],
                    "processed": ["success": [["item": name]], "errors": []], "took": 0.001,
                ])
        }
    }

    private func blockingStatus() -> FakeResponse {
        state.withLock { state in
            if let ends = state.blockingTimerEnds, ends <= Date() {
                state.blocking.toggle()
                state.blockingTimerEnds = nil
            }
            let timer = state.blockingTimerEnds.map { $0.timeIntervalSinceNow } as Any? ?? NSNull()
            return .json(200, ["blocking": state.blocking ? "enabled" : "disabled", "timer": timer, "took": 0.001])
        }
    }

    private func getClients(_ client: String?) -> FakeResponse {
        state.withLock { state in
            .json(
                200,
                [
                    "clients": state.clients.filter { client == nil || $0.client == client }.map(Self.object),
                    "took": 0.001,
                ])
        }
    }

    private func addClient(_ request: FakeRequest) -> FakeResponse {
        guard let body = request.json() as? [String: Any], let client = body["client"] as? String else {
            return .json(400, error("bad_request", "Invalid request body data (no valid JSON)"))
        }
        return state.withLock { state in
            let entry = Client(
                id: state.nextID, client: client, comment: body["comment"] as? String,
                groups: body["groups"] as? [Int] ?? [0])
            state.nextID += 1
            state.clients.append(entry)
            return .json(
                201,
                [
                    "clients": [Self.object(entry)], "processed": ["success": [["item": client]], "errors": []],
                    "took": 0.001,
                ])
        }
    }

    private func updateClient(_ client: String, _ request: FakeRequest) -> FakeResponse {
        guard let body = request.json() as? [String: Any] else {
            return .json(400, error("bad_request", "Invalid request body data (no valid JSON)"))
        }
        return state.withLock { state in
            guard let index = state.clients.firstIndex(where: { $0.client == client }) else {
                return .json(404, ["took": 0.001])
            }
            state.clients[index].comment = body["comment"] as? String
            state.clients[index].groups = body["groups"] as? [Int] ?? [0]
            return .json(
                200,
                [
                    "clients": [Self.object(state.clients[index])],
                    "processed": ["success": [["item": client]], "errors": []], "took": 0.001,
                ])
        }
    }

    private func getDomains(_ filters: [String]) -> FakeResponse {
        state.withLock { state in
            let type = filters.first
            let kind = filters.count > 1 ? filters[1] : nil
            let domain = filters.count > 2 ? filters[2] : nil
            let found = state.domains.filter {
                !state.hidden.contains($0.domain) && (type == nil || $0.type == type)
                    && (kind == nil || $0.kind == kind) && (domain == nil || $0.domain == domain)
            }
            return .json(200, ["domains": found.map(Self.object), "took": 0.001])
        }
    }

    private func addDomains(type: String, kind: String, _ request: FakeRequest) -> FakeResponse {
        guard let body = request.json() as? [String: Any] else {
            return .json(400, error("bad_request", "Invalid request body data (no valid JSON)"))
        }
        let names = (body["domain"] as? [String]) ?? [body["domain"] as? String].compactMap { $0 }
        return state.withLock { state in
            var created: [Domain] = []
            var success: [[String: Any]] = []
            var errors: [[String: Any]] = []
            for name in names {
                if state.domains.contains(where: { $0.domain == name && $0.type == type && $0.kind == kind }) {
                    errors.append([
                        "item": name, "error": "UNIQUE constraint failed: domainlist.domain, domainlist.type",
                    ])
                    continue
                }
                let entry = Domain(
                    id: state.nextID, domain: name, type: type, kind: kind, comment: body["comment"] as? String,
                    groups: body["groups"] as? [Int] ?? [0], enabled: body["enabled"] as? Bool ?? true)
                state.nextID += 1
                state.domains.append(entry)
                created.append(entry)
                success.append(["item": name])
            }
            return .json(
                201,
                [
                    "domains": created.map(Self.object), "processed": ["success": success, "errors": errors],
                    "took": 0.001,
                ])
        }
    }

    private func updateDomain(type: String, kind: String, domain: String, _ request: FakeRequest) -> FakeResponse {
        guard let body = request.json() as? [String: Any] else {
            return .json(400, error("bad_request", "Invalid request body data (no valid JSON)"))
        }
        return state.withLock { state in
            var entry: Domain
            if let index = state.domains.firstIndex(where: { $0.domain == domain && $0.type == type && $0.kind == kind }
            ) {
                entry = state.domains[index]
                state.domains.remove(at: index)
            } else {
                entry = Domain(
                    id: state.nextID, domain: domain, type: type, kind: kind, comment: nil, groups: [0], enabled: true)
                state.nextID += 1
            }
            entry.type = body["type"] as? String ?? type
            entry.kind = body["kind"] as? String ?? kind
            entry.comment = body["comment"] as? String
            entry.groups = body["groups"] as? [Int] ?? [0]
            entry.enabled = body["enabled"] as? Bool ?? true
            state.domains.append(entry)
            return .json(
                200,
                [
                    "domains": [Self.object(entry)], "processed": ["success": [["item": domain]], "errors": []],
                    "took": 0.001,
                ])
        }
    }

    private func batchDelete(_ request: FakeRequest) -> FakeResponse {
        guard let items = request.json() as? [[String: Any]] else {
            return .json(400, error("bad_request", "Invalid request body data (no valid JSON)"))
        }
        return state.withLock { state in
            let before = state.domains.count
            for item in items {
                state.domains.removeAll {
                    $0.domain == item["item"] as? String && $0.type == item["type"] as? String
                        && $0.kind == item["kind"] as? String
                }
            }
            return before == state.domains.count ? .json(404, ["took": 0.001]) : FakeResponse(status: 204)
        }
    }

    private func queries(_ request: FakeRequest) -> FakeResponse {
        let from = request.query["from"].flatMap(Double.init) ?? 0
        let until = request.query["until"].flatMap(Double.init) ?? .infinity
        return state.withLock { state in
            let found = state.queries.enumerated().filter { $0.element.time >= from && $0.element.time <= until }
                .reversed().map { index, query -> [String: Any] in
                    [
                        "id": index + 1, "time": query.time, "type": "A", "domain": query.domain, "status": "FORWARDED",
                        "client": ["ip": query.client, "name": NSNull()],
                    ]
                }
            return .json(
                200,
                [
                    "queries": found, "cursor": found.count, "recordsTotal": found.count,
                    "recordsFiltered": found.count, "draw": 0, "took": 0.001,
                ])
        }
    }

    // MARK: Shapes

    private func session(valid: Bool, sid: String?, message: String? = nil) -> [String: Any] {
        [
            "session": [
                "valid": valid, "totp": false, "sid": sid as Any? ?? NSNull(), "csrf": sid == nil ? NSNull() : "csrf",
                "validity": valid ? 1800 : -1, "message": message as Any? ?? NSNull(),
            ], "took": 0.001,
        ]
    }

    private func unauthorized() -> FakeResponse { .json(401, error("unauthorized", "Unauthorized")) }

    private func error(_ key: String, _ message: String) -> [String: Any] {
        ["error": ["key": key, "message": message, "hint": NSNull()], "took": 0.001]
    }

    private static func object(_ domain: Domain) -> [String: Any] {
        [
            "id": domain.id, "domain": domain.domain, "unicode": domain.domain, "type": domain.type,
            "kind": domain.kind,
            "comment": domain.comment as Any? ?? NSNull(), "groups": domain.groups, "enabled": domain.enabled,
            "date_added": 1_700_000_000, "date_modified": 1_700_000_000,
        ]
    }

    private static func object(_ group: Group) -> [String: Any] {
        [
            "id": group.id, "name": group.name, "comment": group.comment as Any? ?? NSNull(), "enabled": group.enabled,
            "date_added": 1_700_000_000, "date_modified": 1_700_000_000,
        ]
    }

    private static func object(_ client: Client) -> [String: Any] {
        [
            "id": client.id, "client": client.client, "comment": client.comment as Any? ?? NSNull(),
            "groups": client.groups,
            "name": NSNull(), "date_added": 1_700_000_000, "date_modified": 1_700_000_000,
        ]
    }
}
