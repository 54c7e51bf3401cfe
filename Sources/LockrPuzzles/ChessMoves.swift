/// A move: from one square to another, with the piece a pawn becomes on the last rank.
public struct ChessMove: Sendable, Hashable {
    public let from: ChessSquare
    public let to: ChessSquare
    public var promotion: ChessPieceKind? = nil

    /// The move in UCI notation ("e2e4", "e7e8q").
    public var uci: String {
        squareName(from) + squareName(to) + (promotion.map { String($0.letter).lowercased() } ?? "")
    }
}

/// The legal move generator: pseudo-legal moves, each kept when it leaves its own king safe.
extension ChessPosition {
    private static let knightSteps = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
    private static let kingSteps = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
    private static let straight = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    private static let diagonal = [(1, 1), (-1, 1), (-1, -1), (1, -1)]

    /// The square `steps` away from `square`, or nil off the board.
    private static func offset(_ square: ChessSquare, _ step: (Int, Int)) -> ChessSquare? {
        let file = square.file + step.0
        let rank = square.rank + step.1
        guard (0..<8).contains(file), (0..<8).contains(rank) else { return nil }
        return rank * 8 + file
    }

    /// Every legal move of the side to move.
    public func legalMoves() -> [ChessMove] {
        pseudoLegalMoves().filter { move in !applying(move).isInCheck(sideToMove) }
    }

    /// Whether `color`'s king is attacked.
    public func isInCheck(_ color: ChessColor) -> Bool {
        guard let king = board.firstIndex(of: ChessPieceKind.king.rawValue * color.sign) else { return false }
        return isAttacked(king, by: color.opponent)
    }

    /// Whether the side to move is checkmated.
    public var isCheckmate: Bool { isInCheck(sideToMove) && legalMoves().isEmpty }

    /// Whether the side to move has no legal move and is not in check.
    public var isStalemate: Bool { !isInCheck(sideToMove) && legalMoves().isEmpty }

    /// Whether a piece of `color` attacks `square`.
    func isAttacked(_ square: ChessSquare, by color: ChessColor) -> Bool {
        let sign = color.sign
        let pawnRank = color == .white ? -1 : 1
        for fileStep in [-1, 1] {
            if let from = Self.offset(square, (fileStep, pawnRank)), board[from] == ChessPieceKind.pawn.rawValue * sign
            {
                return true
            }
        }
        for step in Self.knightSteps {
            if let from = Self.offset(square, step), board[from] == ChessPieceKind.knight.rawValue * sign {
                return true
            }
        }
        for step in Self.kingSteps {
            if let from = Self.offset(square, step), board[from] == ChessPieceKind.king.rawValue * sign { return true }
        }
        for (steps, slider) in [(Self.straight, ChessPieceKind.rook), (Self.diagonal, .bishop)] {
            for step in steps {
                var next = Self.offset(square, step)
                while let current = next {
                    let piece = board[current]
                    if piece != 0 {
                        if piece == slider.rawValue * sign || piece == ChessPieceKind.queen.rawValue * sign {
                            return true
                        }
                        break
                    }
                    next = Self.offset(current, step)
                }
            }
        }
        return false
    }

    /// Moves that follow the pieces' rules, some of which may leave the mover's king in check.
    func pseudoLegalMoves() -> [ChessMove] {
        var moves: [ChessMove] = []
        moves.reserveCapacity(48)
        let sign = sideToMove.sign
        for from in 0..<64 {
            let piece = board[from] * sign
            guard piece > 0, let kind = ChessPieceKind(rawValue: piece) else { continue }
            switch kind {
            case .pawn: addPawnMoves(from: from, into: &moves)
            case .knight: addSteps(Self.knightSteps, from: from, into: &moves)
            case .king:
                addSteps(Self.kingSteps, from: from, into: &moves)
                addCastling(from: from, into: &moves)
            case .bishop: addSlides(Self.diagonal, from: from, into: &moves)
            case .rook: addSlides(Self.straight, from: from, into: &moves)
            case .queen: addSlides(Self.straight + Self.diagonal, from: from, into: &moves)
            }
        }
        return moves
    }

    private func isOwn(_ square: ChessSquare) -> Bool { board[square] * sideToMove.sign > 0 }
    private func isTheirs(_ square: ChessSquare) -> Bool { board[square] * sideToMove.sign < 0 }

