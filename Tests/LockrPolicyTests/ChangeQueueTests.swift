import Testing

@testable import LockrPolicy

/// The change queue on its own: changes enqueued, found, confirmed, taken out and declined.
@Suite struct ChangeQueueTests {
    let start = at("2026-06-01T10:00:00Z")
    let target = Protection(settings: PolicySettings(calendar: utc), guarded: [])

    func change(_ key: String, _ element: String? = nil, to: String) -> SettingChange {
        SettingChange(key: key, element: element, from: "before", to: to, loosens: true)
    }

    @Test func idsGrowAndAChangeIsFoundBySettingAndValue() {
        var queue = ChangeQueue()
        let budget = queue.enqueue(
            change("time.budget-minutes", to: "45 min"), source: "lockr mode", appliesAt: start + .seconds(3600),
            awaitingSentence: false, target: target, at: start)
        let unguard = queue.enqueue(
            change("guard", "tiktok", to: "not guarded"), source: "lockr guard remove", appliesAt: start,
            awaitingSentence: true, target: target, at: start)
        #expect((budget.id, unguard.id, queue.nextID) == (1, 2, 3))
        #expect(queue.waiting(for: change("time.budget-minutes", to: "45 min"))?.id == 1)
        #expect(queue.waiting(for: change("time.budget-minutes", to: "60 min")) == nil, "another value")
        #expect(queue.waiting(for: change("guard", "youtube", to: "not guarded")) == nil, "another entry")
        #expect(queue.change(2)?.awaitingSentence == true)
        queue.confirm(2)
        #expect(queue.change(2)?.awaitingSentence == false)
        #expect(queue.remove { $0.appliesAt <= start }.map(\.id) == [2])
        #expect(queue.remove { $0.appliesAt <= start }.isEmpty)
        #expect(queue.pending.map(\.id) == [1] && queue.nextID == 3, "an id is never given twice")
    }

    @Test func aDeclinedValueIsForgottenOnceTheFileAsksForAnother() {
        var queue = ChangeQueue()
        let asked = change("policy.mode", to: "hourly")
        queue.decline(asked)
        #expect(queue.isDeclined(asked) && !queue.isDeclined(change("policy.mode", to: "time")))
        queue.forgetDeclined(notIn: [asked])
        #expect(queue.isDeclined(asked), "still asked for")
        queue.forgetDeclined(notIn: [change("policy.mode", to: "time")])
        #expect(queue.declined.isEmpty)
    }
}
