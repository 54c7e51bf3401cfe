/// Checkmate puzzles: which moves mate at once, and which force mate on the next move.
extension ChessPosition {
    /// The moves that checkmate at once.
    public func matingMoves() -> [ChessMove] {
        legalMoves().filter { applying($0).isCheckmate }
    }

    /// Whether `move` (legal here) forces mate within `moves` moves of the side to move: it mates at
    /// once, or (for 2 and more) every reply leaves a move that forces mate within one fewer.
    public func forcesMate(with move: ChessMove, within moves: Int) -> Bool {
        let after = applying(move)
        let replies = after.legalMoves()
        if replies.isEmpty { return after.isInCheck(after.sideToMove) }
        guard moves > 1 else { return false }
        return replies.allSatisfy { reply in
            let position = after.applying(reply)
            return position.legalMoves().contains { position.forcesMate(with: $0, within: moves - 1) }
        }
    }
}
