import Foundation
import Testing

@testable import LockrPolicy

/// Actions as values: each survives JSON unchanged (the form the API and the CLI carry it in), and
/// applying one does what the engine's own step does, refusals included.
@Suite struct PolicyActionTests {
    let start = at("2026-06-01T10:00:00Z")

    static let everyAction: [PolicyAction] = [
        .setMode(.time, budget: .seconds(1800), perApp: true, window: nil),
        .setMode(.hourly, window: .seconds(600)),
        .guardApp("whatsapp"), .unguardApp("tiktok"), .resetSettings,
        .cancelPending(id: 3), .confirmPending(id: 4),
        .unlock(app: "tiktok"), .unlock(app: nil), .snooze(app: nil), .extend(app: "youtube"),
        .issueChallenges(app: "tiktok", seed: 42), .answerChallenge(id: "c1", answer: "e4"),
        .passSpokenSentence(Spoken(transcript: "i choose to focus", length: .milliseconds(2400))),
        .beginTypedFallback, .beginEmergency, .completeEmergency(hold: 7),
        .addSchedule(schedule("school", "mon-fri", "08:00", "15:00", block: ["tiktok"])),
        .removeSchedule(name: "school"),
        .defineProfile(Profile(name: "homework", block: ["youtube"])), .removeProfile(name: "homework"),
        .switchProfile(name: "homework", .activate, duration: .seconds(3600)),
        .switchProfile(name: "homework", .deactivate),
        .setPin(PinRecord(salt: [1, 2], hash: [3, 4], rounds: 2, blockSize: 1, parallelism: 1)), .setPin(nil),
    ]

    @Test func everyActionSurvivesJSON() throws {
        var actions = Self.everyAction
        actions.append(.importSettings(engine(settings(.hourly), now: start).readout.runTimeSettings))
        for action in actions {
            let data = try JSONEncoder().encode(action)
            #expect(try JSONDecoder().decode(PolicyAction.self, from: data) == action, "\(action)")
        }
    }

    @Test func applyingAnActionIsTheEnginesOwnStep() throws {
        var byAction = engine(settings(.hourly), now: start)
        var byStep = byAction
        let later = start + .seconds(5)
        #expect(
            try byAction.apply(.unlock(app: "tiktok"), at: later)
                == .unlocked(try byStep.unlock("tiktok", phrase: nil, at: later)))
        #expect(byAction.state == byStep.state)

        var time = engine(settings(.time), now: start)
        let changed = try time.apply(.setMode(.time, budget: .seconds(2700)), credentials: .none, at: later)
        #expect(changed.change?.applied.isEmpty == false || changed.change?.pending.isEmpty == false)
        #expect(changed.unlocked == nil && changed.window == nil)
    }

    @Test func whatAnActionWritesInTheEventLogNamesIt() throws {
        var hourly = engine(settings(.hourly), now: start)
        _ = hourly.drainEvents()
        _ = try hourly.apply(.unlock(app: "tiktok"), at: start + .seconds(5))
        let written = hourly.drainEvents()
        #expect(!written.isEmpty && written.allSatisfy { $0.action == .unlock }, "\(written)")
        // What the policy's own time writes later (the window's end, the hour's reset) names none.
        _ = hourly.readout.status(at: start + .seconds(3600))
        _ = hourly.admit("tiktok", at: start + .seconds(3601))
        let later = hourly.drainEvents()
        #expect(!later.isEmpty && later.allSatisfy { $0.action == nil }, "\(later)")
        // A refused action names itself too: a wrong sentence is counted as its attempt.
        var extreme = engine(settings(.extreme), now: start)
        _ = extreme.drainEvents()
        _ = try? extreme.apply(.unlock(app: "tiktok"), credentials: Credentials(phrase: "no"), at: start)
        #expect(extreme.drainEvents().contains { $0.action == .unlock && $0.type == .gateFail })
    }

    @Test func aRefusalIsTheEnginesOwn() {
        var extreme = engine(settings(.extreme), now: start)
        #expect(throws: PolicyRefusal.self) {
            try extreme.apply(.unlock(app: "tiktok"), credentials: Credentials(phrase: "wrong"), at: start)
        }
        var hourly = engine(settings(.hourly), now: start)
        #expect(throws: PolicyRefusal.notInThisMode("extend belongs to time mode")) {
            try hourly.apply(.extend(app: nil), at: start)
        }
        #expect(throws: PolicyRefusal.nothingToDo("tiktok is already guarded")) {
            try hourly.apply(.guardApp("tiktok"), at: start)
        }
    }
}
