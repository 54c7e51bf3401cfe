import DNSWire
import Foundation
import Hummingbird
import LockrAPI
import LockrPolicy
import LockrPuzzles
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

    /// The words of each schema that is an `enum` of strings, as the document lists them.
    func enums() throws -> [String: [String]] {
        try read(
            """
            schemas = document["components"]["schemas"]
            print(json.dumps({name: [str(w) for w in schema["enum"]] for name, schema in schemas.items()
                              if "enum" in schema}))
            """, as: [String: [String]].self)
    }

    /// The generated code takes the domain's own enums for these schemas
    /// (Generated/LockrAPI/openapi-generator-config.yaml): the document lists each one's words exactly.
    @Test func everyDomainEnumIsTheDocumentsEnum() throws {
        let documented = try enums()
        func words<Word: CaseIterable & RawRepresentable>(_: Word.Type) -> [String] where Word.RawValue == String {
            Word.allCases.map(\.rawValue).sorted()
        }
        let typed: [String: [String]] = [
            "Mode": words(Mode.self), "AccessCode": words(AccessCode.self),
            "AccessOpening": words(AppAccess.Opening.self), "AnswerOutcome": words(AnswerOutcome.self),
            "ActionName": words(ActionName.self), "WindowKind": words(WindowKind.self),
            "GateStep": words(GateStep.self),
            "SentenceInput": words(SentenceInput.self), "Difficulty": words(Difficulty.self),
            "PuzzleKind": words(PuzzleKind.self),
        ]
        for (property, values) in typed {
            #expect(documented[property]?.sorted() == values, "\(property) in docs/openapi.yaml")
        }
    }

    /// Generated/LockrAPI was written from this document (`scripts/generate-api` after changing it).
    @Test func theGeneratedCodeIsTheDocuments() throws {
        let root = URL(fileURLWithPath: Self.document).deletingLastPathComponent().deletingLastPathComponent()
        let hasher = Process()
        hasher.executableURL = URL(fileURLWithPath: "/bin/sh")
        hasher.arguments = ["-c", "cat docs/openapi.yaml Generated/LockrAPI/openapi-generator-config.yaml | sha256sum"]
        hasher.currentDirectoryURL = root
        let output = Pipe()
        hasher.standardOutput = output
        try hasher.run()
        let hash = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        hasher.waitUntilExit()
        let recorded = try String(
            contentsOf: root.appendingPathComponent("Generated/LockrAPI/generated-from.sha256"), encoding: .utf8)
        #expect(
            hash.prefix(64) == recorded.prefix(64),
            "docs/openapi.yaml changed since Generated/LockrAPI was written: run scripts/generate-api")
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
}
