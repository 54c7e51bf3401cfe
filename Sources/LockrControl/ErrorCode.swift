/// A stable word for each way a control call can fail, the same in the API's JSON (`code`), the
/// CLI and the web pages: a new one breaks every `switch` that misses it instead of printing the
/// wrong thing.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    case badFormToken = "bad_form_token"
    case badRequest = "bad_request"
    case busy
    case cancelled
    case challengeClosed = "challenge_closed"
    case clipTooLarge = "clip_too_large"
    case coolingDown = "cooling_down"
    case gateRequired = "gate_required"
    case holdIncomplete = "hold_incomplete"
    case invalidConfiguration = "invalid_configuration"
    case invalidSettings = "invalid_settings"
    case limitReached = "limit_reached"
    case methodNotAllowed = "method_not_allowed"
    case noClip = "no_clip"
    case noDns = "no_dns"
    case noRecogniser = "no_recogniser"
    case notFound = "not_found"
    case notGuarded = "not_guarded"
    case notInThisMode = "not_in_this_mode"
    case nothingToDo = "nothing_to_do"
    case pasted
    case personRequired = "person_required"
    case phraseRequired = "phrase_required"
    case pinLocked = "pin_locked"
    case pinRequired = "pin_required"
    case restricted
    case storage
    case unauthorized
    /// The client's own: an HTTP failure without lockr's error body.
    case unexpectedAnswer = "unexpected_answer"
    case unknownApp = "unknown_app"
    case unknownPerson = "unknown_person"
    case unreachable
    case unreadableAnswer = "unreadable_answer"
    case unsupportedAudio = "unsupported_audio"
    case unusableClip = "unusable_clip"
    case windowUsed = "window_used"
    case wrongAnswer = "wrong_answer"
    case wrongPhrase = "wrong_phrase"
    case wrongPin = "wrong_pin"
}
