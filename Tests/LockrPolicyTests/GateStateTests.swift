import Testing

@testable import LockrPolicy
@testable import LockrPuzzles

/// The gate on its own: a `GateState` with the rules of some settings, a day's record and a journal,
/// no engine around it.
@Suite struct GateStateTests {
    let start = at("2026-06-01T10:00:00Z")

    func rules(_ steps: [GateStep], input: SentenceInput = .either, puzzles: Int = 1) -> GateRules {
        var settings = PolicySettings(mode: .extreme, calendar: utc)
        settings.gate.extreme = steps
        settings.gate.input = input
        settings.gate.puzzles.kinds = [.arithmetic]
        settings.gate.puzzles.count = puzzles
        return GateRules(settings)
    }

    var day: DayRecord { DayRecord(day: utc.day(containing: start)) }

    @Test func wrongSentencesCountMissesCoolDownAndARightOneClearsThem() throws {
        let rules = rules([.phrase])
        var gate = GateState()
        var day = day
        var journal = PolicyJournal()
        for miss in 1...3 {
            #expect(throws: PolicyRefusal.self) {
                try gate.pass("not it", for: "tiktok", rules: rules, day: &day, journal: &journal, at: start)
            }
            #expect(day.gateMisses == miss)
        }
        let cooldown = try #require(day.cooldownUntil)
        #expect(cooldown > start && day.gates["phrase"]?.failed == 3)
        #expect(throws: PolicyRefusal.coolingDown(remaining: cooldown - start, misses: 3)) {
            try gate.pass(rules.sentence, for: "tiktok", rules: rules, day: &day, journal: &journal, at: start)
        }
        try gate.pass(rules.sentence, for: "tiktok", rules: rules, day: &day, journal: &journal, at: cooldown)
        #expect(day.gateMisses == 0 && day.cooldownUntil == nil && day.gates["phrase"]?.passed == 1)
        #expect(journal.drain().map(\.type) == [.gateFail, .gateFail, .gateFail, .gatePass])
    }

    @Test func puzzlesComeBeforeTheSentenceAndAreSpentByThePass() throws {
        let rules = rules([.phrase, .puzzle], puzzles: 2)
        var gate = GateState()
        var day = day
        var journal = PolicyJournal()
        #expect(throws: PolicyRefusal.self) {
            try gate.pass(rules.sentence, for: nil, rules: rules, day: &day, journal: &journal, at: start)
        }
        #expect(day.gateMisses == 0, "the sentence was not looked at")
        let first = try gate.issueChallenges(for: nil, seed: 3, rules: rules, day: day, at: start)
        let second = try gate.issueChallenges(for: nil, seed: 4, rules: rules, day: day, at: start)
        #expect(first.count == 2 && second.count == 2)
        #expect(throws: PolicyRefusal.self, "a withdrawn puzzle is closed") {
            try gate.answerChallenge(
                first[0].id, answer: String(first[0].puzzle.answer!), day: &day, journal: &journal, at: start)
        }
        for challenge in second {
            _ = try gate.answerChallenge(
                challenge.id, answer: String(challenge.puzzle.answer!), day: &day, journal: &journal, at: start)
        }
        #expect(gate.requirement(for: nil, rules: rules, day: day, at: start).puzzlesToSolve == 0)
        try gate.pass(rules.sentence, for: nil, rules: rules, day: &day, journal: &journal, at: start)
        #expect(gate.passes.isEmpty, "the pass spent both puzzles")
        #expect(gate.requirement(for: nil, rules: rules, day: day, at: start).puzzlesToSolve == 2)
    }

    @Test func aSpokenSentenceKeepsFiveMinutesAndTypingWaitsItsCost() throws {
        let rules = rules([.phrase], input: .voice)
        var gate = GateState()
        var day = day
        var journal = PolicyJournal()
        #expect(throws: PolicyRefusal.self, "typing is not taken before the fallback") {
            try gate.pass(rules.sentence, for: nil, rules: rules, day: &day, journal: &journal, at: start)
        }
        let from = try gate.beginTypedFallback(rules: rules, day: day, journal: &journal, at: start)
        #expect(from == start + GateState.typedFallbackCost(rules, day: day))
        #expect(throws: PolicyRefusal.coolingDown(remaining: from - start, misses: 0)) {
            try gate.pass(rules.sentence, for: nil, rules: rules, day: &day, journal: &journal, at: start)
        }
        try gate.pass(rules.sentence, for: nil, rules: rules, day: &day, journal: &journal, at: from)
        #expect(gate.typedFallbackFrom == nil, "the fallback is spent with the typed sentence")

        let heard = "i am stupid enough to waste more time please give me another fifteen minutes"
        let spoken = Spoken(transcript: heard, length: .seconds(5))
        let keeps = try gate.passSpokenSentence(spoken, rules: rules, day: &day, journal: &journal, at: from)
        #expect(keeps == from + GateState.passLifetime)
        #expect(gate.requirement(for: nil, rules: rules, day: day, at: keeps - .seconds(1)).sentencePassed)
        #expect(!gate.requirement(for: nil, rules: rules, day: day, at: keeps).sentencePassed)
    }
}
