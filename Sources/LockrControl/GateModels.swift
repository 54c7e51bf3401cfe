import LockrAPI
import LockrPolicy
import LockrSpeech

/// A failure with its own HTTP status.
struct HTTPFailure: Error {
    let status: Int
    let body: Components.Schemas.ErrorBody

    init(status: Int, error: String, code: Components.Schemas.ErrorCode) {
        self.status = status
        body = Components.Schemas.ErrorBody(error: error, code: code)
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

extension Components.Schemas.GateBody {
    init(_ requirement: GateRequirement, puzzleKinds: [String], now: Instant, calendar: DayCalendar) {
        self.init(
            steps: requirement.steps,
            sentence: requirement.sentence,
            input: requirement.input,
            sentencePassed: requirement.sentencePassed,
            puzzlesToSolve: requirement.puzzlesToSolve,
            difficulty: requirement.difficulty,
            puzzleKinds: puzzleKinds,
            cooldownUntil: requirement.cooldownUntil.map {
                Components.Schemas.TimeBody($0, now: now, calendar: calendar)
            },
            typedFallbackSeconds: requirement.typedFallbackCost?.secondsRoundedUp,
            typedFallbackFrom: requirement.typedFallbackFrom.map {
                Components.Schemas.TimeBody($0, now: now, calendar: calendar)
            })
    }
}

extension Components.Schemas.ChallengeBody {
    init(_ challenge: Challenge, now: Instant, calendar: DayCalendar) {
        self.init(
            id: challenge.id,
            kind: challenge.puzzle.kind,
            difficulty: challenge.puzzle.difficulty,
            prompt: challenge.puzzle.prompt,
            position: challenge.puzzle.position,
            expires: Components.Schemas.TimeBody(challenge.expires, now: now, calendar: calendar))
    }
}
