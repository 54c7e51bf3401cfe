import Foundation
import Synchronization

/// AdGuard Home as its OpenAPI file says: basic auth on `/control`, the user rule list replaced as a
/// whole by `set_rules`, the query log newest first. Like the real one, it wants
/// `Content-Type: application/json` on a JSON body (415 otherwise) and none on an empty POST (400).
public final class FakeAdGuardHome: FakeBackend {
    public let spec: OpenAPISpec?
    private let credentials: String
    private let state: Mutex<(rules: [String], log: [(time: Date, name: String, client: String)])>

    public init(
        specDirectory: String, user: String = "admin", password: String = "secret", rules: [String] = []
    )
        throws
    {
        spec = try OpenAPISpec.shared(directory: specDirectory, file: "openapi.yaml", prefix: "/control")
        credentials = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        state = Mutex((rules, []))
    }

    public var rules: [String] { state.withLock { $0.rules } }

    /// Edits the list as a person would in the web interface.
    public func setRules(_ rules: [String]) { state.withLock { $0.rules = rules } }

    public func logQuery(_ name: String, client: String = "192.168.1.23", at time: Date = Date()) {
        state.withLock { $0.log.append((time, name, client)) }
    }

    public func handle(_ request: FakeRequest) -> FakeResponse {
        guard request.headers["authorization"] == credentials else { return .text(401, "Unauthorized\n") }
        if request.method == "POST" {
            if request.body.isEmpty, request.headers["content-type"] != nil {
                return .text(400, "unexpected Content-Type on an empty body\n")
            }
            if !request.body.isEmpty, request.headers["content-type"]?.hasPrefix("application/json") != true {
                return .text(415, "only application/json is allowed\n")
            }
        }
        switch (request.method, request.path) {
        case ("GET", "/control/filtering/status"):
            return .json(
                200, ["enabled": true, "interval": 24, "filters": [], "whitelist_filters": [], "user_rules": rules])
        case ("POST", "/control/filtering/set_rules"):
            guard let body = request.json() as? [String: Any], let rules = body["rules"] as? [String] else {
                return .text(400, "json: cannot decode\n")
            }
            state.withLock { $0.rules = rules }
            return FakeResponse(status: 200)
        case ("GET", "/control/querylog"):
            let limit = request.query["limit"].flatMap(Int.init) ?? 500
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let olderThan = request.query["older_than"].flatMap { formatter.date(from: $0) }
            let entries = state.withLock { $0.log }.filter { olderThan == nil || $0.time < olderThan! }
                .sorted { $0.time > $1.time }.prefix(limit)
            let data: [[String: Any]] = entries.map { entry in
                [
                    "time": formatter.string(from: entry.time), "client": entry.client, "elapsedMs": "0.1",
                    "question": ["name": entry.name, "type": "A", "class": "IN"], "reason": "NotFilteredNotFound",
                    "status": "NOERROR", "upstream": "127.0.0.1:53", "cached": false, "answer_dnssec": false,
                ]
            }
            return .json(200, ["oldest": entries.last.map { formatter.string(from: $0.time) } ?? "", "data": data])
        default:
            return .text(404, "404 page not found\n")
        }
    }

    /// Whether a name is blocked for `client` by lockr's lines, as AdGuard Home would read the simple
    /// rules lockr writes (`||domain^`, `/regex/`, with an optional `$client=` list of addresses and
    /// networks, or of exclusions `~address`).
    public func blocks(_ name: String, client: String = "192.168.1.23") -> Bool {
        rules.contains { line in
            guard !line.hasPrefix("!"), !line.hasPrefix("#"), !line.isEmpty else { return false }
            var rule = line
            if let dollar = line.range(of: "$client=") {
                rule = String(line[..<dollar.lowerBound])
                let clients = line[dollar.upperBound...].split(separator: "|").map(String.init)
                let excluded = clients.filter { $0.hasPrefix("~") }.map { String($0.dropFirst()) }
                if excluded.isEmpty {
                    guard clients.contains(where: { Self.client(client, isIn: $0) }) else { return false }
                } else {
                    guard !excluded.contains(where: { Self.client(client, isIn: $0) }) else { return false }
                }
            }
            if rule.hasPrefix("||"), rule.hasSuffix("^") {
                let domain = String(rule.dropFirst(2).dropLast())
                return name == domain || name.hasSuffix("." + domain)
            }
            if rule.hasPrefix("/"), rule.hasSuffix("/"), rule.count > 2 {
                return name.range(of: String(rule.dropFirst().dropLast()), options: .regularExpression) != nil
            }
            return false
        }
    }

    /// Whether `address` is `entry` or in the IPv4 network `entry` names ("10.0.0.0/24").
    private static func client(_ address: String, isIn entry: String) -> Bool {
        guard let slash = entry.firstIndex(of: "/") else { return address == entry }
        func number(_ text: Substring) -> UInt32? {
            let parts = text.split(separator: ".").compactMap { UInt32($0) }
            return parts.count == 4 ? parts.reduce(0) { $0 << 8 | $1 } : nil
        }
        guard let network = number(entry[..<slash]), let bits = Int(entry[entry.index(after: slash)...]),
            let host = number(Substring(address)), (0...32).contains(bits)
        else { return false }
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
        return host & mask == network & mask
    }
}
