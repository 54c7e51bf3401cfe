import Foundation
import LockrPuzzles

/// A chess position drawn for the terminal: Unicode pieces where the terminal takes UTF-8, letters
/// where it does not.
enum BoardDrawing {
    static func draw(fen: String, unicode: Bool = terminalTakesUTF8()) -> String {
        (try? ChessPosition(fen: fen))?.diagram(unicode: unicode) ?? fen
    }

    /// Whether the locale says UTF-8 (LC_ALL, then LC_CTYPE, then LANG).
    static func terminalTakesUTF8(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let lowered = locale.lowercased()
        return lowered.firstRange(of: "utf-8") != nil || lowered.firstRange(of: "utf8") != nil
    }
}
