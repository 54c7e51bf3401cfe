import BackendFakes
import Foundation
import Testing

/// The spec check itself: it must reject what the specs do not allow, or the fakes prove nothing.
@Suite struct SpecCheckTests {
    static let specs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../../shared/specs"
    ).standardized.path

    let pihole = try! OpenAPISpec.shared(directory: specs + "/pihole-v6", file: "main.yaml", prefix: "/api")
    let adguard = try! OpenAPISpec.shared(directory: specs + "/adguardhome", file: "openapi.yaml", prefix: "/control")

    func json(_ text: String) -> Data { Data(text.utf8) }

    @Test func acceptsWellFormedPiHoleRequests() {
        #expect(
            pihole.check(
                method: "POST", path: "/api/auth", query: [:], contentType: "application/json",
                body: json(#"{"password":"x"}"#)) == [])
        #expect(
            pihole.check(
                method: "POST", path: "/api/domains/deny/regex", query: [:], contentType: "application/json",
                body: json(#"{"domain":["(\\.|^)a\\.com$"],"comment":"lockr:x","groups":[1,0],"enabled":true}"#)) == [])
        #expect(
            pihole.check(method: "GET", path: "/api/domains/deny", query: [:], contentType: nil, body: Data()) == [])
        #expect(
            pihole.check(
                method: "PUT", path: "/api/domains/deny/regex/%28%5C.%7C%5E%29a%5C.com%24", query: [:],
                contentType: "application/json",
                body: json(#"{"type":"deny","kind":"regex","comment":"c","groups":[1],"enabled":false}"#)) == [])
        #expect(
            pihole.check(
                method: "POST", path: "/api/domains:batchDelete", query: [:], contentType: "application/json",
                body: json(#"[{"item":"a.com","type":"deny","kind":"exact"}]"#)) == [])
        #expect(
            pihole.check(
                method: "GET", path: "/api/queries", query: ["from": "1", "until": "2", "length": "10"],
                contentType: nil, body: Data()) == [])
    }

    @Test func rejectsWhatThePiHoleSpecDoesNotAllow() {
        // Wrong enum in the path, wrong types in the body, a read-only field, no such path or query.
        #expect(
            !pihole.check(
                method: "POST", path: "/api/domains/block/regex", query: [:], contentType: "application/json",
                body: json(#"{"domain":"a.com"}"#)
            ).isEmpty)
        #expect(
            !pihole.check(
                method: "POST", path: "/api/domains/deny/exact", query: [:], contentType: "application/json",
                body: json(#"{"domain":"a.com","groups":"1"}"#)
            ).isEmpty)
        #expect(
            !pihole.check(
                method: "POST", path: "/api/domains/deny/exact", query: [:], contentType: "application/json",
                body: json(#"{"domain":"a.com","enabled":"yes"}"#)
            ).isEmpty)
        #expect(
            !pihole.check(
                method: "PUT", path: "/api/domains/deny/exact/a.com", query: [:], contentType: "application/json",
                body: json(#"{"kind":"wildcard","enabled":true}"#)
            ).isEmpty)
        #expect(
            !pihole.check(
                method: "POST", path: "/api/domains/deny/exact", query: [:], contentType: "text/plain",
                body: json(#"{"domain":"a.com"}"#)
            ).isEmpty)
        #expect(
            !pihole.check(
                method: "PATCH", path: "/api/domains/deny/exact/a.com", query: [:], contentType: nil, body: Data()
            ).isEmpty)
        #expect(!pihole.check(method: "GET", path: "/api/nothing", query: [:], contentType: nil, body: Data()).isEmpty)
        #expect(
            !pihole.check(method: "GET", path: "/api/queries", query: ["since": "1"], contentType: nil, body: Data())
                .isEmpty)
        #expect(
            !pihole.check(
                method: "POST", path: "/api/domains:batchDelete", query: [:], contentType: "application/json",
                body: json(#"[{"item":"a.com"}]"#)
            ).isEmpty)
    }

    @Test func checksAdGuardHomeRequests() {
        #expect(
            adguard.check(method: "GET", path: "/control/filtering/status", query: [:], contentType: nil, body: Data())
                == [])
        #expect(
            adguard.check(
                method: "POST", path: "/control/filtering/set_rules", query: [:], contentType: "application/json",
                body: json(#"{"rules":["||a.com^"]}"#)) == [])
        #expect(
            !adguard.check(
                method: "POST", path: "/control/filtering/set_rules", query: [:], contentType: "application/json",
                body: json(#"{"rules":"||a.com^"}"#)
            ).isEmpty)
        #expect(
            !adguard.check(
                method: "POST", path: "/control/filtering/set_rules", query: [:], contentType: nil,
                body: json(#"{"rules":[]}"#)
            ).isEmpty)
        #expect(
            adguard.check(
                method: "GET", path: "/control/querylog", query: ["limit": "500"], contentType: nil, body: Data()) == []
        )
        #expect(
            !adguard.check(
                method: "GET", path: "/control/querylog", query: ["limit": "many"], contentType: nil, body: Data()
            ).isEmpty)
    }

    @Test func checksReplies() {
        #expect(
            pihole.checkReply(
                method: "POST", path: "/api/auth", status: 200,
                body: json(
                    #"{"session":{"valid":true,"totp":false,"sid":"s","validity":300,"message":null},"took":0.1}"#))
                == [])
        #expect(
            !pihole.checkReply(
                method: "POST", path: "/api/auth", status: 200, body: json(#"{"session":{"valid":true}}"#)
            ).isEmpty)
    }
}