    private func addSteps(_ steps: [(Int, Int)], from: ChessSquare, into moves: inout [ChessMove]) {
        for step in steps {
            if let to = Self.offset(from, step), !isOwn(to) { moves.append(ChessMove(from: from, to: to)) }
        }
    }

    private func addSlides(_ steps: [(Int, Int)], from: ChessSquare, into moves: inout [ChessMove]) {
        for step in steps {
            var next = Self.offset(from, step)
            while let to = next, !isOwn(to) {
                moves.append(ChessMove(from: from, to: to))
                if isTheirs(to) { break }
                next = Self.offset(to, step)
            }
        }
    }

    private func addPawnMoves(from: ChessSquare, into moves: inout [ChessMove]) {
        let forward = sideToMove == .white ? 1 : -1
        let startRank = sideToMove == .white ? 1 : 6
        let lastRank = sideToMove == .white ? 7 : 0
        func add(_ to: ChessSquare) {
            if to.rank == lastRank {
                for kind in [ChessPieceKind.queen, .rook, .bishop, .knight] {
                    moves.append(ChessMove(from: from, to: to, promotion: kind))
                }
            } else {
                moves.append(ChessMove(from: from, to: to))
            }
        }
        if let one = Self.offset(from, (0, forward)), board[one] == 0 {
            add(one)
            if from.rank == startRank, let two = Self.offset(one, (0, forward)), board[two] == 0 {
                moves.append(ChessMove(from: from, to: two))
            }
        }
        for fileStep in [-1, 1] {
            guard let to = Self.offset(from, (fileStep, forward)) else { continue }
            if isTheirs(to) || to == enPassant { add(to) }
        }
    }

    private func addCastling(from: ChessSquare, into moves: inout [ChessMove]) {
        let home = sideToMove == .white ? 4 : 60
        guard from == home, !isAttacked(home, by: sideToMove.opponent) else { return }
        let rook = ChessPieceKind.rook.rawValue * sideToMove.sign
        let kingSide: UInt8 = sideToMove == .white ? 1 : 4
        let queenSide: UInt8 = sideToMove == .white ? 2 : 8
        if castling & kingSide != 0, board[home + 3] == rook, board[home + 1] == 0, board[home + 2] == 0,
            !isAttacked(home + 1, by: sideToMove.opponent)
        {
            moves.append(ChessMove(from: home, to: home + 2))
        }
        if castling & queenSide != 0, board[home - 4] == rook, board[home - 1] == 0, board[home - 2] == 0,
            board[home - 3] == 0, !isAttacked(home - 1, by: sideToMove.opponent)
        {
            moves.append(ChessMove(from: home, to: home - 2))
        }
    }

    /// The position after `move`, which must be one of `legalMoves()` (or pseudo-legal).
    public func applying(_ move: ChessMove) -> ChessPosition {
        var next = self
        let piece = board[move.from]
        let kind = ChessPieceKind(rawValue: abs(piece))!
        let captured = board[move.to] != 0
        next.board[move.from] = 0
        next.board[move.to] = move.promotion.map { $0.rawValue * sideToMove.sign } ?? piece
        if kind == .pawn, move.to == enPassant {
            next.board[move.to - 8 * (sideToMove == .white ? 1 : -1)] = 0
        }
        if kind == .king, abs(move.to - move.from) == 2 {
            let (rookFrom, rookTo) =
                move.to > move.from ? (move.from + 3, move.from + 1) : (move.from - 4, move.from - 1)
            next.board[rookTo] = next.board[rookFrom]
            next.board[rookFrom] = 0
        }
        next.enPassant = kind == .pawn && abs(move.to - move.from) == 16 ? (move.from + move.to) / 2 : nil
        for square in [move.from, move.to] {
            switch square {
            case 0: next.castling &= ~2
            case 4: next.castling &= ~3
            case 7: next.castling &= ~1
            case 56: next.castling &= ~8
            case 60: next.castling &= ~12
            case 63: next.castling &= ~4
            default: break
            }
        }
        next.halfmoveClock = kind == .pawn || captured ? 0 : halfmoveClock + 1
        if sideToMove == .black { next.fullmoveNumber += 1 }
        next.sideToMove = sideToMove.opponent
        return next
    }

    /// Leaf positions `depth` moves ahead: the standard check of a move generator.
    public func perft(_ depth: Int) -> Int {
        guard depth > 0 else { return 1 }
        let moves = legalMoves()
        guard depth > 1 else { return moves.count }
        return moves.reduce(0) { $0 + applying($1).perft(depth - 1) }
    }
}
