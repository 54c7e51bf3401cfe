import Foundation
import Synchronization

/// Pi-hole v5's `admin/api.php` (no OpenAPI file exists): the token in the query string, and a bad
/// token answered with HTTP 200 and the text `Not authorized!`.
public final class FakePiHole5: FakeBackend {
    public let spec: OpenAPISpec? = nil
    private let token: String
    private let state = Mutex<
        (regex: [(domain: String, comment: String)], log: [(time: Date, name: String, client: String)])
    >(([], []))

    public init(token: String = "token-1") { self.token = token }

    public var regexEntries: [String: String] {
        state.withLock { Dictionary($0.regex.map { ($0.domain, $0.comment) }, uniquingKeysWith: { first, _ in first }) }
    }

    public func addUserRegex(_ regex: String) { state.withLock { $0.regex.append((regex, "mine")) } }
    public func logQuery(_ name: String, client: String = "192.168.1.23", at time: Date = Date()) {
        state.withLock { $0.log.append((time, name, client)) }
    }

    public func handle(_ request: FakeRequest) -> FakeResponse {
        guard request.path == "/admin/api.php" else { return .text(404, "Not Found") }
        guard request.query["auth"] == token else { return .text(200, "Not authorized!") }
        if request.query["getAllQueries"] != nil {
            let from = request.query["from"].flatMap(Double.init) ?? 0
            let rows = state.withLock { $0.log }.filter { $0.time.timeIntervalSince1970 >= from }.map {
                [String(Int64($0.time.timeIntervalSince1970)), "A", $0.name, $0.client, "2", "0"]
            }
            return .json(200, ["data": rows])
        }
        guard request.query["list"] == "regex_black" else {
            return .json(200, ["success": false, "message": "unsupported list"])
        }
        if let regex = request.query["add"] {
            return state.withLock { state in
                if state.regex.contains(where: { $0.domain == regex }) {
                    return .json(200, ["success": true, "message": "Not adding \(regex) as it is already on the list"])
                }
                state.regex.append((regex, request.query["comment"] ?? ""))
                return .json(200, ["success": true, "message": "Added \(regex)"])
            }
        }
        if let regex = request.query["sub"] {
            state.withLock { $0.regex.removeAll { $0.domain == regex } }
            return .json(200, ["success": true, "message": "Removed \(regex)"])
        }
        return .json(
            200,
            ["data": state.withLock { $0.regex.map { ["domain": $0.domain, "comment": $0.comment, "enabled": 1] } }])
    }
}
