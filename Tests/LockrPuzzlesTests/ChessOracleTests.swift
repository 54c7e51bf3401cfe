import Foundation
import Testing

@testable import LockrPuzzles

/// lockr's move generator against python-chess: `scripts/chess-puzzles oracle` checks the shipped
/// positions with python-chess and says what each must hold.
@Suite("Chess against python-chess")
struct ChessOracleTests {
    struct Oracle: Decodable {
        struct Perft: Decodable {
            let fen: String
            let counts: [Int]
        }
        struct Entry: Decodable {
            let fen: String
            let difficulty: String
            let mateIn: Int
            let legal: [String: String]
            let mating: [String]
            let winning: [String]?
        }
        let perft: [Perft]
        let puzzles: [Entry]
    }

    static let oracle: Oracle = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/chess-puzzles").path, "oracle"]
        let output = Pipe()
        process.standardOutput = output
        try! process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "scripts/chess-puzzles oracle failed (is python-chess installed?)")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try! decoder.decode(Oracle.self, from: data)
    }()

    @Test("perft of the standard test positions matches python-chess")
    func perft() throws {
        for entry in Self.oracle.perft {
            let position = try ChessPosition(fen: entry.fen)
            for (index, expected) in entry.counts.enumerated() {
                #expect(position.perft(index + 1) == expected, "perft(\(index + 1)) of \(entry.fen)")
            }
        }
    }

    @Test("every shipped puzzle: the same legal moves, SAN, mating moves and mate-in-two first moves")
    func shippedPuzzles() throws {
        #expect(Self.oracle.puzzles.count >= 150)
        #expect(Self.oracle.puzzles.count == ChessBook.all.count)
        for (entry, shipped) in zip(Self.oracle.puzzles, ChessBook.all) {
            let position = try ChessPosition(fen: entry.fen)
            #expect(shipped.position == position)
            #expect(shipped.difficulty.rawValue == entry.difficulty && shipped.mateIn == entry.mateIn)
            let legal = position.legalMoves()
            #expect(Dictionary(uniqueKeysWithValues: legal.map { ($0.uci, position.san($0)) }) == entry.legal, "\(entry.fen)")
            #expect(position.matingMoves().map(\.uci).sorted() == entry.mating, "\(entry.fen)")
            if let winning = entry.winning {
                #expect(legal.filter { position.forcesMate(with: $0, within: 2) }.map(\.uci).sorted() == winning)
            }
            #expect(position.fen.split(separator: " ").prefix(4) == entry.fen.split(separator: " ").prefix(4))
        }
    }

    @Test("every legal move of every shipped puzzle reads back from its SAN and its UCI")
    func movesReadBack() throws {
        for entry in Self.oracle.puzzles {
            let position = try ChessPosition(fen: entry.fen)
            for move in position.legalMoves() {
                let san = try #require(entry.legal[move.uci])
                #expect(position.readMove(san) == .legal(move), "\(san) in \(entry.fen)")
                #expect(position.readMove(move.uci) == .legal(move))
            }
        }
    }

    @Test("each shipped puzzle is solved by each of its solutions, in SAN and UCI, and not by other moves")
    func solutionsPass() throws {
        for (entry, shipped) in zip(Self.oracle.puzzles, ChessBook.all) {
            let solutions = entry.winning ?? entry.mating
            let puzzle = Puzzle(
                kind: .chess, difficulty: shipped.difficulty, prompt: "", position: entry.fen, answer: nil,
                mateIn: entry.mateIn)
            for uci in solutions {
                #expect(puzzle.check(uci) == .solved, "\(uci) in \(entry.fen)")
                #expect(puzzle.check(entry.legal[uci]!) == .solved, "\(entry.legal[uci]!) in \(entry.fen)")
            }
            for uci in entry.legal.keys.sorted().filter({ !solutions.contains($0) }).prefix(3) {
                #expect(puzzle.check(uci) != .solved, "\(uci) in \(entry.fen)")
            }
        }
    }
}
