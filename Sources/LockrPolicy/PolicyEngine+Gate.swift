import LockrPuzzles

/// What a person's gate asks now: for a client to walk through it step by step.
public struct GateRequirement: Sendable, Equatable {
    /// The current mode's gate; empty when it asks nothing.
    public let steps: [GateStep]
    /// The sentence, when the gate asks it, and how it may be given.
    public let sentence: String?
    public let input: SentenceInput?
    /// Whether a spoken sentence was already accepted and waits to be spent.
    public let sentencePassed: Bool
    /// Puzzles still to solve, and the level the next one will have.
    public let puzzlesToSolve: Int
    public let difficulty: Difficulty
    /// Until when wrong answers keep the gate shut.
    public let cooldownUntil: Instant?
    /// Where the sentence must be spoken: the wait typing it instead costs, and when a typed
    /// sentence is taken once that wait was begun.
    public let typedFallbackCost: Duration?
    public let typedFallbackFrom: Instant?
}

/// The gate: puzzles issued and answered, the spoken sentence, the typed fallback, and the check
/// every gated action makes (`passGate`). Wrong answers of any kind share the sentence's misses
/// and cooldowns; each result goes to the event log and the day's tallies.
extension PolicyEngine {
    /// How long a passed step waits to be spent by the action it was passed for.
    public static let passLifetime: Duration = .seconds(300)
    /// Late hours start at 22:00 (and run to the day's start): puzzles are a level harder then.
    static let lateFromMinute = 22 * 60

    /// The current mode's gate.
    public var gateSteps: [GateStep] { settings.gate.steps(for: settings.mode) }

    /// Where `person` stands at their gate for `app` (every guarded app when nil).
    public func gateRequirement(for app: String?, at now: Instant) -> GateRequirement {
        let now = max(now, state.lastSeen)
        let steps = gateSteps
        let input = settings.gate.sentenceInput(for: steps)
        let gate = state.gate
        let live = gate.passes.filter { $0.expires > now }
        let solved = live.filter { $0.kind == .puzzle }.count
        return GateRequirement(
            steps: steps, sentence: input == nil ? nil : sentence, input: input,
            sentencePassed: live.contains { $0.kind == .sentence },
            puzzlesToSolve: steps.contains(.puzzle) ? max(0, settings.gate.puzzles.count - solved) : 0,
            difficulty: nextDifficulty(for: try? app.map(appID), at: now),
            cooldownUntil: state.today.cooldownUntil.flatMap { $0 > now ? $0 : nil },
            typedFallbackCost: input == .voice ? typedFallbackCost : nil,
            typedFallbackFrom: input == .voice ? gate.typedFallbackFrom : nil)
    }

    /// The sentence, naming the window of the mode in force.
    var sentence: String { settings.extreme.sentence(opening: settings.windowLength) }

    /// The level of the next puzzle: the base, raised for more than 3 opens of `app` today (the most
    /// opened app when nil), a late hour, and each wrong answer in a row.
    func nextDifficulty(for app: String?, at now: Instant) -> Difficulty {
        let opens = app.map { state.today.opens[$0] ?? 0 } ?? state.today.opens.values.max() ?? 0
        let minute = settings.calendar.wallMinute(of: now)
        let dayStart = settings.calendar.dayStartMinutes
        let late = minute >= Self.lateFromMinute || (dayStart < Self.lateFromMinute && minute < dayStart)
        return Difficulty.rising(
            from: settings.gate.puzzles.difficulty, opensToday: opens, late: late, failuresInARow: state.today.gateMisses)
    }

    /// Issues the puzzles the gate still asks for `app`, chosen with `seed`; those issued before and
    /// not answered are withdrawn.
    public mutating func issueChallenges(for app: String?, seed: UInt64, at now: Instant) throws(PolicyRefusal)
        -> [Challenge]
    {
        let now = advance(to: now)
        let app = try app.map(appID)
        state.gate.expire(at: now)
        try checkNoCooldown(at: now)
        guard gateSteps.contains(.puzzle) else {
            throw .nothingToDo("the \(settings.mode.rawValue) mode's gate asks no puzzle")
        }
        let needed = gateRequirement(for: app, at: now).puzzlesToSolve
        guard needed > 0 else { throw .nothingToDo("the puzzles are solved: go on (they keep for 5 min)") }
        for withdrawn in state.gate.challenges { state.gate.spent[withdrawn.id] = withdrawn.expires }
        var generator = SeededGenerator(seed: seed)
        let difficulty = nextDifficulty(for: app, at: now)
        let kinds = settings.gate.puzzles.kinds
        state.gate.challenges = (0..<needed).map { _ in
            let id = String(generator.next(), radix: 16).leftPadded(to: 16)
            let puzzle = Puzzle.make(kinds.randomElement(using: &generator)!, difficulty, using: &generator)
            return Challenge(id: id, puzzle: puzzle, issued: now, expires: now + settings.gate.puzzles.timeLimit)
        }
        return state.gate.challenges
    }

