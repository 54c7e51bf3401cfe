import LockrPuzzles

@testable import LockrSpeech

/// What the gates take from a person: a recorded clip, a chess move or position.
enum PuzzleTargets {
    /// Reads `bytes` as a WAV clip, then checks it as a spoken sentence is before it is heard.
    static func wav(_ bytes: [UInt8]) {
        guard let clip = try? AudioClip(wav: bytes) else { return }
        try? ClipCheck.check(clip)
    }

    /// First byte even: the rest as a position (FEN), whose legal moves are then written and read
    /// back; odd: the rest as a typed move in the starting position.
    static func chess(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
        guard first % 2 == 0 else {
            _ = ChessPosition.start.readMove(text)
            return
        }
        guard let position = try? ChessPosition(fen: text) else { return }
        let moves = position.legalMoves()
        for move in moves.prefix(40) { _ = position.readMove(position.san(move, among: moves)) }
        _ = position.isCheckmate
    }
}
