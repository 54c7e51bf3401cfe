/// A side in chess.
public enum ChessColor: Sendable, Equatable {
    case white
    case black

    /// The other side.
    public var opponent: ChessColor { self == .white ? .black : .white }
    /// The sign of this side's pieces on the board.
    var sign: Int8 { self == .white ? 1 : -1 }
}

/// A kind of chess piece. Its raw value is how the board stores it (positive for white).
public enum ChessPieceKind: Int8, Sendable, CaseIterable {
    case pawn = 1, knight, bishop, rook, queen, king

    /// The letter SAN and FEN use for it (upper case).
    public var letter: Character { Array("PNBRQK")[Int(rawValue) - 1] }

    init?(letter: Character) {
        guard let index = Array("PNBRQK").firstIndex(of: Character(letter.uppercased())) else { return nil }
        self.init(rawValue: Int8(index + 1))
    }
}

/// A square, 0 (a1) to 63 (h8).
public typealias ChessSquare = Int

extension ChessSquare {
    /// The file, 0 (a) to 7 (h).
    var file: Int { self & 7 }
    /// The rank, 0 (first) to 7 (eighth).
    var rank: Int { self >> 3 }
}

/// The square's algebraic name ("e4").
public func squareName(_ square: ChessSquare) -> String {
    "\(Character(UnicodeScalar(UInt8(97 + square.file))))\(square.rank + 1)"
}

/// A square named algebraically ("e4"), or nil.
func square(named text: Substring) -> ChessSquare? {
    let bytes = Array(text.utf8)
    guard bytes.count == 2, (97...104).contains(bytes[0]), (49...56).contains(bytes[1]) else { return nil }
    return Int(bytes[1] - 49) * 8 + Int(bytes[0] - 97)
}

/// Why a FEN string was not taken.
public struct FENError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
}

/// A chess position: the pieces, whose move it is, castling rights and the en-passant square.
///
/// Squares hold 0 for empty or a `ChessPieceKind` raw value, positive for white and negative for
/// black. Positions are values: `applying(_:)` returns the one after a move.
public struct ChessPosition: Sendable, Equatable {
    var board: [Int8]
    public internal(set) var sideToMove: ChessColor
    /// Castling rights: bit 0 white king side, 1 white queen side, 2 black king side, 3 black queen side.
    var castling: UInt8
    /// The square a pawn that just advanced two squares passed over, if any.
    var enPassant: ChessSquare?
    var halfmoveClock: Int
    var fullmoveNumber: Int

    /// The standard starting position.
    public static let start = try! ChessPosition(fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")

    /// Reads a position in Forsyth-Edwards Notation; the move counters may be left out.
    public init(fen: String) throws(FENError) {
        let fields = fen.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 4, fields.count <= 6 else {
            throw FENError(description: "a FEN has 4 to 6 fields, not \(fields.count)")
        }
        board = [Int8](repeating: 0, count: 64)
        let ranks = fields[0].split(separator: "/", omittingEmptySubsequences: false)
        guard ranks.count == 8 else { throw FENError(description: "a FEN board has 8 ranks, not \(ranks.count)") }
        for (row, text) in ranks.enumerated() {
            let rank = 7 - row
            var file = 0
            for character in text {
                if let skip = character.wholeNumberValue, (1...8).contains(skip) {
                    file += skip
                } else if let kind = ChessPieceKind(letter: character), file < 8 {
                    board[rank * 8 + file] = character.isUppercase ? kind.rawValue : -kind.rawValue
                    file += 1
                } else {
                    throw FENError(description: "'\(character)' on rank \(rank + 1) is not a piece or a count")
                }
            }
            guard file == 8 else { throw FENError(description: "rank \(rank + 1) has \(file) squares, not 8") }
        }
        switch fields[1] {
        case "w": sideToMove = .white
        case "b": sideToMove = .black
        default: throw FENError(description: "the side to move is w or b, not '\(fields[1])'")
        }
        castling = 0
        if fields[2] != "-" {
            for character in fields[2] {
                guard let bit = "KQkq".firstIndex(of: character).map({ "KQkq".distance(from: "KQkq".startIndex, to: $0) })
                else { throw FENError(description: "castling rights are K, Q, k, q or -, not '\(fields[2])'") }
                castling |= 1 << bit
            }
        }
        if fields[3] == "-" {
            enPassant = nil
        } else {
            guard let square = square(named: fields[3]), square.rank == 2 || square.rank == 5 else {
                throw FENError(description: "'\(fields[3])' is not an en-passant square")
            }
            enPassant = square
        }
        halfmoveClock = fields.count > 4 ? Int(fields[4]) ?? 0 : 0
        fullmoveNumber = fields.count > 5 ? Int(fields[5]) ?? 1 : 1
        for color in [ChessColor.white, .black] {
            let kings = board.filter { $0 == ChessPieceKind.king.rawValue * color.sign }.count
            guard kings == 1 else { throw FENError(description: "\(color) has \(kings) kings, not 1") }
        }
        guard !isInCheck(sideToMove.opponent) else {
            throw FENError(description: "the side not to move is in check")
        }
    }

    /// The position in Forsyth-Edwards Notation.
    public var fen: String {
        var rows: [String] = []
        for rank in stride(from: 7, through: 0, by: -1) {
            var row = ""
            var empty = 0
            for file in 0..<8 {
                let piece = board[rank * 8 + file]
                if piece == 0 {
                    empty += 1
                    continue
                }
                if empty > 0 { row += String(empty) }
                empty = 0
                let letter = ChessPieceKind(rawValue: abs(piece))!.letter
                row.append(piece > 0 ? letter : Character(letter.lowercased()))
            }
            if empty > 0 { row += String(empty) }
            rows.append(row)
        }
        let rights = zip("KQkq", 0..<4).filter { castling & (1 << $0.1) != 0 }.map(\.0)
        return [
            rows.joined(separator: "/"), sideToMove == .white ? "w" : "b", rights.isEmpty ? "-" : String(rights),
            enPassant.map(squareName) ?? "-", String(halfmoveClock), String(fullmoveNumber),
        ].joined(separator: " ")
    }

    /// The piece on `square`: its kind and side, or nil when it is empty.
    public func piece(at square: ChessSquare) -> (kind: ChessPieceKind, color: ChessColor)? {
        let value = board[square]
        guard value != 0 else { return nil }
        return (ChessPieceKind(rawValue: abs(value))!, value > 0 ? .white : .black)
    }
}
