import LockrPuzzles

/// A puzzle issued to a person: answered once, before it expires.
public struct Challenge: Sendable, Equatable, Codable {
    /// 16 hex digits, unguessable enough for a household.
    public let id: String
    public let puzzle: Puzzle
    public let issued: Instant
    public let expires: Instant
}

/// A gate step passed and not yet spent: the next gated action takes it.
public struct GatePass: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable {
        case sentence
        case puzzle
    }
    public let kind: Kind
    public let expires: Instant
}

/// Where a person is in their gate: puzzles out, steps passed, ids already answered, and the typed
/// fallback's wait where the sentence must be spoken.
public struct GateState: Sendable, Equatable, Codable {
    public var challenges: [Challenge] = []
    public var passes: [GatePass] = []
    /// Ids answered, withdrawn or expired lately, each until an hour after it would have expired:
    /// answering one again is refused as closed, not as unknown.
    public var spent: [String: Instant] = [:]
    /// When a typed sentence is taken where it must be spoken; nil until the fallback was asked for.
    public var typedFallbackFrom: Instant?

    public init() {}

    /// Remembers `challenge` as answered, withdrawn or expired.
    mutating func spend(_ challenge: Challenge) {
        spent[challenge.id] = challenge.expires + .seconds(3600)
    }

    /// Drops what expired by `now`.
    mutating func expire(at now: Instant) {
        for challenge in challenges where challenge.expires <= now { spend(challenge) }
        challenges.removeAll { $0.expires <= now }
        passes.removeAll { $0.expires <= now }
        spent = spent.filter { $0.value > now }
    }
}

/// One kind of gate's results on a day ("chess hard", "voice").
public struct GateTally: Sendable, Equatable, Codable {
    public var passed = 0
    public var failed = 0
    /// Time taken, summed over the results whose time is known, and how many those are.
    public var milliseconds: Int64 = 0
    public var timed = 0

    public init() {}
}

/// The sentence as the recogniser heard it.
public struct Spoken: Sendable, Equatable, Codable {
    public let transcript: String
    /// The clip's length.
    public let length: Duration

    public init(transcript: String, length: Duration) {
        self.transcript = transcript
        self.length = length
    }
}

extension GateState {
    /// Carries out a gate action: puzzles issued (for the app `appID` finds, every guarded app
    /// when nil), one answered, the sentence spoken, or the typed fallback's wait begun. Only for
    /// those four actions.
    mutating func apply(
        _ action: PolicyAction, appID: (String?) throws(PolicyRefusal) -> String?, rules: GateRules,
        day: inout DayRecord, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> ActionOutcome {
        switch action {
        case .issueChallenges(let app, let seed):
            .challenges(try issueChallenges(for: try appID(app), seed: seed, rules: rules, day: day, at: now))
        case .answerChallenge(let id, let answer):
            .answered(try answerChallenge(id, answer: answer, day: &day, journal: &journal, at: now))
        case .passSpokenSentence(let spoken):
            .gateOpen(until: try passSpokenSentence(spoken, rules: rules, day: &day, journal: &journal, at: now))
        case .beginTypedFallback:
            .typedFallback(from: try beginTypedFallback(rules: rules, day: day, journal: &journal, at: now))
        default: preconditionFailure("\(action.name.rawValue) is no gate action")
        }
    }
}
