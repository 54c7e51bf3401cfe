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

/// The gate of the mode in force, as the settings in force have it: worked out from them, never
/// stored.
struct GateRules: Sendable {
    let mode: Mode
    let steps: [GateStep]
    let settings: GateSettings
    /// The sentence, naming the window of the mode in force.
    let sentence: String
    let strictness: Strictness
    let calendar: DayCalendar

    init(_ settings: PolicySettings) {
        mode = settings.mode
        steps = settings.gate.steps(for: settings.mode)
        self.settings = settings.gate
        sentence = settings.extreme.sentence(opening: settings.windowLength)
        strictness = settings.extreme.strictness
        calendar = settings.calendar
    }

    /// How the sentence may be given, when the gate asks it.
    var input: SentenceInput? { settings.sentenceInput(for: steps) }
}

/// The gate: puzzles issued and answered, the spoken sentence, the typed fallback, and the check
/// every gated action makes (`pass`). Wrong answers of any kind share the sentence's misses and
/// cooldowns, counted in the day's record; each result goes to the journal and the day's tallies.
extension GateState {
    /// How long a passed step waits to be spent by the action it was passed for.
    static let passLifetime: Duration = .seconds(300)
    /// Late hours start at 22:00 (and run to the day's start): puzzles are a level harder then.
    static let lateFromMinute = 22 * 60

    /// Where the person stands at the gate for `app` (every guarded app when nil).
    func requirement(for app: String?, rules: GateRules, day: DayRecord, at now: Instant) -> GateRequirement {
        let input = rules.input
        let live = passes.filter { $0.expires > now }
        let solved = live.filter { $0.kind == .puzzle }.count
        return GateRequirement(
            steps: rules.steps, sentence: input == nil ? nil : rules.sentence, input: input,
            sentencePassed: live.contains { $0.kind == .sentence },
            puzzlesToSolve: rules.steps.contains(.puzzle) ? max(0, rules.settings.puzzles.count - solved) : 0,
            difficulty: Self.nextDifficulty(for: app, rules: rules, day: day, at: now),
            cooldownUntil: day.cooldownUntil.flatMap { $0 > now ? $0 : nil },
            typedFallbackCost: input == .voice ? Self.typedFallbackCost(rules, day: day) : nil,
            typedFallbackFrom: input == .voice ? typedFallbackFrom : nil)
    }

    /// The level of the next puzzle: the base, raised for more than 3 opens of `app` today (the most
    /// opened app when nil), a late hour, and each wrong answer in a row.
    static func nextDifficulty(for app: String?, rules: GateRules, day: DayRecord, at now: Instant) -> Difficulty {
        let opens = app.map { day.opens[$0] ?? 0 } ?? day.opens.values.max() ?? 0
        let minute = rules.calendar.wallMinute(of: now)
        let dayStart = rules.calendar.dayStartMinutes
        let late = minute >= lateFromMinute || (dayStart < lateFromMinute && minute < dayStart)
        return Difficulty.rising(
            from: rules.settings.puzzles.difficulty, opensToday: opens, late: late, failuresInARow: day.gateMisses)
    }

    /// The wait typing costs where the sentence must be spoken: the cooldown `typedFallbackSteps`
    /// further along the ladder than wrong answers have brought the person today.
    static func typedFallbackCost(_ rules: GateRules, day: DayRecord) -> Duration {
        let steps = rules.settings.typedFallbackSteps
        guard steps > 0 else { return .zero }
        let reached = max(0, day.gateMisses - PhraseGate.freeMisses + 1)
        return PhraseGate.cooldowns[min(reached + steps - 1, PhraseGate.cooldowns.count - 1)]
    }

    /// Issues the puzzles the gate still asks for `app`, chosen with `seed`; those issued before and
    /// not answered are withdrawn.
    mutating func issueChallenges(
        for app: String?, seed: UInt64, rules: GateRules, day: DayRecord, at now: Instant
    ) throws(PolicyRefusal) -> [Challenge] {
        expire(at: now)
        try Self.checkNoCooldown(day, at: now)
        guard rules.steps.contains(.puzzle) else {
            throw .nothingToDo("the \(rules.mode.rawValue) mode's gate asks no puzzle")
        }
        let needed = requirement(for: app, rules: rules, day: day, at: now).puzzlesToSolve
        guard needed > 0 else { throw .nothingToDo("the puzzles are solved: go on (they keep for 5 min)") }
        for withdrawn in challenges { spend(withdrawn) }
        var generator = SeededGenerator(seed: seed)
        let difficulty = Self.nextDifficulty(for: app, rules: rules, day: day, at: now)
        let kinds = rules.settings.puzzles.kinds
        challenges = (0..<needed).map { _ in
            let id = String(generator.next(), radix: 16).leftPadded(to: 16)
            let puzzle = Puzzle.make(kinds.randomElement(using: &generator)!, difficulty, using: &generator)
            return Challenge(id: id, puzzle: puzzle, issued: now, expires: now + rules.settings.puzzles.timeLimit)
        }
        return challenges
    }

