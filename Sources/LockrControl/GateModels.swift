import LockrAPI
import LockrPolicy

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
