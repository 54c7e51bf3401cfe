import DNSTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import LockrAPI
import LockrControl
import LockrPolicy
import PolicyFakes
import Testing

/// Hostile input against the control API, driving a real engine: every answer must be a JSON error or
/// success with a sensible status, and nothing may trap (a trap ends this test process).
@Suite struct ControlFuzzTests {
    let token = String(repeating: "cd", count: 32)
    let start = Instant(Date(timeIntervalSince1970: 1_780_308_000))

    var auth: HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }

    func withAPI(
        _ mode: Mode, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let policy = MemoryPolicy(mode: mode, now: start)
        let app = Application(router: ControlRouter.build(policy: policy, token: token))
        try await app.test(.router) { client in try await body(client) }
    }

    func error(_ response: TestResponse) throws -> Components.Schemas.ErrorBody {
        try ControlJSON.decoder().decode(Components.Schemas.ErrorBody.self, from: Data(response.body.readableBytesView))
    }

    @Test func hugeAndOddNumbersGetClearErrors() async throws {
        try await withAPI(.time) { client in
            let cases: [(uri: String, method: HTTPRequest.Method, body: String, message: String)] = [
                ("/api/v1/log?since=10000000000000000", .get, "", "'since' must be a whole number from 0 to"),
                ("/api/v1/log?since=-1", .get, "", "'since' must be a whole number from 0 to"),
                // Too large to read as an integer at all: the range is not said.
                ("/api/v1/log?limit=99999999999999999999", .get, "", "'limit' must be a whole number"),
                (
                    "/api/v1/mode", .put, #"{"mode":"time","budget_minutes":1000000000000000}"#,
                    "budget_minutes must be 5 to 180, not 1000000000000000"
                ),
                (
                    "/api/v1/mode", .put, #"{"mode":"time","budget_minutes":-5}"#,
                    "budget_minutes must be 5 to 180, not -5"
                ),
                (
                    "/api/v1/mode", .put, #"{"mode":"time","budget_minutes":30.5}"#,
                    "bad JSON: 'budget_minutes' must be a whole number"
                ),
                (
                    "/api/v1/mode", .put, #"{"mode":"time","budget_minutes":1e300}"#,
                    "'budget_minutes' must be a whole number"
                ),
                (
                    "/api/v1/mode", .put, #"{"mode":"hourly","window_minutes":7}"#,
                    "window_minutes must be 5, 10 or 15, not 7"
                ),
                ("/api/v1/emergency", .post, #"{"hold":-1}"#, "'hold' must be a whole number"),
                ("/api/v1/emergency", .post, #"{"hold":18446744073709551616}"#, "'hold' must be a whole number"),
            ]
            for item in cases {
                let response = try await client.execute(
                    uri: item.uri, method: item.method, headers: auth, body: ByteBuffer(string: item.body))
                #expect(response.status == .badRequest, "\(item.uri) \(item.body)")
                let message = try error(response).error
                #expect(message.contains(item.message), "\(item.uri) \(item.body): \(message)")
            }
        }
    }

    /// A word that is none of its choices is named with them, in a body, in a query and in the
    /// configuration document (there with the person's name, as `lockr config import` says it).
    @Test func aWrongWordIsNamedWithItsChoices() async throws {
        try await withAPI(.hourly) { client in
            let exported = try await client.execute(uri: "/api/v1/config", method: .get, headers: auth)
            var document = try #require(
                try JSONSerialization.jsonObject(with: Data(exported.body.readableBytesView)) as? [String: Any])
            var people = try #require(document["people"] as? [[String: Any]])
            people[0]["mode"] = "strict"
            document["people"] = people
            let badDocument = String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self)
            let cases: [(uri: String, method: HTTPRequest.Method, body: String, message: String)] = [
                (
                    "/api/v1/mode", .put, #"{"mode":"hour"}"#,
                    "bad JSON: 'mode' must be one of time, hourly, extreme, not 'hour'"
                ),
                ("/api/v1/queries?blocked=maybe", .get, "", "'blocked' cannot be 'maybe'"),
                ("/api/v1/config?check=maybe", .post, badDocument, "'check' cannot be 'maybe'"),
                (
                    "/api/v1/config", .post, badDocument,
                    "people.default.mode: 'strict' is not one of time, hourly, extreme"
                ),
                ("/api/v1/config", .post, #"{"version":2,"people":[]}"#, "version: this lockr reads version 1, not 2"),
            ]
            for item in cases {
                let response = try await client.execute(
                    uri: item.uri, method: item.method, headers: auth, body: ByteBuffer(string: item.body))
                #expect(response.status == .badRequest, "\(item.uri) \(item.body)")
                #expect(try error(response).error == item.message, "\(item.uri)")
            }
        }
    }

    /// A body over 64 KiB is refused before any operation reads it; a body is JSON whatever its type
    /// says (`curl -d` says a form).
    @Test func aBodyTooLargeIsRefusedAndABodyIsJSONWhateverItsTypeSays() async throws {
        try await withAPI(.hourly) { client in
            let padding = String(repeating: " ", count: 70_000)
            let large = try await client.execute(
                uri: "/api/v1/mode", method: .put, headers: auth,
                body: ByteBuffer(string: #"{"mode":"time"\#(padding)}"#))
            #expect(large.status == .contentTooLarge)
            #expect(try error(large).error == "a request body is at most 65536 bytes")
            var form = auth
            form[.contentType] = "application/x-www-form-urlencoded"
            let curl = try await client.execute(
                uri: "/api/v1/guard", method: .post, headers: form, body: ByteBuffer(string: #"{"app":"reddit"}"#))
            #expect(curl.status == .ok)
            let notJSON = try await client.execute(
                uri: "/api/v1/mode", method: .put, headers: form, body: ByteBuffer(string: "mode=time"))
            #expect(notJSON.status == .badRequest)
            #expect(try error(notJSON).error == "bad JSON: not valid JSON")
        }
    }

    @Test func aWrongMethodIs405WithTheMethodsAllowed() async throws {
        try await withAPI(.hourly) { client in
            let unlock = try await client.execute(uri: "/api/v1/unlock", method: .get, headers: auth)
            #expect(unlock.status == .methodNotAllowed)
            #expect(unlock.headers[.allow] == "POST")
            #expect(try error(unlock).code == .methodNotAllowed)
            let guardApp = try await client.execute(uri: "/api/v1/guard/tiktok", method: .put, headers: auth)
            #expect(guardApp.status == .methodNotAllowed)
            #expect(guardApp.headers[.allow] == "DELETE")
            let nowhere = try await client.execute(uri: "/api/v1/guard/tiktok/x", method: .delete, headers: auth)
            #expect(nowhere.status == .notFound)
        }
    }

    /// Random requests from a seeded generator: methods, paths, query strings and JSON bodies full of
    /// extreme numbers, wrong types, nulls, nesting and long strings.
    @Test(arguments: [Mode.time, .hourly, .extreme])
    func randomRequestsNeverStopTheAPI(mode: Mode) async throws {
        try await withAPI(mode) { client in
            var random = SplitMix64(seed: 0x10C4 &+ UInt64(mode.rawValue.count))
            let expected: Set<Int> = [200, 400, 401, 403, 404, 405, 409, 429]
            for _ in 0..<800 {
                let request = FuzzRequest.random(using: &random)
                var headers = auth
                if random.next() % 20 == 0 { headers[.authorization] = "Bearer x" }
                let response = try await client.execute(
                    uri: request.uri, method: request.method, headers: headers, body: ByteBuffer(string: request.body))
                #expect(
                    expected.contains(response.status.code),
                    "\(request.method) \(request.uri) \(request.body) -> \(response.status)")
                let json = try? JSONSerialization.jsonObject(with: Data(response.body.readableBytesView))
                #expect(json != nil, "\(request.method) \(request.uri) \(request.body): not JSON")
            }
            let status = try await client.execute(uri: "/api/v1/status", method: .get, headers: auth)
            #expect(status.status == .ok)
        }
    }
}

struct FuzzRequest {
    let method: HTTPRequest.Method
    let uri: String
    let body: String

    static let numbers = [
        "0", "-1", "1", "5", "15", "180", "181", "30.5", "-0", "1e308", "-1e308", "9223372036854775807",
        "9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
        "99999999999999999999999", "0.000001", "1E2", "3600", "86400000",
    ]
    static let strings = [
        "tiktok", "youtube", "reddit", "myspace", "", "../status", "%2e%2e", "TikTok",
        String(repeating: "a", count: 5000),
        "\u{0}", "é", "time", "hourly", "extreme", "purple", "I am stupid enough to waste more time.",
    ]
    static let keys = ["mode", "budget_minutes", "window_minutes", "per_app", "app", "all", "phrase", "hold", "x"]
    static let paths = [
        "status", "mode", "guard", "guard/tiktok", "guard/reddit", "guard/myspace", "guard/..%2Fstatus", "unlock",
        "snooze", "extend", "emergency/hold", "emergency", "log", "log?since=", "teleport", "", "guard/",
    ]

    static func random(using random: inout SplitMix64) -> FuzzRequest {
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch]
        var path = paths[Int(random.next() % UInt64(paths.count))]
        if path.hasPrefix("log") {
            path = "log?since=\(numbers.randomElement(using: &random)!)&limit=\(numbers.randomElement(using: &random)!)"
        }
        let method = methods[Int(random.next() % UInt64(methods.count))]
        if random.next() % 2 == 0, let template = template(for: path, using: &random) {
            return FuzzRequest(method: template.method, uri: "/api/v1/" + path, body: template.body)
        }
        return FuzzRequest(
            method: method, uri: "/api/v1/" + path,
            body: random.next() % 8 == 0 ? "" : value(depth: 0, using: &random, object: true))
    }

    /// A body of the right shape for `path`, with hostile values in it.
    static func template(
        for path: String, using random: inout SplitMix64
    ) -> (method: HTTPRequest.Method, body: String)? {
        func number() -> String { numbers.randomElement(using: &random)! }
        func text() -> String { value(depth: 2, using: &random) }
        switch path {
        case "mode":
            let mode = [#""time""#, #""hourly""#, #""extreme""#, text()].randomElement(using: &random)!
            return (.put, "{\"mode\": \(mode), \"budget_minutes\": \(number()), \"window_minutes\": \(number())}")
        case "unlock": return (.post, "{\"app\": \(text()), \"phrase\": \(text())}")
        case "emergency": return (.post, "{\"hold\": \(number())}")
        case "guard", "snooze", "extend": return (.post, "{\"app\": \(text())}")
        default: return nil
        }
    }

    static func value(depth: Int, using random: inout SplitMix64, object: Bool = false) -> String {
        if object || (depth < 2 && random.next() % 6 == 0) {
            let count = Int(random.next() % 4)
            let members = (0..<count).map { _ in
                "\"\(keys.randomElement(using: &random)!)\": \(value(depth: depth + 1, using: &random))"
            }
            return "{" + members.joined(separator: ", ") + "}"
        }
        switch random.next() % 7 {
        case 0, 1: return numbers.randomElement(using: &random)!
        case 2, 3:
            let text = strings.randomElement(using: &random)!
            let data = try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
            return String(decoding: data, as: UTF8.self).dropFirst().dropLast().description
        case 4: return ["true", "false", "null"].randomElement(using: &random)!
        case 5: return "[\(numbers.randomElement(using: &random)!), \"x\"]"
        default: return "{\"mode\": \"time\", \"budget_minutes\": \(numbers.randomElement(using: &random)!)"
        }
    }
}
