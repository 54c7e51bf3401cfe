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
    /// Extreme mode: the sentence is needed; this is it.
    case phraseRequired(sentence: String)
    /// Extreme mode: the phrase was wrong.
    case wrongPhrase(denial: String, misses: Int, cooldown: Duration?)
    /// Extreme mode: too many wrong phrases; try again later.
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
        case .phraseRequired(let sentence): "extreme mode: type the phrase to unlock: \"\(sentence)\""
        case .notInThisMode(let text), .limitReached(let text), .nothingToDo(let text),
            .holdIncomplete(let text), .invalidSettings(let text), .restricted(let text),
            .notFound(let text):
            text
        case .wrongPhrase(let denial, let misses, let cooldown):
            if let cooldown { "\(denial) (\(misses) wrong in a row; wait \(cooldown.spoken))" } else { denial }
        case .coolingDown(let remaining, let misses):
            "cooldown: \(remaining.spoken) left after \(misses) wrong phrases"
        case .windowUsed(let app, let nextAt): "\(app): hourly window used, next at \(nextAt)"
        case .pinRequired: "a PIN protects settings: this change loosens protection and needs it"
        case .wrongPin(let failures, let lockout):
            "wrong PIN (\(failures) in a row)" + (lockout.map { "; no PIN is checked for \($0.spoken)" } ?? "")
        case .pinLocked(let remaining, let failures):
            "PIN locked for \(remaining.spoken) after \(failures) wrong entries"
        }
    }

    public var description: String { message }
}
