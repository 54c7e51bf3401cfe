import DNSTestSupport
import Foundation
import Testing

/// The README's quick start, read from the README and run as written on a new state directory
/// (on ports of the test's own): every command succeeds, nothing it shows waits, and the app it
/// unlocks answers.
@Suite struct QuickStartEndToEndTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md").path

    /// The quick start's commands: the first shell block that starts lockr, each line's words
    /// without its comment.
    func quickStart() throws -> [[String]] {
        let text = try String(contentsOfFile: Self.readme, encoding: .utf8)
        let blocks = text.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let block = try #require(blocks.first { $0.hasPrefix("lockr serve") }, "a quick start in the README")
        return block.split(separator: "\n").map { line in
            let command = line.split(separator: "#", maxSplits: 1).first ?? ""
            return command.split(separator: " ").map(String.init)
        }
    }

    @Test func theREADMEsQuickStartRunsAsWritten() async throws {
        let commands = try quickStart()
        let serve = try #require(commands.first)
        #expect(Array(serve.prefix(2)) == ["lockr", "serve"])
        let upstream = try await ScriptedUpstream(records: ["tiktok.com.": ["tiktok.com. 300 IN A 192.0.2.21"]])
        let lockr = try await LockrProcess(Array(serve.dropFirst(2)) + ["--upstream", "127.0.0.1:\(upstream.port)"])
        try await stoppingAfterwards(lockr, upstream) {
            for command in commands.dropFirst() {
                #expect(command.first == "lockr")
                // At a terminal, as a person runs it; a sentence it asks for is typed as shown.
                let terminal = try PseudoTerminal(
                    LockrProcess.binary, Array(command.dropFirst()) + ["--state-dir", lockr.stateDirectory])
                let shown = await terminal.read(until: "> ", seconds: 5)
                let lines = shown.split(whereSeparator: \.isNewline)
                if let asked = lines.firstIndex(where: { $0.contains("Type this sentence") }), asked + 1 < lines.count {
                    terminal.type(lines[asked + 1].trimmingCharacters(in: .whitespaces) + "\r")
                }
                let ran = await terminal.finish()
                #expect(ran.status == 0, "\(command.joined(separator: " ")): \(ran.output)")
                #expect(!ran.output.contains("pending"), "\(command.joined(separator: " ")): \(ran.output)")
            }
            if commands.contains(where: { $0.starts(with: ["lockr", "unlock", "tiktok"]) }) {
                #expect(try await dig(lockr.port, "tiktok.com", "+short").contains("192.0.2.21"))
            }
        }
    }
}
