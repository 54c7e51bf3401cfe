import Foundation
import Testing

@testable import LockrPuzzles

@Suite("Arithmetic puzzles and difficulty")
struct PuzzleTests {
    /// Works a prompt out from its text alone: "a × b − c × d = ?" and the like.
    func evaluate(_ prompt: String) -> Int {
        let tokens = prompt.replacingOccurrences(of: " = ?", with: "").split(separator: " ").map(String.init)
        var terms: [Int] = []
        var signs: [Int] = [1]
        var product = Int(tokens[0])!
        var index = 1
        while index < tokens.count {
            let (op, value) = (tokens[index], Int(tokens[index + 1])!)
            if op == "×" {
                product *= value
            } else {
                terms.append(product)
                signs.append(op == "+" ? 1 : -1)
                product = value
            }
            index += 2
        }
        terms.append(product)
        return zip(signs, terms).reduce(0) { $0 + $1.0 * $1.1 }
    }

    @Test("each arithmetic prompt's answer is what its text says, and bigger at each level")
    func arithmetic() {
        var generator = SeededGenerator(seed: 7)
        var largest: [Difficulty: Int] = [:]
        for difficulty in Difficulty.allCases {
            for _ in 0..<200 {
                let puzzle = Puzzle.make(.arithmetic, difficulty, using: &generator)
                let answer = evaluate(puzzle.prompt)
                #expect(puzzle.check(String(answer)) == .solved, "\(puzzle.prompt)")
                #expect(puzzle.check(" \(answer) ") == .solved)
                if case .wrong = puzzle.check(String(answer + 1)) {} else { Issue.record("\(answer + 1) passed") }
                #expect(puzzle.check("forty") == .unreadable("answer with a whole number"))
                largest[difficulty] = max(largest[difficulty] ?? 0, abs(answer))
            }
        }
        #expect(largest[.easy]! < largest[.medium]! && largest[.medium]! < largest[.hard]!)
    }

    @Test("the same seed gives the same puzzles")
    func seeded() {
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        for kind in PuzzleKind.allCases {
            #expect(Puzzle.make(kind, .hard, using: &first) == Puzzle.make(kind, .hard, using: &second))
        }
    }

    @Test("a chess puzzle shows its position and side, and takes only a mating move")
    func chess() throws {
        var generator = SeededGenerator(seed: 3)
        for difficulty in Difficulty.allCases {
            let puzzle = Puzzle.make(.chess, difficulty, using: &generator)
            let position = try ChessPosition(fen: puzzle.position!)
            #expect(puzzle.prompt.hasPrefix(position.sideToMove == .white ? "White" : "Black"))
            #expect(puzzle.prompt.contains(difficulty == .hard ? "mate in 2" : "mate in 1"))
            let solution = position.legalMoves().first {
                position.forcesMate(with: $0, within: difficulty == .hard ? 2 : 1)
            }!
            #expect(puzzle.check(position.san(solution)) == .solved)
            let other = position.legalMoves().first { !position.forcesMate(with: $0, within: 2) }!
            #expect(
                puzzle.check(other.uci)
                    == .wrong("\(position.san(other)) does not mate" + (difficulty == .hard ? " in 2" : "")))
            #expect(puzzle.check("a1a1") == .wrong("a1a1 is not a legal move here"))
            #expect(puzzle.check("what") == .unreadable("write a move in SAN (Qh7) or UCI (d3h7)"))
        }
    }

    @Test("a move that does not say which of two pieces moves is asked about, not counted as wrong")
    func ambiguousMove() {
        // Both rooks reach h7: Ra7 along the rank, Rh1 up the file.
        let puzzle = Puzzle(
            kind: .chess, difficulty: .easy, prompt: "White to move: mate in 1",
            position: "6k1/R7/8/8/8/8/8/4K2R w - - 0 1", answer: nil, mateIn: 1)
        #expect(puzzle.check("Rh7") == .unreadable("Rh7: which piece? Rhh7 or Rah7"))
        #expect(puzzle.check("Rah7") == .wrong("Rah7 does not mate"))
    }

    @Test("difficulty: base, +1 for more than 3 opens, +1 late, +1 per failure in a row, capped at hard")
    func difficultyTable() {
        let table: [(Difficulty, Int, Bool, Int, Difficulty)] = [
            (.easy, 0, false, 0, .easy), (.easy, 3, false, 0, .easy), (.easy, 4, false, 0, .medium),
            (.easy, 0, true, 0, .medium), (.easy, 4, true, 0, .hard), (.easy, 0, false, 1, .medium),
            (.easy, 0, false, 2, .hard), (.easy, 9, true, 5, .hard), (.medium, 0, false, 0, .medium),
            (.medium, 4, false, 0, .hard), (.medium, 0, true, 0, .hard), (.hard, 0, false, 0, .hard),
        ]
        for (base, opens, late, failures, expected) in table {
            #expect(
                Difficulty.rising(from: base, opensToday: opens, late: late, failuresInARow: failures) == expected,
                "\(base) opens \(opens) late \(late) failures \(failures)")
        }
    }
}
