/// The engine's side of the gate (see `GateState`): the rules of the settings in force, today's
/// record and the journal handed to it.
extension PolicyEngine {
    /// The current mode's gate.
    public var gateSteps: [GateStep] { settings.gate.steps(for: settings.mode) }

    var gateRules: GateRules { GateRules(settings) }

    /// Where the person stands at their gate for `app` (every guarded app when nil).
    public func gateRequirement(for app: String?, at now: Instant) -> GateRequirement {
        state.gate.requirement(
            for: try? app.map(appID), rules: gateRules, day: state.today, at: max(now, state.lastSeen))
    }

    /// Issues the puzzles the gate still asks for `app`, chosen with `seed`; those issued before and
    /// not answered are withdrawn.
    mutating func issueChallenges(
        for app: String?, seed: UInt64, at now: Instant
    ) throws(PolicyRefusal)
        -> [Challenge]
    {
        let now = advance(to: now)
        let app = try app.map(appID)
        return try state.gate.issueChallenges(for: app, seed: seed, rules: gateRules, day: state.today, at: now)
    }

    /// Checks the answer to the puzzle `id` (see `GateState.answerChallenge`).
    mutating func answerChallenge(
        _ id: String, answer: String, at now: Instant
    ) throws(PolicyRefusal) -> Challenge {
        let now = advance(to: now)
        return try state.gate.answerChallenge(id, answer: answer, day: &state.today, journal: &journal, at: now)
    }

    /// Checks a spoken sentence; when it is the sentence, the next gated action takes it as said.
    /// Returns until when it keeps.
    mutating func passSpokenSentence(_ spoken: Spoken, at now: Instant) throws(PolicyRefusal) -> Instant {
        let now = advance(to: now)
        return try state.gate.passSpokenSentence(
            spoken, rules: gateRules, day: &state.today, journal: &journal, at: now)
    }

    /// Where the sentence must be spoken: begins the wait after which a typed sentence is taken
    /// instead. Returns when typing is taken.
    mutating func beginTypedFallback(at now: Instant) throws(PolicyRefusal) -> Instant {
        let now = advance(to: now)
        return try state.gate.beginTypedFallback(rules: gateRules, day: state.today, journal: &journal, at: now)
    }

    /// The check of every gated action: see `GateState.pass`.
    mutating func passGate(_ phrase: String?, for app: String?, at now: Instant) throws(PolicyRefusal) {
        try state.gate.pass(phrase, for: app, rules: gateRules, day: &state.today, journal: &journal, at: now)
    }
}
