import Testing

@testable import LockrPolicy

/// Each lock and unlock is noted once, and an app no longer watched is forgotten.
@Suite struct LockTransitionsTests {
    let now = at("2026-06-01T10:00:00Z")

    @Test func eachChangeIsNotedOnceAndAFreeAppIsForgotten() {
        var transitions = LockTransitions()
        let spent = AppAccess.budgetSpent(charged: .seconds(60), budget: .seconds(60))
        let left = AppAccess.budgetLeft(charged: .zero, budget: .seconds(60), until: now + .seconds(60))
        transitions.mark("youtube")
        let seen: [(String, AppAccess)] = [
            ("tiktok", spent), ("tiktok", spent), ("tiktok", left), ("tiktok", left),
            ("youtube", left), ("youtube", .free), ("instagram", .free),
        ]
        let noted = seen.map { transitions.changed($0.0, to: $0.1) }
        #expect(
            noted == [true, false, true, false, false, false, true],
            "a first look, each change once; youtube's opening was logged by itself; free once open: nothing")
        #expect(Array(transitions.watched) == ["tiktok"], "a free app is no longer watched")
    }
}
