import Testing

@testable import LockrPuzzles

@Suite("Chess notation and rules")
struct ChessNotationTests {
    @Test("FEN round-trips, and a bad FEN says what is wrong")
    func fen() throws {
        let text = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
        #expect(try ChessPosition(fen: text).fen == text)
        #expect(throws: FENError.self) { try ChessPosition(fen: "8/8/8/8/8/8/8/8 w - - 0 1") }
        #expect(throws: FENError.self) { try ChessPosition(fen: "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -") }
        #expect(throws: FENError.self) { try ChessPosition(fen: "k7/8/8/8/8/8/8/K6R x - - 0 1") }
        // Black is in check with white to move: not a position that can arise.
        #expect(throws: FENError.self) { try ChessPosition(fen: "k6R/8/8/8/8/8/8/K7 w - - 0 1") }
    }

    @Test("a typed move is read as SAN with or without its marks, or as UCI; anything else is not a move")
    func reading() throws {
        // Scholar's mate: Qxf7 mates.
        let position = try ChessPosition(fen: "r1bqkbnr/pppp1ppp/2n5/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
        let mate = ChessMove(from: 39, to: 53)
        for typed in ["Qxf7#", "Qxf7", "Qf7", "qxf7", "h5f7", "H5F7", " Qxf7+ "] {
            #expect(position.readMove(typed) == .legal(mate), "\(typed)")
        }
        #expect(position.readMove("Qa5") == .notLegal)
        #expect(position.readMove("e2e5") == .notLegal)
        #expect(position.readMove("hello") == .notAMove)
        #expect(position.readMove("") == .notAMove)
        #expect(position.readMove("e7e8k") == .notAMove)
        #expect(position.san(mate) == "Qxf7#")
        #expect(position.applying(mate).isCheckmate)
    }

    @Test("castling, en passant, promotion and disambiguation are written as SAN writes them")
    func specialMoves() throws {
        let castle = try ChessPosition(fen: "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
        #expect(castle.readMove("O-O") == .legal(ChessMove(from: 4, to: 6)))
        #expect(castle.readMove("0-0-0") == .legal(ChessMove(from: 4, to: 2)))
        #expect(castle.san(ChessMove(from: 0, to: 3)) == "Rd1")
        let passant = try ChessPosition(fen: "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1")
        #expect(passant.san(ChessMove(from: 36, to: 43)) == "exd6")
        #expect(passant.applying(ChessMove(from: 36, to: 43)).piece(at: 35) == nil)
        let promote = try ChessPosition(fen: "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
        #expect(promote.readMove("b8=Q+") == .legal(ChessMove(from: 49, to: 57, promotion: .queen)))
        #expect(promote.readMove("b7b8n") == .legal(ChessMove(from: 49, to: 57, promotion: .knight)))
        #expect(promote.readMove("b8") == .notLegal)
        let knights = try ChessPosition(fen: "4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1")
        #expect(knights.san(ChessMove(from: 1, to: 11)) == "Nbd2")
        #expect(knights.readMove("Nd2") == .ambiguous([ChessMove(from: 1, to: 11), ChessMove(from: 5, to: 11)]))
        #expect(knights.readMove("nd2") == .ambiguous([ChessMove(from: 1, to: 11), ChessMove(from: 5, to: 11)]))
        #expect(knights.readMove("Nfd2") == .legal(ChessMove(from: 5, to: 11)))
        #expect(knights.readMove("Nd3") == .notLegal)
    }

    @Test("mate in two: a first move that forces mate passes, one that lets the king out does not")
    func mateInTwo() throws {
        for entry in ChessBook.puzzles(.hard).prefix(10) {
            let legal = entry.position.legalMoves()
            let winning = legal.filter { entry.position.forcesMate(with: $0, within: 2) }
            #expect(!winning.isEmpty && winning.count < legal.count)
            #expect(entry.position.matingMoves().isEmpty)
        }
    }
}

@Suite("Chess diagrams")
struct ChessDiagramTests {
    @Test("a diagram is seen from the side to move, with labels, in Unicode or letters")
    func diagrams() throws {
        let white = try ChessPosition(fen: "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
        #expect(
            white.diagram(unicode: false) == """
                 8 . . . . . . k .
                 7 . . . . . p p p
                 6 . . . . . . . .
                 5 . . . . . . . .
                 4 . . . . . . . .
                 3 . . . . . . . .
                 2 . . . . . . . .
                 1 R . . . . . K .
                   a b c d e f g h
                """)
        let black = try ChessPosition(fen: "6k1/5ppp/8/8/8/8/8/R5K1 b - - 0 1")
        let lines = black.diagram(unicode: true).split(separator: "\n")
        #expect(lines.first == " 1 · ♔ · · · · · ♖")
        #expect(lines[7] == " 8 · ♚ · · · · · ·")
        #expect(lines.last == "   h g f e d c b a")
    }
}
