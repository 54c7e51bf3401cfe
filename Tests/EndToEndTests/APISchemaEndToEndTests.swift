import DNSTestSupport
import Foundation
import Testing

/// schemathesis (PyPI) against a live daemon: generated calls to every route docs/openapi.yaml
/// documents, each answered without a server error and within its documented schema.
@Suite struct APISchemaEndToEndTests {
    static let document = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/openapi.yaml").path

    @Test func generatedCallsGetNoServerErrorAndAnswersWithinTheSchema() async throws {
        let people = """
            [people.alice]
            devices = ["127.0.0.2"]
            [schedules.bedtime]
            from = "22:00"
            to = "07:00"
            block = ["social"]
            [profiles.work]
            block = ["video"]

            """
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: people, timeScale: 1) { lockr, _ in
            let (token, address) = try PolicyEndToEndTests().controlEndpoint(lockr)
            let workspace = NSTemporaryDirectory() + "lockr-schemathesis-\(UUID())"
            try FileManager.default.createDirectory(atPath: workspace, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: workspace) }
            // The event stream never ends and the voice route takes audio, which schemathesis cannot
            // make: the stream is tested in WatchEndToEndTests, the voice in VoiceEndToEndTests.
            let arguments = [
                "run", Self.document, "--url", "http://\(address)", "-H", "Authorization: Bearer \(token)",
                "--checks",
                "not_a_server_error,response_schema_conformance,content_type_conformance,status_code_conformance",
                "--exclude-path", "/api/v1/events", "--exclude-path", "/api/v1/gate/voice",
                "--phases", "examples,coverage,fuzzing", "--max-examples", "10", "--workers", "1",
                "--request-timeout", "20",
            ]
            let quoted = arguments.map { "'" + $0.replacing("'", with: "'\\''") + "'" }.joined(separator: " ")
            // In a directory of its own: Hypothesis keeps its database where it runs.
            let script = """
                cd '\(workspace)' && exec timeout 300 python3 -c \
                'import sys; from schemathesis.cli import schemathesis; sys.argv[0] = "st"; schemathesis()' \(quoted)
                """
            let result = try await runAwaited("sh", ["-c", script])
            #expect(result.status == 0, "\(result.output)")
            let summary = result.output.split(separator: "\n").first { $0.contains(" generated, ") }
            #expect(summary?.contains("passed") == true, "\(result.output)")
            print("schemathesis:\(summary ?? "")")
            // The daemon is still up and answers DNS.
            #expect(lockr.process.isRunning)
            #expect(try await lockr.cli("status").status == 0)
            await #expect(try PolicyEndToEndTests().address("news.example.", lockr) == "192.0.2.24")
        }
    }
}