    /// Checks the answer to the puzzle `id`. A wrong answer is a miss (with the sentence's
    /// cooldowns) and spends the puzzle; an answer that is no number or move is refused and costs
    /// nothing. Returns the puzzle solved.
    mutating func answerChallenge(
        _ id: String, answer: String, day: inout DayRecord, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> Challenge {
        expire(at: now)
        guard let index = challenges.firstIndex(where: { $0.id == id }) else {
            throw spent[id] != nil
                ? .challengeClosed("puzzle \(id) was answered, withdrawn or expired: ask for a new one")
                : .notFound("no puzzle \(id) (`lockr unlock` asks for them)")
        }
        try Self.checkNoCooldown(day, at: now)
        let challenge = challenges[index]
        let verdict = challenge.puzzle.check(answer)
        if case .unreadable(let how) = verdict { throw .unreadableAnswer(how) }
        challenges.remove(at: index)
        spend(challenge)
        let kind = "\(challenge.puzzle.kind.rawValue) \(challenge.puzzle.difficulty.rawValue)"
        let took = now - challenge.issued
        guard case .wrong(let why) = verdict else {
            passes.append(GatePass(kind: .puzzle, expires: now + Self.passLifetime))
            GateResult.pass(
                kind, took: took, detail: "\(kind) solved in \(took.spoken)", day: &day, journal: &journal, at: now)
            return challenge
        }
        let (misses, cooldown) = GateResult.miss(
            kind, took: took, detail: "\(kind) failed after \(took.spoken): \(why)", day: &day, journal: &journal,
            at: now)
        throw .wrongAnswer(why, misses: misses, cooldown: cooldown)
    }

    /// Checks a spoken sentence; when it is the sentence, the next gated action takes it as said.
    /// Returns until when it keeps.
    mutating func passSpokenSentence(
        _ spoken: Spoken, rules: GateRules, day: inout DayRecord, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> Instant {
        expire(at: now)
        guard let input = rules.input else {
            throw .nothingToDo("the \(rules.mode.rawValue) mode's gate asks no sentence")
        }
        guard input != .typed else { throw .notInThisMode("here the sentence is typed, not spoken") }
        try Self.checkNoCooldown(day, at: now)
        guard PhraseGate.accepts(spoken: spoken.transcript, sentence: rules.sentence, strictness: rules.strictness)
        else {
            let (misses, cooldown) = GateResult.miss(
                "voice", took: spoken.length, detail: "sentence not heard: \"\(spoken.transcript)\"", day: &day,
                journal: &journal, at: now)
            throw .notTheSentence(heard: spoken.transcript, misses: misses, cooldown: cooldown)
        }
        let expires = now + Self.passLifetime
        passes.append(GatePass(kind: .sentence, expires: expires))
        GateResult.pass(
            "voice", took: spoken.length, detail: "sentence spoken: heard \"\(spoken.transcript)\"", day: &day,
            journal: &journal, at: now)
        return expires
    }

    /// Where the sentence must be spoken: begins the wait after which a typed sentence is taken
    /// instead (see `GateSettings.typedFallbackSteps`). Returns when typing is taken.
    mutating func beginTypedFallback(
        rules: GateRules, day: DayRecord, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> Instant {
        guard rules.input == .voice else { throw .nothingToDo("the sentence need not be spoken here: type it") }
        try Self.checkNoCooldown(day, at: now)
        if let from = typedFallbackFrom { return from }
        let from = now + Self.typedFallbackCost(rules, day: day)
        typedFallbackFrom = from
        journal.log(
            .gateFallback, nil,
            "typing the sentence instead of saying it: taken from \(rules.calendar.clockText(from))",
            at: now)
        return from
    }

    /// The check of every gated action (opening a window, snooze and extend where time mode has a
    /// gate, a change that loosens): the puzzles solved, then the sentence (spoken earlier, or
    /// `phrase` typed now). Spends what it takes; a wrong sentence is a miss.
    mutating func pass(
        _ phrase: String?, for app: String?, rules: GateRules, day: inout DayRecord, journal: inout PolicyJournal,
        at now: Instant
    ) throws(PolicyRefusal) {
        guard !rules.steps.isEmpty else { return }
        expire(at: now)
        try Self.checkNoCooldown(day, at: now)
        let requirement = requirement(for: app, rules: rules, day: day, at: now)
        if requirement.puzzlesToSolve > 0 {
            throw .gateIncomplete(
                "solve \(requirement.puzzlesToSolve) puzzle\(requirement.puzzlesToSolve == 1 ? "" : "s") first "
                    + "(`lockr unlock` asks them; POST /api/v1/gate/challenges)")
        }
        var typed = false
        if let input = requirement.input, !requirement.sentencePassed {
            guard let phrase, !PhraseGate.normalize(phrase).isEmpty else {
                throw input == .voice
                    ? .gateIncomplete("say the sentence (`lockr unlock APP --voice`): \"\(rules.sentence)\"")
                    : .phraseRequired(sentence: rules.sentence)
            }
            if input == .voice {
                guard let from = typedFallbackFrom else {
                    throw .gateIncomplete(
                        "here the sentence must be spoken; typing it instead costs a wait of "
                            + "\(Self.typedFallbackCost(rules, day: day).spoken) (`lockr unlock APP --type`)")
                }
                guard now >= from else { throw .coolingDown(remaining: from - now, misses: day.gateMisses) }
            }
            try GateResult.checkTyped(phrase, rules: rules, for: app, day: &day, journal: &journal, at: now)
            typed = true
        }
        var puzzles = rules.settings.puzzles.count
        passes.removeAll { pass in
            switch pass.kind {
            case .sentence: return !typed
            case .puzzle:
                guard rules.steps.contains(.puzzle), puzzles > 0 else { return false }
                puzzles -= 1
                return true
            }
        }
        if typed { typedFallbackFrom = nil }
    }

    /// Refuses while wrong answers keep the gate shut.
    static func checkNoCooldown(_ day: DayRecord, at now: Instant) throws(PolicyRefusal) {
        if let until = day.cooldownUntil, now < until {
            throw .coolingDown(remaining: until - now, misses: day.gateMisses)
        }
    }
}

/// A gate result written down: the day's misses, cooldown and tallies, and the journal's entry.
private enum GateResult {
    /// A typed sentence: right, or a miss with its denial.
    static func checkTyped(
        _ phrase: String, rules: GateRules, for app: String?, day: inout DayRecord, journal: inout PolicyJournal,
        at now: Instant
    ) throws(PolicyRefusal) {
        guard PhraseGate.accepts(phrase, phrase: rules.sentence, strictness: rules.strictness) else {
            let (misses, cooldown) = miss(
                "phrase", took: nil, detail: "wrong phrase", app: app, day: &day, journal: &journal, at: now)
            throw .wrongPhrase(denial: PhraseGate.denial(afterMisses: misses), misses: misses, cooldown: cooldown)
        }
        let misses = day.gateMisses
        pass(
            "phrase", took: nil, detail: misses == 0 ? "phrase accepted" : "phrase accepted after \(misses) wrong",
            app: app, day: &day, journal: &journal, at: now)
    }

    /// Counts a wrong answer: a miss, and a cooldown from the third in a row.
    static func miss(
        _ kind: String, took: Duration?, detail: String, app: String? = nil, day: inout DayRecord,
        journal: inout PolicyJournal, at now: Instant
    ) -> (misses: Int, cooldown: Duration?) {
        day.gateMisses += 1
        let misses = day.gateMisses
        let cooldown = PhraseGate.cooldown(afterMisses: misses)
        day.cooldownUntil = cooldown.map { now + $0 }
        tally(kind, passed: false, took: took, in: &day)
        journal.log(
            .gateFail, app, "\(detail) (#\(misses) in a row" + (cooldown.map { ", cooldown \($0.spoken)" } ?? "") + ")",
            at: now)
        return (misses, cooldown)
    }

    static func pass(
        _ kind: String, took: Duration?, detail: String, app: String? = nil, day: inout DayRecord,
        journal: inout PolicyJournal, at now: Instant
    ) {
        day.gateMisses = 0
        day.cooldownUntil = nil
        tally(kind, passed: true, took: took, in: &day)
        journal.log(.gatePass, app, detail, at: now)
    }

    private static func tally(_ kind: String, passed: Bool, took: Duration?, in day: inout DayRecord) {
        var tally = day.gates[kind, default: GateTally()]
        if passed { tally.passed += 1 } else { tally.failed += 1 }
        if let took {
            tally.milliseconds += took.milliseconds
            tally.timed += 1
        }
        day.gates[kind] = tally
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
