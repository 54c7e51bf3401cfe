import DNSWire
import Foundation
import Hummingbird
import LockrPolicy
import PolicyFakes
import Testing

@testable import LockrControl

/// docs/openapi.yaml describes exactly the routes the control API serves.
@Suite struct OpenAPIDocumentTests {
    static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml").path

    /// What `script` prints as JSON about the document (read with PyYAML; `document` is its YAML).
    func read<Answer: Decodable>(_ script: String, as type: Answer.Type) throws -> Answer {
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = [
            "python3", "-c", "import json, sys, yaml\ndocument = yaml.safe_load(open(sys.argv[1]))\n" + script,
            Self.document,
        ]
        let output = Pipe()
        reader.standardOutput = output
        try reader.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        reader.waitUntilExit()
        #expect(reader.terminationStatus == 0, "python3 with PyYAML reads \(Self.document)")
        return try JSONDecoder().decode(type, from: data)
    }

    /// "GET /api/v1/status", ... as the document lists them.
    func documented() throws -> Set<String> {
        Set(
            try read(
                """
                print(json.dumps([m.upper() + " " + p for p, ops in document["paths"].items() for m in ops
                                  if m in ("get", "put", "post", "delete", "patch")]))
                """, as: [String].self))
    }

    /// The `enum` of each schema's property, as the document lists them ("ErrorBody.code": [...]).
    func enums() throws -> [String: [String]] {
        try read(
            """
            schemas = document["components"]["schemas"]
            print(json.dumps({name + "." + key: [str(w) for w in spec["enum"]] for name, schema in schemas.items()
                              for key, spec in schema.get("properties", {}).items() if "enum" in spec}))
            """, as: [String: [String]].self)
    }

    /// Codes and verdicts cross to the CLI and to scripts as typed enums: the document lists each
    /// one's words exactly.
    @Test func everyTypedWordIsTheDocumentsEnum() throws {
        let documented = try enums()
        func words<Word: CaseIterable & RawRepresentable>(_: Word.Type) -> [String] where Word.RawValue == String {
            Word.allCases.map(\.rawValue).sorted()
        }
        let typed: [String: [String]] = [
            "ErrorBody.code": words(ErrorCode.self), "AccessBody.code": words(AccessCode.self),
            "AccessBody.opens_by": words(AppAccess.Opening.self), "DeviceBody.state": words(DeviceState.self),
            "ExplainBody.verdict": words(ExplainVerdict.self), "ExplainBody.code": words(AccessCode.self),
            "QueryEntryBody.outcome": words(AnswerOutcome.self), "EventBody.action": words(ActionName.self),
        ]
        for (property, values) in typed {
            #expect(documented[property]?.sorted() == values, "\(property) in docs/openapi.yaml")
        }
    }

    func served() -> Set<String> {
        let policy = MemoryPolicy(mode: .hourly, now: Instant(milliseconds: 1_780_000_000_000))
        return Set(ControlRouter.build(policy: policy, token: "t").routes.map(\.description))
    }

    @Test func everyRouteServedIsDocumentedAndEveryDocumentedOneIsServed() throws {
        let documented = try documented()
        let served = served()
        #expect(served.subtracting(documented).sorted() == [], "served but not in docs/openapi.yaml")
        #expect(documented.subtracting(served).sorted() == [], "in docs/openapi.yaml but not served")
        #expect(served.count > 40)
    }

    @Test func theRoutesThatTell405From404AreTheServedOnes() {
        let listed = Set(ControlRouter.routes.map { "\($0.method) /api/v1/\($0.path)" })
        let served = served().filter { $0.contains("/api/v1/") }
        let asListed = Set(served.map { $0.replacing(/\{(\w+)\}/) { ":" + $0.1 } })
        #expect(listed == asListed)
    }
}
