/// Why the policy did not do what was asked. `message` is written for the person who asked.
public enum PolicyRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// No app of that id exists in the catalogue; perhaps the one suggested was meant.
    case unknownApp(String, suggestion: String? = nil)
    /// The app exists but is not guarded, so there is nothing to unlock.
    case notGuarded(String)
    /// The action does not exist in the active mode.
    case notInThisMode(String)
    /// Today's allowance of this action is used up.
    case limitReached(String)
    /// There is nothing the action would change.
    case nothingToDo(String)
    /// The gate asks the typed sentence; this is it.
    case phraseRequired(sentence: String)
    /// The gate asks more first (puzzles, the spoken sentence): what, and how.
    case gateIncomplete(String)
    /// The typed sentence was wrong.
    case wrongPhrase(denial: String, misses: Int, cooldown: Duration?)
    /// The spoken sentence was not the sentence: what the recogniser heard.
    case notTheSentence(heard: String, misses: Int, cooldown: Duration?)
    /// A puzzle's answer was wrong: why.
    case wrongAnswer(String, misses: Int, cooldown: Duration?)
    /// An answer that is no number or move at all: how to write one. Nothing was counted.
    case unreadableAnswer(String)
    /// The puzzle was answered, withdrawn or has expired.
    case challengeClosed(String)
    /// Too many wrong answers at the gate; try again later.
    case coolingDown(remaining: Duration, misses: Int)
    /// The app already had its window this hour.
    case windowUsed(app: String, nextAt: String)
    /// The emergency hold was not found or has not lasted long enough.
    case holdIncomplete(String)
    /// A setting outside what lockr accepts.
    case invalidSettings(String)
    /// A PIN protects settings and this change loosens: it needs the PIN.
    case pinRequired
    /// The PIN given was wrong.
    case wrongPin(failures: Int, lockout: Duration?)
    /// A schedule or profile blocks it: only the emergency opens it.
    case restricted(String)
    /// No schedule or profile of that name.
    case notFound(String)
    /// Too many wrong PINs: no entry is checked for a while.
    case pinLocked(remaining: Duration, failures: Int)

    public var message: String {
        switch self {
        case .unknownApp(let id, let suggestion):
            "no app '\(id)' in the catalogue" + (suggestion.map { "; did you mean \($0)?" } ?? " (`lockr apps` lists them)")
        case .notGuarded(let id): "\(id) is not guarded"
        case .phraseRequired(let sentence): "type the sentence to pass the gate: \"\(sentence)\""
        case .notInThisMode(let text), .limitReached(let text), .nothingToDo(let text),
            .holdIncomplete(let text), .invalidSettings(let text), .restricted(let text),
            .notFound(let text), .gateIncomplete(let text), .unreadableAnswer(let text), .challengeClosed(let text):
            text
        case .wrongPhrase(let denial, let misses, let cooldown):
            Self.withCooldown(denial, misses: misses, cooldown: cooldown)
        case .notTheSentence(let heard, let misses, let cooldown):
            Self.withCooldown(
                heard.isEmpty ? "no words were made out" : "heard \"\(heard)\": not the sentence", misses: misses,
                cooldown: cooldown)
        case .wrongAnswer(let why, let misses, let cooldown):
            Self.withCooldown("wrong: \(why)", misses: misses, cooldown: cooldown)
        case .coolingDown(let remaining, let misses):
            "cooldown: \(remaining.spoken) left after \(misses) wrong answers"
        case .windowUsed(let app, let nextAt): "\(app): hourly window used, next at \(nextAt)"
        case .pinRequired: "a PIN protects settings: this change loosens protection and needs it"
        case .wrongPin(let failures, let lockout):
            "wrong PIN (\(failures) in a row)" + (lockout.map { "; no PIN is checked for \($0.spoken)" } ?? "")
        case .pinLocked(let remaining, let failures):
            "PIN locked for \(remaining.spoken) after \(failures) wrong entries"
        }
    }

    public var description: String { message }

    private static func withCooldown(_ text: String, misses: Int, cooldown: Duration?) -> String {
        guard let cooldown else { return text }
        return "\(text) (\(misses) wrong in a row; wait \(cooldown.spoken))"
    }
}