    /// Checks the answer to the puzzle `id`. A wrong answer is a miss (with the sentence's
    /// cooldowns) and spends the puzzle; an answer that is no number or move is refused and costs
    /// nothing. Returns the puzzle solved.
    public mutating func answerChallenge(_ id: String, answer: String, at now: Instant) throws(PolicyRefusal) -> Challenge {
        let now = advance(to: now)
        state.gate.expire(at: now)
        guard let index = state.gate.challenges.firstIndex(where: { $0.id == id }) else {
            throw state.gate.spent[id] != nil
                ? .challengeClosed("puzzle \(id) was answered, withdrawn or expired: ask for a new one")
                : .notFound("no puzzle \(id) (`lockr unlock` asks for them)")
        }
        try checkNoCooldown(at: now)
        let challenge = state.gate.challenges[index]
        let verdict = challenge.puzzle.check(answer)
        if case .unreadable(let how) = verdict { throw .unreadableAnswer(how) }
        state.gate.challenges.remove(at: index)
        state.gate.spent[id] = challenge.expires
        let kind = "\(challenge.puzzle.kind.rawValue) \(challenge.puzzle.difficulty.rawValue)"
        let took = now - challenge.issued
        guard case .wrong(let why) = verdict else {
            state.gate.passes.append(GatePass(kind: .puzzle, expires: now + Self.passLifetime))
            notePass(kind, took: took, detail: "\(kind) solved in \(took.spoken)", at: now)
            return challenge
        }
        let (misses, cooldown) = noteMiss(kind, took: took, detail: "\(kind) failed after \(took.spoken): \(why)", at: now)
        throw .wrongAnswer(why, misses: misses, cooldown: cooldown)
    }

    /// Checks a spoken sentence; when it is the sentence, the next gated action takes it as said.
    /// Returns until when it keeps.
    public mutating func passSpokenSentence(_ spoken: Spoken, at now: Instant) throws(PolicyRefusal) -> Instant {
        let now = advance(to: now)
        state.gate.expire(at: now)
        guard let input = settings.gate.sentenceInput(for: gateSteps) else {
            throw .nothingToDo("the \(settings.mode.rawValue) mode's gate asks no sentence")
        }
        guard input != .typed else { throw .notInThisMode("here the sentence is typed, not spoken") }
        try checkNoCooldown(at: now)
        guard PhraseGate.accepts(spoken: spoken.transcript, sentence: sentence, strictness: settings.extreme.strictness)
        else {
            let (misses, cooldown) = noteMiss(
                "voice", took: spoken.length, detail: "sentence not heard: \"\(spoken.transcript)\"", at: now)
            throw .notTheSentence(heard: spoken.transcript, misses: misses, cooldown: cooldown)
        }
        let expires = now + Self.passLifetime
        state.gate.passes.append(GatePass(kind: .sentence, expires: expires))
        notePass("voice", took: spoken.length, detail: "sentence spoken: heard \"\(spoken.transcript)\"", at: now)
        return expires
    }

    /// Where the sentence must be spoken: begins the wait after which a typed sentence is taken
    /// instead (see `GateSettings.typedFallbackSteps`). Returns when typing is taken.
    public mutating func beginTypedFallback(at now: Instant) throws(PolicyRefusal) -> Instant {
        let now = advance(to: now)
        guard settings.gate.sentenceInput(for: gateSteps) == .voice else {
            throw .nothingToDo("the sentence need not be spoken here: type it")
        }
        try checkNoCooldown(at: now)
        if let from = state.gate.typedFallbackFrom { return from }
        let from = now + typedFallbackCost
        state.gate.typedFallbackFrom = from
        log(.gateFallback, nil, "typing the sentence instead of saying it: taken from \(settings.calendar.clockText(from))", at: now)
        return from
    }

    /// The wait typing costs where the sentence must be spoken: the cooldown `typedFallbackSteps`
    /// further along the ladder than wrong answers have brought the person today.
    var typedFallbackCost: Duration {
        let steps = settings.gate.typedFallbackSteps
        guard steps > 0 else { return .zero }
        let reached = max(0, state.today.gateMisses - PhraseGate.freeMisses + 1)
        return PhraseGate.cooldowns[min(reached + steps - 1, PhraseGate.cooldowns.count - 1)]
    }

