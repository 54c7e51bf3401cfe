/// The shipped chess puzzles (`ChessBookText.swift`, made by `scripts/chess-puzzles`), by difficulty.
public enum ChessBook {
    /// One shipped puzzle.
    public struct Entry: Sendable {
        public let difficulty: Difficulty
        public let mateIn: Int
        public let position: ChessPosition
    }

    /// Every shipped puzzle, in the file's order.
    public static let all: [Entry] = chessBookText.split(separator: "\n").map { line in
        let fields = line.split(separator: " ", maxSplits: 2)
        return Entry(
            difficulty: Difficulty(rawValue: String(fields[0]))!, mateIn: Int(fields[1])!,
            position: try! ChessPosition(fen: String(fields[2])))
    }

    private static let byDifficulty = Dictionary(grouping: all, by: \.difficulty)

    /// The shipped puzzles of one difficulty (never empty).
    public static func puzzles(_ difficulty: Difficulty) -> [Entry] { byDifficulty[difficulty] ?? [] }
}
