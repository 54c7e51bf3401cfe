import Foundation
import PlainText

/// Asks for the extreme-mode sentence at the terminal. It must be typed: the terminal is put in
/// bracketed paste mode, which marks pasted text (`ESC [200~ ... ESC [201~`), and a line holding those
/// marks is refused. An empty line or Ctrl-D is no attempt: nothing is sent.
enum SentencePrompt {
    enum Outcome: Equatable {
        case typed(String)
        case pasted
        case nothing
    }

    static let pasteStart = "\u{1B}[200~"
    static let pasteEnd = "\u{1B}[201~"

    /// Shows `sentence` and reads one line from the terminal.
    static func ask(_ sentence: String) -> Outcome {
        print("Type this sentence (pasting is not accepted):\n  \(sentence)")
        var saved = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if isTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHOCTL)  // the paste marks must not echo as ^[[200~
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
            restoreOnInterrupt(saved)
        }
        print("\(bracketedPaste(on: true))> ", terminator: "")
        fflush(nil)
        let line = readLine(strippingNewline: true)
        print(bracketedPaste(on: false), terminator: "")
        fflush(nil)
        if isTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
        return outcome(of: line)
    }

    /// What a line read at the prompt amounts to.
    static func outcome(of line: String?) -> Outcome {
        guard let line else { return .nothing }
        if line.firstRange(of: pasteStart) != nil || line.firstRange(of: pasteEnd) != nil { return .pasted }
        return line.trimmed.isEmpty ? .nothing : .typed(line)
    }

    private static func bracketedPaste(on: Bool) -> String { on ? "\u{1B}[?2004h" : "\u{1B}[?2004l" }

    /// Ctrl-C at the prompt leaves the terminal as it was.
    private static func restoreOnInterrupt(_ settings: termios) {
        savedTerminal = settings
        signal(SIGINT) { _ in
            var settings = savedTerminal
            tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            let reset = "\u{1B}[?2004l\n"
            _ = reset.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
            _exit(130)
        }
    }
}

nonisolated(unsafe) private var savedTerminal = termios()
