import Foundation
import PlainText

/// Standard algebraic notation (SAN) for moves, and reading a move a person typed in SAN or UCI.
extension ChessPosition {
    /// `move` in SAN ("Nf3", "exd5", "O-O", "e8=Q+", "Qh7#"); `move` must be legal here.
    public func san(_ move: ChessMove, among legal: [ChessMove]? = nil) -> String {
        let text = sanWithoutCheck(move, among: legal ?? legalMoves())
        let after = applying(move)
        guard after.isInCheck(after.sideToMove) else { return text }
        return text + (after.legalMoves().isEmpty ? "#" : "+")
    }

    /// SAN without the check or mate mark.
    private func sanWithoutCheck(_ move: ChessMove, among legal: [ChessMove]) -> String {
        let kind = ChessPieceKind(rawValue: abs(board[move.from]))!
        var text: String
        if kind == .king, abs(move.to - move.from) == 2 {
            text = move.to > move.from ? "O-O" : "O-O-O"
        } else {
            let captures = board[move.to] != 0 || (kind == .pawn && move.to == enPassant)
            if kind == .pawn {
                text = captures ? String(squareName(move.from).first!) + "x" : ""
            } else {
                text = String(kind.letter) + disambiguation(move, kind: kind, among: legal)
                if captures { text += "x" }
            }
            text += squareName(move.to)
            if let promotion = move.promotion { text += "=" + String(promotion.letter) }
        }
        return text
    }

    /// The file, rank or square that tells `move` apart from another piece of its kind that can go
    /// to the same square.
    private func disambiguation(_ move: ChessMove, kind: ChessPieceKind, among legal: [ChessMove]) -> String {
        let rivals = legal.filter { other in
            other.to == move.to && other.from != move.from && board[other.from] == board[move.from]
        }
        guard !rivals.isEmpty else { return "" }
        let name = squareName(move.from)
        if !rivals.contains(where: { $0.from.file == move.from.file }) { return String(name.first!) }
        if !rivals.contains(where: { $0.from.rank == move.from.rank }) { return String(name.last!) }
        return name
    }

    /// What a typed answer names: a legal move, a move that is not legal here, or not a move at all.
    public enum ReadMove: Sendable, Equatable {
        case legal(ChessMove)
        /// Written as a move, but no legal move of this position is it.
        case notLegal
        /// Written without saying which piece moves, and more than one can ("Rh7" with two rooks
        /// that reach h7): the moves it may mean.
        case ambiguous([ChessMove])
        /// Not written as a move at all.
        case notAMove
    }

    /// Reads `text` as SAN (check marks, capture marks and letter case are forgiven where that
    /// leaves one move) or as UCI ("d1h5", "e7e8q").
    public func readMove(_ text: String) -> ReadMove {
        let trimmed = text.trimmed
        let legal = legalMoves()
        let lower = trimmed.lowercased()
        if lower.count >= 4, lower.count <= 5, let from = square(named: lower.prefix(2)),
            let to = square(named: lower.dropFirst(2).prefix(2))
        {
            let promotion = lower.count == 5 ? ChessPieceKind(letter: lower.last!) : nil
            if lower.count == 5, promotion == nil || promotion == .pawn || promotion == .king { return .notAMove }
            return legal.first { $0.from == from && $0.to == to && $0.promotion == promotion }.map(ReadMove.legal)
                ?? .notLegal
        }
        let typed = Self.bareSAN(trimmed)
        guard Self.looksLikeSAN(typed) else { return .notAMove }
        let written = legal.map { (move: $0, san: Self.bareSAN(sanWithoutCheck($0, among: legal))) }
        let exact = written.filter { $0.san == typed }
        if exact.count == 1 { return .legal(exact[0].move) }
        let loose = written.filter { $0.san.lowercased() == typed.lowercased() }
        if loose.count == 1 { return .legal(loose[0].move) }
        // Each move as if no other piece of its kind could go there: more than one reads the same.
        let undistinguished = legal.map { (move: $0, san: Self.bareSAN(sanWithoutCheck($0, among: [$0]))) }
        for same in [{ (san: String) in san == typed }, { (san: String) in san.lowercased() == typed.lowercased() }] {
            let meant = undistinguished.filter { same($0.san) }.map(\.move)
            if meant.count > 1 { return .ambiguous(meant) }
        }
        return .notLegal
    }

    /// SAN without the marks people add or leave out: check, mate, capture, promotion '=',
    /// annotations; castling written with zeros or letters alike.
    static func bareSAN(_ text: String) -> String {
        var bare = text.replacing("0", with: "O").replacing("e.p.", with: "")
        bare.removeAll { "+#!?x:=- ".contains($0) }
        return bare
    }

    private static func looksLikeSAN(_ bare: String) -> Bool {
        let upper = bare.uppercased()
        if upper == "OO" || upper == "OOO" { return true }
        guard (2...6).contains(bare.count) else { return false }
        return bare.allSatisfy { "abcdefghABCDEFGH12345678KQRBNPkqrnp".contains($0) }
            && bare.contains(where: \.isNumber)
    }
}
