import Foundation
import Testing

@testable import LockrPolicy

@Suite struct ExtremeModeTests {
    let phrase = ExtremeSettings().sentence(opening: .seconds(900))
    let start = at("2026-06-01T20:00:00Z")

    @Test func thePhraseOpensAWindowAndATypoPassesUnderNormalStrictness() throws {
        var policy = engine(settings(.extreme), now: start)
        #expect(policy.admit("youtube", at: start).reason == "youtube: locked; typing the phrase opens 15 min")
        let typo = "I am stupid enuogh to waste more time, please give me another 15 minutes"
        let result = try policy.unlock("youtube", phrase: typo, at: start)
        #expect(result.opened.first?.ends == start + .seconds(900))
        #expect(policy.admit("youtube", at: start + .seconds(899)).isAllowed)
        #expect(policy.drainEvents().map(\.type).contains(.gatePass))
    }

    @Test func aMissingOrWrongPhraseOpensNothing() throws {
        var policy = engine(settings(.extreme), now: start)
        #expect(throws: PolicyRefusal.self) { try policy.unlock("youtube", phrase: nil, at: start) }
        do {
            _ = try policy.unlock("youtube", phrase: "please let me in", at: start)
            Issue.record("a wrong phrase was accepted")
        } catch {
            guard case .wrongPhrase(let denial, let misses, let cooldown) = error else {
                Issue.record("unexpected refusal \(error)")
                return
            }
            #expect(!denial.isEmpty)
            #expect(misses == 1)
            #expect(cooldown == nil)
        }
        #expect(!policy.admit("youtube", at: start).isAllowed)
    }

    @Test func theDefaultSentenceNamesTheRealWindowLength() throws {
        var policy = engine(
            settings(.extreme) {
                $0.extreme.window = .seconds(300)
                $0.extreme.strictness = .strict
            }, now: start)
        #expect(
            throws: PolicyRefusal.phraseRequired(
                sentence: "I am stupid enough to waste more time. Please give me another 5 minutes.")
        ) { try policy.unlock("youtube", phrase: nil, at: start) }
        #expect(throws: PolicyRefusal.self) {
            try policy.unlock(
                "youtube", phrase: "I am stupid enough to waste more time. Please give me another 15 minutes.",
                at: start)
        }
        let opened = try policy.unlock(
            "youtube", phrase: "I am stupid enough to waste more time. Please give me another 5 minutes.", at: start)
        #expect(opened.opened.first?.ends == start + .seconds(300))
    }

    @Test func nothingTypedIsNotAnAttempt() throws {
        var policy = engine(settings(.extreme), now: start)
        for empty in ["", "   ", "\n", "..."] {
            #expect(throws: PolicyRefusal.self) { try policy.unlock("youtube", phrase: empty, at: start) }
        }
        #expect(policy.readout.status(at: start).gateMisses == 0)
        #expect(policy.readout.status(at: start).cooldownUntil == nil)
    }

    @Test func cooldownsEscalateAfterThreeMissesAndStayAt120Seconds() throws {
        var policy = engine(settings(.extreme), now: start)
        var now = start
        var cooldowns: [Duration?] = []
        for _ in 1...7 {
            do {
                _ = try policy.unlock("youtube", phrase: "nope", at: now)
            } catch {
                guard case .wrongPhrase(_, _, let cooldown) = error else { throw error }
                cooldowns.append(cooldown)
                now = now + (cooldown ?? .zero)
            }
        }
        #expect(cooldowns == [nil, nil, .seconds(15), .seconds(45), .seconds(120), .seconds(120), .seconds(120)])
    }

    @Test func duringACooldownAttemptsAreRefusedAndTheReasonSaysSo() throws {
        var policy = engine(settings(.extreme), now: start)
        for _ in 1...3 { _ = try? policy.unlock("youtube", phrase: "nope", at: start) }
        // Attempts during the cooldown are not even checked, so they are not misses either.
        #expect(throws: PolicyRefusal.coolingDown(remaining: .seconds(10), misses: 3)) {
            try policy.unlock("youtube", phrase: "nope", at: start + .seconds(5))
        }
        _ = try? policy.unlock("youtube", phrase: "nope", at: start + .seconds(15))
        #expect(
            policy.admit("youtube", at: start + .seconds(16)).reason == "youtube: cooldown 44 s after 4 wrong answers")
        // Even the right phrase waits.
        #expect(throws: PolicyRefusal.coolingDown(remaining: .seconds(35), misses: 4)) {
            try policy.unlock("youtube", phrase: phrase, at: start + .seconds(25))
        }
        #expect(try policy.unlock("youtube", phrase: phrase, at: start + .seconds(60)).opened.count == 1)
        // A success resets the misses: the next miss has no cooldown.
        do {
            _ = try policy.unlock("tiktok", phrase: "nope", at: start + .seconds(61))
        } catch {
            #expect(error == .wrongPhrase(denial: PhraseGate.denial(afterMisses: 1), misses: 1, cooldown: nil))
        }
    }

    @Test func theNextDayResetsMissesAndCooldowns() throws {
        var policy = engine(settings(.extreme), now: at("2026-06-01T23:59:00Z"))
        for _ in 1...5 { _ = try? policy.unlock("youtube", phrase: "nope", at: at("2026-06-01T23:59:00Z")) }
        let midnight = at("2026-06-02T00:00:00Z")
        #expect(policy.admit("youtube", at: midnight).reason == "youtube: locked; typing the phrase opens 15 min")
        #expect(try policy.unlock("youtube", phrase: phrase, at: midnight).opened.count == 1)
    }

    @Test func aUsedHourIsRefusedBeforeThePhraseIsChecked() throws {
        var policy = engine(settings(.extreme), now: start)
        _ = try policy.unlock("youtube", phrase: phrase, at: start)
        #expect(throws: PolicyRefusal.windowUsed(app: "youtube", nextAt: "21:00")) {
            try policy.unlock("youtube", phrase: "wrong", at: start + .seconds(1000))
        }
        #expect(policy.readout.status(at: start + .seconds(1000)).gateMisses == 0)
    }
}

