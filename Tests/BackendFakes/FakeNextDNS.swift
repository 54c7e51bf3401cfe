import Foundation
import Synchronization

/// The NextDNS API (no OpenAPI file is published): `X-Api-Key` auth, a profile's denylist of
/// `{id, active}` entries, its logs with cursor pagination. Errors are `{"errors": [{"code": ...}]}`.
public final class FakeNextDNS: FakeBackend {
    public let spec: OpenAPISpec? = nil
    public let profile: String
    private let key: String
    private let state = Mutex<(denylist: [(id: String, active: Bool)], log: [(time: Date, name: String)])>(([], []))

    public init(profile: String = "abc123", key: String = "key-1") {
        self.profile = profile
        self.key = key
    }

    public var denylist: [String: Bool] {
        state.withLock { Dictionary($0.denylist.map { ($0.id, $0.active) }, uniquingKeysWith: { first, _ in first }) }
    }

    public func addUserEntry(_ id: String) { state.withLock { $0.denylist.append((id, true)) } }
    public func deleteEntry(_ id: String) { state.withLock { $0.denylist.removeAll { $0.id == id } } }
    public func logQuery(_ name: String, at time: Date = Date()) { state.withLock { $0.log.append((time, name)) } }

    public func handle(_ request: FakeRequest) -> FakeResponse {
        guard request.headers["x-api-key"] == key else { return .json(403, ["errors": [["code": "forbidden"]]]) }
        let path = request.segments
        guard path.count >= 3, path[0] == "profiles", path[1] == profile else {
            return .json(404, ["errors": [["code": "notFound"]]])
        }
        switch (request.method, Array(path.dropFirst(2))) {
        case ("GET", ["denylist"]):
            return .json(200, ["data": state.withLock { $0.denylist.map { ["id": $0.id, "active": $0.active] } }])
        case ("POST", ["denylist"]):
            guard let body = request.json() as? [String: Any], let id = body["id"] as? String else {
                return .json(400, ["errors": [["code": "invalid"]]])
            }
            return state.withLock { state in
                guard !state.denylist.contains(where: { $0.id == id }) else {
                    return .json(400, ["errors": [["code": "duplicate", "source": ["pointer": "/id"]]]])
                }
                state.denylist.append((id, body["active"] as? Bool ?? true))
                return .json(200, ["data": ["id": id, "active": body["active"] as? Bool ?? true]])
            }
        case ("PATCH", let rest) where rest.count == 2 && rest[0] == "denylist":
            guard let body = request.json() as? [String: Any], let active = body["active"] as? Bool else {
                return .json(400, ["errors": [["code": "invalid"]]])
            }
            return state.withLock { state in
                guard let index = state.denylist.firstIndex(where: { $0.id == rest[1] }) else {
                    return .json(404, ["errors": [["code": "notFound"]]])
                }
                state.denylist[index].active = active
                return FakeResponse(status: 204)
            }
        case ("DELETE", let rest) where rest.count == 2 && rest[0] == "denylist":
            return state.withLock { state in
                let before = state.denylist.count
                state.denylist.removeAll { $0.id == rest[1] }
                return before == state.denylist.count
                    ? .json(404, ["errors": [["code": "notFound"]]]) : FakeResponse(status: 204)
            }
        case ("GET", ["logs"]):
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let from = request.query["from"].flatMap { formatter.date(from: $0) } ?? .distantPast
            let start = request.query["cursor"].flatMap(Int.init) ?? 0
            let limit = request.query["limit"].flatMap(Int.init) ?? 100
            let all = state.withLock { $0.log }.filter { $0.time >= from }.sorted { $0.time < $1.time }
            let page = all.dropFirst(start).prefix(limit)
            let next = start + page.count < all.count ? String(start + page.count) : nil
            return .json(
                200,
                [
                    "data": page.map {
                        [
                            "timestamp": formatter.string(from: $0.time), "domain": $0.name, "root": $0.name,
                            "status": "default",
                        ]
                    },
                    "meta": ["pagination": ["cursor": next as Any? ?? NSNull()]],
                ])
        default:
            return .json(404, ["errors": [["code": "notFound"]]])
        }
    }
}