    /// The check of every gated action (opening a window, snooze and extend where time mode has a
    /// gate, a change that loosens): the puzzles solved, then the sentence (spoken earlier, or
    /// `phrase` typed now). Spends what it takes; a wrong sentence is a miss.
    mutating func passGate(_ phrase: String?, for app: String?, at now: Instant) throws(PolicyRefusal) {
        let steps = gateSteps
        guard !steps.isEmpty else { return }
        state.gate.expire(at: now)
        try checkNoCooldown(at: now)
        let requirement = gateRequirement(for: app, at: now)
        if requirement.puzzlesToSolve > 0 {
            throw .gateIncomplete(
                "solve \(requirement.puzzlesToSolve) puzzle\(requirement.puzzlesToSolve == 1 ? "" : "s") first "
                    + "(`lockr unlock` asks them; POST /api/v1/gate/challenges)")
        }
        var typed = false
        if let input = requirement.input, !requirement.sentencePassed {
            guard let phrase, !PhraseGate.normalize(phrase).isEmpty else {
                throw input == .voice
                    ? .gateIncomplete("say the sentence (`lockr unlock APP --voice`): \"\(sentence)\"")
                    : .phraseRequired(sentence: sentence)
            }
            if input == .voice {
                guard let from = state.gate.typedFallbackFrom else {
                    throw .gateIncomplete(
                        "here the sentence must be spoken; typing it instead costs a wait of "
                            + "\(typedFallbackCost.spoken) (`lockr unlock APP --type`)")
                }
                guard now >= from else { throw .coolingDown(remaining: from - now, misses: state.today.gateMisses) }
            }
            try checkTypedSentence(phrase, for: app, at: now)
            typed = true
        }
        var puzzles = settings.gate.puzzles.count
        state.gate.passes.removeAll { pass in
            switch pass.kind {
            case .sentence: return !typed
            case .puzzle:
                guard steps.contains(.puzzle), puzzles > 0 else { return false }
                puzzles -= 1
                return true
            }
        }
        if typed { state.gate.typedFallbackFrom = nil }
    }

    /// A typed sentence: right, or a miss with its denial.
    private mutating func checkTypedSentence(_ phrase: String, for app: String?, at now: Instant) throws(PolicyRefusal) {
        guard PhraseGate.accepts(phrase, phrase: sentence, strictness: settings.extreme.strictness) else {
            let (misses, cooldown) = noteMiss("phrase", took: nil, detail: "wrong phrase", app: app, at: now)
            throw .wrongPhrase(denial: PhraseGate.denial(afterMisses: misses), misses: misses, cooldown: cooldown)
        }
        let misses = state.today.gateMisses
        notePass("phrase", took: nil, detail: misses == 0 ? "phrase accepted" : "phrase accepted after \(misses) wrong", app: app, at: now)
    }

    func checkNoCooldown(at now: Instant) throws(PolicyRefusal) {
        if let until = state.today.cooldownUntil, now < until {
            throw .coolingDown(remaining: until - now, misses: state.today.gateMisses)
        }
    }

    /// Counts a wrong answer: a miss, and a cooldown from the third in a row.
    private mutating func noteMiss(
        _ kind: String, took: Duration?, detail: String, app: String? = nil, at now: Instant
    ) -> (misses: Int, cooldown: Duration?) {
        state.today.gateMisses += 1
        let misses = state.today.gateMisses
        let cooldown = PhraseGate.cooldown(afterMisses: misses)
        state.today.cooldownUntil = cooldown.map { now + $0 }
        tally(kind, passed: false, took: took)
        log(.gateFail, app, "\(detail) (#\(misses) in a row" + (cooldown.map { ", cooldown \($0.spoken)" } ?? "") + ")", at: now)
        return (misses, cooldown)
    }

    private mutating func notePass(_ kind: String, took: Duration?, detail: String, app: String? = nil, at now: Instant) {
        state.today.gateMisses = 0
        state.today.cooldownUntil = nil
        tally(kind, passed: true, took: took)
        log(.gatePass, app, detail, at: now)
    }

    private mutating func tally(_ kind: String, passed: Bool, took: Duration?) {
        var tally = state.today.gates[kind, default: GateTally()]
        if passed { tally.passed += 1 } else { tally.failed += 1 }
        if let took {
            tally.milliseconds += took.milliseconds
            tally.timed += 1
        }
        state.today.gates[kind] = tally
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
