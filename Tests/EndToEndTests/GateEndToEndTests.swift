import DNSTestSupport
import Foundation
import LockrPuzzles
import Testing

/// The puzzle gate through the real daemon: the CLI at a terminal draws the board and reads
/// answers, the API issues and checks puzzles, and DNS answers change once the gate is passed.
extension PolicyEndToEndTests {
    static let chessGate = "[hourly]\ngate = [\"puzzle\"]\n[puzzles]\nkinds = [\"chess\"]\n"

    /// The daemon's control token and address, as the CLI finds them.
    func controlEndpoint(_ lockr: LockrProcess) throws -> (token: String, address: String) {
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: lockr.stateDirectory + "/" + name, encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return (try read("control.token"), try read("control.address"))
    }

    /// A control API call with curl, `body` given as curl's data arguments: the status and the JSON.
    func curlAPI(
        _ lockr: LockrProcess, _ method: String, _ path: String, type: String = "application/json", body: [String]
    ) async throws -> (status: Int, json: [String: Any]) {
        let (token, address) = try controlEndpoint(lockr)
        let answer = try await runAwaited(
            "curl",
            [
                "-s", "-w", "\n%{http_code}", "-X", method, "-H", "Authorization: Bearer \(token)", "-H",
                "Content-Type: \(type)",
            ]
                + body + ["http://\(address)/api/v1/\(path)"])
        let lines = answer.output.split(separator: "\n")
        let json = try JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))
        return (Int(lines.last ?? "") ?? 0, json as? [String: Any] ?? [:])
    }

    /// A JSON call to the control API.
    func api(
        _ lockr: LockrProcess, _ method: String, _ path: String, _ body: String = ""
    ) async throws -> (
        status: Int, json: [String: Any]
    ) {
        try await curlAPI(lockr, method, path, body: ["--data-raw", body])
    }

    @Test func theCLIDrawsTheBoardAndAWrongMoveCostsAMissAndAnotherPuzzle() async throws {
        // In real time: a puzzle's 2 minutes would be 2 s at the usual 60 times, less than a loaded
        // machine may take to type the answer.
        try await withLockr(mode: "hourly", sections: Self.chessGate, timeScale: 1) { lockr, _ in
            let terminal = try PseudoTerminal(
                LockrProcess.binary, ["unlock", "instagram", "--state-dir", lockr.stateDirectory])
            let shown = await terminal.read(until: "> ", seconds: 45)
            #expect(shown.contains("a b c d e f g h") || shown.contains("h g f e d c b a"), "\(shown)")
            #expect(
                shown.contains("to move: mate in 1") && shown.contains("Puzzle (easy, 2 min to answer)"), "\(shown)")
            #expect(["♔", "♚"].allSatisfy { shown.contains($0) } || shown.contains("K"), "\(shown)")
            terminal.type("a1a1\r")
            await terminal.read(until: "Another puzzle:")
            var output = ""
            let deadline = Date().addingTimeInterval(20)
            while output.components(separatedBy: "> ").count < 3, Date() < deadline {
                output = await terminal.read(until: "\u{0}", seconds: 0.2)
            }
            #expect(output.contains("wrong: a1a1 is not a legal move here"), "\(output)")
            // The miss raised the next puzzle's difficulty.
            #expect(output.contains("Puzzle (medium"), "\(output)")
            terminal.type("\u{04}")
            let end = await terminal.finish()
            #expect(end.status == 1 && end.output.contains("nothing answered"), "\(end.output)")
            #expect(try await gateMisses(lockr) == 1)
            #expect(try await address("instagram.com.", lockr) == "0.0.0.0")
        }
    }

    /// At the wall clock's pace: a puzzle has 2 minutes, which a faster policy clock would spend
    /// while a loaded machine starts the CLI.
    @Test func aPuzzleSolvedThroughTheAPIOpensTheAppAndAnAnswerCountsOnce() async throws {
        try await withLockr(mode: "hourly", sections: Self.chessGate, timeScale: 1) { lockr, _ in
            let gate = try await api(lockr, "GET", "gate?app=instagram")
            #expect(
                gate.status == 200 && gate.json["puzzles_to_solve"] as? Int == 1
                    && gate.json["difficulty"] as? String == "easy")
            let refused = try await lockr.cli("unlock", "instagram")
            #expect(refused.status == 1 && refused.output.contains("puzzle"), "\(refused.output)")
            let issued = try await api(lockr, "POST", "gate/challenges", #"{"app":"instagram"}"#)
            let challenge = try #require((issued.json["challenges"] as? [[String: Any]])?.first)
            let id = try #require(challenge["id"] as? String)
            let position = try ChessPosition(fen: try #require(challenge["position"] as? String))
            #expect(
                challenge["kind"] as? String == "chess"
                    && (challenge["expires"] as? [String: Any])?["in_seconds"] as? Int == 120)
            let garbage = try await api(lockr, "POST", "gate/challenges/\(id)", #"{"answer":"hello"}"#)
            #expect(garbage.status == 400 && garbage.json["code"] as? String == "unreadable_answer")
            let mate = try #require(position.matingMoves().first)
            let solved = try await api(lockr, "POST", "gate/challenges/\(id)", #"{"answer":"\#(position.san(mate))"}"#)
            #expect(solved.status == 200, "\(solved.json)")
            let replayed = try await api(lockr, "POST", "gate/challenges/\(id)", #"{"answer":"\#(mate.uci)"}"#)
            #expect(replayed.status == 410 && replayed.json["code"] as? String == "challenge_closed")
            let unlock = try await lockr.cli("unlock", "instagram")
            #expect(unlock.status == 0 && unlock.output.contains("instagram: open until"), "\(unlock.output)")
            #expect(try await address("instagram.com.", lockr) == "192.0.2.23")
            let log = try await lockr.cli("log").output
            #expect(log.contains("gate_pass") && log.contains("chess easy solved in"), "\(log)")
            // Each entry names the action that wrote it.
            let logged = try JSONSerialization.jsonObject(with: Data(try await lockr.cli("log", "--json").output.utf8))
            let events = (logged as? [String: Any])?["events"] as? [[String: Any]] ?? []
            let actions = events.map { "\($0["type"] ?? "")/\($0["action"] ?? "-")" }
            #expect(actions.contains("gate_pass/answer-challenge") && actions.contains("unlock/unlock"), "\(actions)")
        }
    }
}
