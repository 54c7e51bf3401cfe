extension ChessPosition {
    /// The board as text, seen from the side to move, with rank and file labels: Unicode pieces, or
    /// letters (white upper case, black lower case, `.` for an empty square) when `unicode` is false.
    public func diagram(unicode: Bool) -> String {
        let whiteBelow = sideToMove == .white
        let ranks = whiteBelow ? Array((0..<8).reversed()) : Array(0..<8)
        let files = whiteBelow ? Array(0..<8) : Array((0..<8).reversed())
        var lines = ranks.map { rank in
            " \(rank + 1) " + files.map { file in symbol(at: rank * 8 + file, unicode: unicode) }.joined(separator: " ")
        }
        lines.append("   " + files.map { String(Character(UnicodeScalar(UInt8(97 + $0)))) }.joined(separator: " "))
        return lines.joined(separator: "\n")
    }

    private func symbol(at square: ChessSquare, unicode: Bool) -> String {
        guard let piece = piece(at: square) else { return unicode ? "·" : "." }
        return unicode ? piece.kind.symbol(piece.color) : piece.kind.fenLetter(piece.color)
    }
}

extension ChessPieceKind {
    /// The piece's Unicode chess symbol ("♘" for a white knight).
    public func symbol(_ color: ChessColor) -> String {
        String(Array(color == .white ? "♙♘♗♖♕♔" : "♟♞♝♜♛♚")[Int(rawValue) - 1])
    }

    /// The piece's letter in FEN: upper case for white, lower case for black.
    public func fenLetter(_ color: ChessColor) -> String {
        color == .white ? String(letter) : letter.lowercased()
    }

    /// "knight".
    public var name: String { ["pawn", "knight", "bishop", "rook", "queen", "king"][Int(rawValue) - 1] }
}