@Suite struct PhraseGateTests {
    let phrase = ExtremeSettings().sentence(opening: .seconds(900))

    @Test func normalisingDropsCaseSpacesAndPunctuation() {
        #expect(String(PhraseGate.normalize("I am, stupid... 15 Minutes!")) == "iamstupid15minutes")
    }

    @Test func distanceIsLevenshtein() {
        func distance(_ a: String, _ b: String) -> Int { PhraseGate.distance(Array(a), Array(b)) }
        #expect(distance("kitten", "sitting") == 3)
        #expect(distance("", "abc") == 3)
        #expect(distance("flaw", "lawn") == 2)
        #expect(distance("same", "same") == 0)
    }

    @Test func thresholdsPerStrictness() {
        let length = PhraseGate.normalize(phrase).count
        #expect(length == 58)
        #expect(Strictness.strict.allowedEdits(forLength: length) == 0)
        #expect(Strictness.normal.allowedEdits(forLength: length) == 2)
        #expect(Strictness.lenient.allowedEdits(forLength: length) == 5)
        #expect(Strictness.normal.allowedEdits(forLength: 10) == 1)
        #expect(Strictness.lenient.allowedEdits(forLength: 10) == 2)
    }

    @Test func eachStrictnessAcceptsUpToItsThresholdAndNoMore() {
        let exact = "i am stupid enough to waste more time please give me another 15 minutes"
        let twoTypos = "i am stupid enuogh to waste more time please give me another 15 minutes"  // swap: 2 edits
        let threeTypos = "i am stupid enuogh to wast more time please give me another 15 minutes"
        let fiveTypos = "i am stupd enuogh to wast mre time please give me another 15 minutes"
        let sixTypos = "i am stupd enuogh to wast mre tme please give me another 15 minutes"
        #expect(PhraseGate.accepts(exact, phrase: phrase, strictness: .strict))
        #expect(!PhraseGate.accepts(twoTypos, phrase: phrase, strictness: .strict))
        #expect(PhraseGate.accepts(twoTypos, phrase: phrase, strictness: .normal))
        #expect(!PhraseGate.accepts(threeTypos, phrase: phrase, strictness: .normal))
        #expect(PhraseGate.accepts(fiveTypos, phrase: phrase, strictness: .lenient))
        #expect(!PhraseGate.accepts(sixTypos, phrase: phrase, strictness: .lenient))
        #expect(!PhraseGate.accepts("", phrase: phrase, strictness: .lenient))
    }
}
