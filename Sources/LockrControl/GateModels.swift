import LockrPolicy
import LockrSpeech

/// A failure with its own HTTP status.
struct HTTPFailure: Error {
    let status: Int
    let body: ErrorBody

    init(status: Int, error: String, code: ErrorCode) {
        self.status = status
        body = ErrorBody(error: error, code: code)
    }

    /// Why a clip was not heard, as the API answers it.
    init(_ refusal: HearingRefusal) {
        switch refusal {
        case .unsupported(let why): self.init(status: 415, error: why, code: .unsupportedAudio)
        case .unusable(let why): self.init(status: 422, error: why, code: .unusableClip)
        case .busy(let why): self.init(status: 429, error: why, code: .busy)
        case .unavailable(let why): self.init(status: 503, error: why, code: .noRecogniser)
        }
    }
}

/// What a person's gate asks now (`GET gate`).
public struct GateBody: Codable, Sendable, Equatable {
    /// The current mode's gate: "phrase", "voice", "puzzle"; empty when it asks nothing.
    public let steps: [String]
    /// The sentence, when the gate asks it, and how: "typed", "voice" or "either".
    public let sentence: String?
    public let input: String?
    /// A spoken sentence was accepted and waits for the action it was said for.
    public let sentencePassed: Bool
    public let puzzlesToSolve: Int
    /// The level the next puzzle will have, and the kinds it is drawn from.
    public let difficulty: String
    public let puzzleKinds: [String]
    public let cooldownUntil: TimeBody?
    /// Where the sentence must be spoken: the wait typing it costs, and when a typed one is taken
    /// once that wait began (`POST gate/fallback`).
    public let typedFallbackSeconds: Int64?
    public let typedFallbackFrom: TimeBody?
}

/// A puzzle to solve before it expires.
public struct ChallengeBody: Codable, Sendable, Equatable {
    public let id: String
    /// "arithmetic" or "chess".
    public let kind: String
    public let difficulty: String
    public let prompt: String
    /// Chess: the position in FEN.
    public let position: String?
    public let expires: TimeBody
}

public struct ChallengesResponse: Codable, Sendable, Equatable {
    public let challenges: [ChallengeBody]
}

public struct ChallengeRequest: Codable, Sendable, Equatable {
    /// The app the gate is for (its opens today raise the difficulty); every guarded app when nil.
    public let app: String?

    public init(app: String?) { self.app = app }
}

public struct AnswerRequest: Codable, Sendable, Equatable {
    /// A whole number, or a chess move in SAN ("Qh7#") or UCI ("d3h7").
    public let answer: String

    public init(answer: String) { self.answer = answer }
}

/// A step passed: the gate as it now stands.
public struct GatePassedResponse: Codable, Sendable, Equatable {
    public let gate: GateBody
    /// The spoken sentence: what the recogniser heard, and how long recognising took.
    public var heard: String? = nil
    public var recognitionMilliseconds: Int64? = nil
}

public struct FallbackResponse: Codable, Sendable, Equatable {
    /// When a typed sentence is taken.
    public let typedFrom: TimeBody
    /// The wait in real milliseconds (policy time may run faster: `--time-scale`).
    public let waitMilliseconds: Int64
}

extension GateBody {
    init(_ requirement: GateRequirement, puzzleKinds: [String], now: Instant, calendar: DayCalendar) {
        steps = requirement.steps.map(\.rawValue)
        sentence = requirement.sentence
        input = requirement.input?.rawValue
        sentencePassed = requirement.sentencePassed
        puzzlesToSolve = requirement.puzzlesToSolve
        difficulty = requirement.difficulty.rawValue
        self.puzzleKinds = puzzleKinds
        cooldownUntil = requirement.cooldownUntil.map { TimeBody($0, now: now, calendar: calendar) }
        typedFallbackSeconds = requirement.typedFallbackCost?.secondsRoundedUp
        typedFallbackFrom = requirement.typedFallbackFrom.map { TimeBody($0, now: now, calendar: calendar) }
    }
}

extension ChallengeBody {
    init(_ challenge: Challenge, now: Instant, calendar: DayCalendar) {
        id = challenge.id
        kind = challenge.puzzle.kind.rawValue
        difficulty = challenge.puzzle.difficulty.rawValue
        prompt = challenge.puzzle.prompt
        position = challenge.puzzle.position
        expires = TimeBody(challenge.expires, now: now, calendar: calendar)
    }
}
