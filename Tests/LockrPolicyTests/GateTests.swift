import Foundation
import Testing

@testable import LockrPolicy
@testable import LockrPuzzles

/// The gate, driven with an injected clock: puzzles, the spoken sentence, the typed fallback, and
/// the gate guarding every action that opens an app or loosens protection.
@Suite struct GateTests {
    let start = at("2026-06-01T10:00:00Z")

    func settings(_ mode: Mode, gate: [GateStep], input: SentenceInput = .either) -> PolicySettings {
        var settings = PolicySettings(mode: mode, calendar: utc)
        switch mode {
        case .time: settings.gate.time = gate
        case .hourly: settings.gate.hourly = gate
        case .extreme: settings.gate.extreme = gate
        }
        settings.gate.input = input
        settings.gate.puzzles.kinds = [.arithmetic]
        return settings
    }

    /// Solves every issued puzzle with its answer.
    func solveAll(_ engine: inout PolicyEngine, at now: Instant, seed: UInt64 = 1) throws {
        for challenge in try engine.issueChallenges(for: "tiktok", seed: seed, at: now) {
            _ = try engine.answerChallenge(challenge.id, answer: String(challenge.puzzle.answer!), at: now)
        }
    }

    @Test func aPuzzleGateOpensOnlyOnceThePuzzlesAreSolvedAndEachSolutionOpensOnce() throws {
        var engine = engine(settings(.hourly, gate: [.puzzle]), now: start)
        #expect(
            throws: PolicyRefusal.gateIncomplete(
                "solve 1 puzzle first (`lockr unlock` asks them; POST /api/v1/gate/challenges)")
        ) {
            try engine.unlock("tiktok", phrase: nil, at: start)
        }
        try solveAll(&engine, at: start)
        #expect(try engine.unlock("tiktok", phrase: nil, at: start).opened.count == 1)
        // The next hour's window needs a puzzle of its own.
        let next = start + .seconds(3600)
        #expect(throws: PolicyRefusal.self) { try engine.unlock("tiktok", phrase: nil, at: next) }
        #expect(engine.state.today.gates["arithmetic easy"]?.passed == 1)
        #expect(engine.drainEvents().contains { $0.type == .gatePass && $0.detail == "arithmetic easy solved in 0 s" })
    }

    @Test func aWrongAnswerIsAMissAndSpendsThePuzzleAndAnAnswerThatIsNoNumberCostsNothing() throws {
        var engine = engine(settings(.hourly, gate: [.puzzle]), now: start)
        let challenge = try #require(try engine.issueChallenges(for: "tiktok", seed: 9, at: start).first)
        #expect(throws: PolicyRefusal.unreadableAnswer("answer with a whole number")) {
            try engine.answerChallenge(challenge.id, answer: "lots", at: start)
        }
        #expect(engine.state.today.gateMisses == 0)
        let wrong = challenge.puzzle.answer! + 1
        #expect(throws: PolicyRefusal.wrongAnswer("\(wrong) is not the answer", misses: 1, cooldown: nil)) {
            try engine.answerChallenge(challenge.id, answer: String(wrong), at: start + .seconds(12))
        }
        #expect(
            throws: PolicyRefusal.challengeClosed(
                "puzzle \(challenge.id) was answered, withdrawn or expired: ask for a new one")
        ) {
            try engine.answerChallenge(challenge.id, answer: String(challenge.puzzle.answer!), at: start + .seconds(13))
        }
        // Still closed, not unknown, once the puzzle's own time is over.
        #expect(
            throws: PolicyRefusal.challengeClosed(
                "puzzle \(challenge.id) was answered, withdrawn or expired: ask for a new one")
        ) {
            try engine.answerChallenge(challenge.id, answer: "1", at: start + .seconds(600))
        }
        #expect(throws: PolicyRefusal.notFound("no puzzle 0123 (`lockr unlock` asks for them)")) {
            try engine.answerChallenge("0123", answer: "1", at: start)
        }
        #expect(engine.state.today.gates["arithmetic easy"]?.failed == 1)
        #expect(engine.state.today.gates["arithmetic easy"]?.milliseconds == 12_000)
    }

    @Test func anExpiredPuzzleIsRefusedAndCountsNothing() throws {
        var engine = engine(settings(.hourly, gate: [.puzzle]), now: start)
        let challenge = try #require(try engine.issueChallenges(for: "tiktok", seed: 2, at: start).first)
        #expect(challenge.expires == start + .seconds(120))
        #expect(throws: PolicyRefusal.self) {
            try engine.answerChallenge(
                challenge.id, answer: String(challenge.puzzle.answer!), at: start + .seconds(121))
        }
        #expect(engine.state.today.gateMisses == 0 && engine.state.gate.passes.isEmpty)
    }

    @Test func threeWrongAnswersStartTheSentencesCooldownsAndRaiseTheDifficulty() throws {
        var engine = engine(settings(.hourly, gate: [.puzzle]), now: start)
        var now = start
        var difficulties: [Difficulty] = []
        for _ in 0..<3 {
            let challenge = try #require(try engine.issueChallenges(for: "tiktok", seed: 5, at: now).first)
            difficulties.append(challenge.puzzle.difficulty)
            #expect(throws: PolicyRefusal.self) {
                try engine.answerChallenge(challenge.id, answer: String(challenge.puzzle.answer! - 1), at: now)
            }
            now = now + .seconds(1)
        }
        #expect(difficulties == [.easy, .medium, .hard])
        #expect(throws: PolicyRefusal.coolingDown(remaining: .seconds(14), misses: 3)) {
            try engine.issueChallenges(for: "tiktok", seed: 6, at: now)
        }
        try solveAll(&engine, at: now + .seconds(15))
        #expect(engine.state.today.gateMisses == 0)
        #expect(engine.readout.gateRequirement(for: "tiktok", at: now + .seconds(15)).difficulty == .easy)
    }

    @Test func difficultyRisesWithOpensTodayAndLateHours() throws {
        var settings = settings(.hourly, gate: [.puzzle])
        settings.gate.puzzles.kinds = [.chess]
        var engine = engine(settings, now: start)
        for hour in 0..<4 {
            let now = start + .seconds(Int64(hour) * 3600)
            #expect(engine.readout.gateRequirement(for: "tiktok", at: now).difficulty == .easy)
            for challenge in try engine.issueChallenges(for: "tiktok", seed: UInt64(hour), at: now) {
                let position = try ChessPosition(fen: challenge.puzzle.position!)
                #expect(challenge.puzzle.prompt.contains("mate in 1"))
                _ = try engine.answerChallenge(challenge.id, answer: position.matingMoves()[0].uci, at: now)
            }
            _ = try engine.unlock("tiktok", phrase: nil, at: now)
        }
        // Four opens of tiktok today: medium for tiktok, still easy for youtube.
        let afternoon = at("2026-06-01T15:00:00Z")
        #expect(engine.readout.gateRequirement(for: "tiktok", at: afternoon).difficulty == .medium)
        #expect(engine.readout.gateRequirement(for: "youtube", at: afternoon).difficulty == .easy)
        // After 22:00 one more: hard, and a hard chess puzzle is a mate in two.
        let late = at("2026-06-01T22:30:00Z")
        #expect(engine.readout.gateRequirement(for: "tiktok", at: late).difficulty == .hard)
        #expect(engine.readout.gateRequirement(for: "youtube", at: late).difficulty == .medium)
        let hard = try #require(try engine.issueChallenges(for: "tiktok", seed: 1, at: late).first)
        #expect(hard.puzzle.difficulty == .hard && hard.puzzle.prompt.contains("mate in 2"))
    }

    @Test func aPhraseAndPuzzleGateAsksThePuzzleBeforeTheSentenceCounts() throws {
        var engine = engine(settings(.extreme, gate: [.phrase, .puzzle]), now: start)
        let sentence = engine.gateRules.sentence
        #expect(throws: PolicyRefusal.self) { try engine.unlock("tiktok", phrase: "wrong", at: start) }
        #expect(engine.state.today.gateMisses == 0, "the sentence was not looked at")
        try solveAll(&engine, at: start)
        #expect(throws: PolicyRefusal.self) { try engine.unlock("tiktok", phrase: "wrong", at: start) }
        #expect(engine.state.today.gateMisses == 1)
        #expect(try engine.unlock("tiktok", phrase: sentence, at: start).opened.count == 1)
    }

    @Test func theSpokenSentenceIsComparedAsSaidAndShowsWhatWasHeard() throws {
        var engine = engine(settings(.extreme, gate: [.voice]), now: start)
        let heard = "i am stupid enough to waste more time please give me another fifteen minutes"
        #expect(throws: PolicyRefusal.notTheSentence(heard: "open tiktok now please", misses: 1, cooldown: nil)) {
            try engine.passSpokenSentence(Spoken(transcript: "open tiktok now please", length: .seconds(2)), at: start)
        }
        let expires = try engine.passSpokenSentence(Spoken(transcript: heard, length: .seconds(5)), at: start)
        #expect(expires == start + .seconds(300))
        #expect(try engine.unlock("tiktok", phrase: nil, at: start + .seconds(1)).opened.count == 1)
        #expect(engine.state.today.gates["voice"]?.passed == 1 && engine.state.today.gates["voice"]?.failed == 1)
        // Spent: the next opening needs the sentence again.
        #expect(throws: PolicyRefusal.self) { try engine.unlock("youtube", phrase: nil, at: start + .seconds(2)) }
    }

    @Test func whereTheSentenceMustBeSpokenTypingItCostsOneMoreCooldownStep() throws {
        var engine = engine(settings(.extreme, gate: [.phrase], input: .voice), now: start)
        let sentence = engine.gateRules.sentence
        #expect(
            throws: PolicyRefusal.gateIncomplete(
                "here the sentence must be spoken; typing it instead costs a wait of 15 s (`lockr unlock APP --type`)")
        ) { try engine.unlock("tiktok", phrase: sentence, at: start) }
        let from = try engine.beginTypedFallback(at: start)
        #expect(from == start + .seconds(15))
        #expect(throws: PolicyRefusal.coolingDown(remaining: .seconds(5), misses: 0)) {
            try engine.unlock("tiktok", phrase: sentence, at: start + .seconds(10))
        }
        #expect(try engine.unlock("tiktok", phrase: sentence, at: start + .seconds(15)).opened.count == 1)
        #expect(engine.state.gate.typedFallbackFrom == nil, "each typed sentence costs the wait again")
        // After three wrong answers (cooldown 15 s reached), the fallback costs the next step: 45 s.
        for second in 0..<3 {
            _ = try? engine.passSpokenSentence(
                Spoken(transcript: "no", length: .seconds(1)), at: start + .seconds(20 + Int64(second)))
        }
        #expect(engine.readout.gateRequirement(for: nil, at: start + .seconds(40)).typedFallbackCost == .seconds(45))
        // A person whose sentence is typed cannot speak it.
        var typed = LockrPolicyTests.engine(settings(.extreme, gate: [.phrase], input: .typed), now: start)
        #expect(throws: PolicyRefusal.notInThisMode("here the sentence is typed, not spoken")) {
            try typed.passSpokenSentence(Spoken(transcript: "x", length: .seconds(1)), at: start)
        }
    }

    @Test func theModesGateGuardsLooseningChangesAndTimeModesGuardsSnoozeAndExtend() throws {
        var hourly = engine(settings(.hourly, gate: [.puzzle]), now: start)
        #expect(throws: PolicyRefusal.self) { try hourly.setMode(.time, at: start) }
        try solveAll(&hourly, at: start)
        #expect(try hourly.setMode(.time, at: start).pending.count == 1)
        // Tightening asks nothing.
        var time = engine(settings(.time, gate: [.phrase]), now: start)
        _ = try time.setMode(.extreme, at: start)
        var spent = settings(.time, gate: [.phrase])
        spent.time.budget = .seconds(300)
        var budget = engine(spent, now: start)
        budget.query("tiktok", from: start, every: .seconds(10), count: 60)
        let later = start + .seconds(700)
        #expect(
            throws: PolicyRefusal.phraseRequired(sentence: budget.settings.extreme.sentence(opening: .seconds(600)))
        ) {
            try budget.snooze(nil, at: later)
        }
        #expect(throws: PolicyRefusal.self) { try budget.extend(nil, at: later) }
        let sentence = budget.readout.gateRequirement(for: nil, at: later).sentence!
        #expect(try budget.snooze(nil, phrase: sentence, at: later).kind == .snooze)
        #expect(try budget.extend(nil, phrase: sentence, at: later) == .seconds(900))
    }

    @Test func spokenNumbersAreWrittenOut() {
        #expect(
            PhraseGate.spokenForm(of: "another 15 minutes, 1 more, 120 s or 2026")
                == "another fifteen minutes, one more, one hundred twenty s or two thousand twenty six")
        #expect(
            PhraseGate.accepts(
                spoken: "give me another fifteen minutes", sentence: "Give me another 15 minutes.", strictness: .strict)
        )
        #expect(
            !PhraseGate.accepts(
                spoken: "give me another five minutes", sentence: "Give me another 15 minutes.", strictness: .normal))
    }
}
