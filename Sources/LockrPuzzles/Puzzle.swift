import ConfigKit
import Foundation
import PlainText

/// A kind of puzzle.
public enum PuzzleKind: String, Sendable, Codable, CaseIterable, ChoiceOfWords {
    case arithmetic
    case chess
}

/// What an answer to a puzzle was.
public enum PuzzleVerdict: Sendable, Equatable {
    case solved
    /// A real answer, and wrong: why, in words.
    case wrong(String)
    /// Not an answer of the puzzle's kind at all (no number, no move), or a move that does not
    /// say which piece moves: how to write one, or which piece is meant. Nothing is counted.
    case unreadable(String)
}

/// One puzzle: what to show and how to check an answer.
public struct Puzzle: Sendable, Equatable, Codable {
    public let kind: PuzzleKind
    public let difficulty: Difficulty
    /// The question ("23 × 7 + 48 = ?", "White to move: mate in 1").
    public let prompt: String
    /// Chess: the position, in FEN.
    public let position: String?
    /// Arithmetic: the answer.
    let answer: Int?
    /// Chess: the moves to mate.
    let mateIn: Int?

    /// A puzzle of `kind` at `difficulty`, chosen with `generator`.
    public static func make(
        _ kind: PuzzleKind, _ difficulty: Difficulty, using generator: inout some RandomNumberGenerator
    ) -> Puzzle {
        switch kind {
        case .arithmetic:
            let (question, answer) = Arithmetic.make(difficulty, using: &generator)
            return Puzzle(
                kind: kind, difficulty: difficulty, prompt: "\(question) = ?", position: nil, answer: answer,
                mateIn: nil)
        case .chess:
            let entry = ChessBook.puzzles(difficulty).randomElement(using: &generator)!
            let side = entry.position.sideToMove == .white ? "White" : "Black"
            let moves = entry.mateIn == 1 ? "mate in 1" : "mate in \(entry.mateIn): give the first move"
            return Puzzle(
                kind: kind, difficulty: difficulty, prompt: "\(side) to move: \(moves)", position: entry.position.fen,
                answer: nil, mateIn: entry.mateIn)
        }
    }

    /// Checks an answer: a number for arithmetic; for chess a move in SAN ("Qh7#") or UCI ("d1h5")
    /// that mates (mate in 1), or after which every reply allows a mate (mate in 2).
    public func check(_ text: String) -> PuzzleVerdict {
        switch kind {
        case .arithmetic:
            guard let given = Arithmetic.read(text) else { return .unreadable("answer with a whole number") }
            return given == answer ? .solved : .wrong("\(given) is not the answer")
        case .chess:
            guard let position, let board = try? ChessPosition(fen: position) else {
                return .unreadable("this puzzle's position cannot be read")
            }
            switch board.readMove(text) {
            case .notAMove: return .unreadable("write a move in SAN (Qh7) or UCI (d3h7)")
            case .notLegal: return .wrong("\(text.trimmed) is not a legal move here")
            case .ambiguous(let moves):
                let legal = board.legalMoves()
                let choices = moves.map { board.san($0, among: legal) }
                return .unreadable(
                    "\(text.trimmed): which piece? "
                        + choices.dropLast().joined(separator: ", ") + " or " + choices.last!)
            case .legal(let move):
                let san = board.san(move)
                return board.forcesMate(with: move, within: mateIn ?? 1)
                    ? .solved : .wrong("\(san) does not mate" + ((mateIn ?? 1) > 1 ? " in \(mateIn!)" : ""))
            }
        }
    }
}
