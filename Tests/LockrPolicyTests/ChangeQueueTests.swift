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

    @Test func settlingAppliesWhatTightensAndQueuesWhatLoosensOnce() {
        var queue = ChangeQueue()
        var journal = PolicyJournal()
        var wanted = Protection(
            settings: PolicySettings(mode: .hourly, calendar: utc), guarded: ["instagram", "youtube"])
        wanted.settings.hourly.window = .seconds(15 * 60)
        let current = Protection(
            settings: PolicySettings(mode: .hourly, calendar: utc), guarded: ["instagram", "tiktok"])
        let later = start + .seconds(3600)
        let settled = queue.settle(
            current, toward: wanted, source: "lockr mode", appliesAt: later, awaitingSentence: false, calendar: utc,
            journal: &journal, at: start)
        #expect(settled.inForce.guarded == ["instagram", "tiktok", "youtube"], "guarding youtube tightens: at once")
        #expect(settled.inForce.settings.hourly.window == .seconds(10 * 60), "a longer window waits")
        #expect(Set(settled.created.map(\.change.key)) == ["hourly.window-minutes", "guard"])
        #expect(settled.created.allSatisfy { $0.appliesAt == later })
        let again = queue.settle(
            settled.inForce, toward: wanted, source: "lockr mode", appliesAt: later + .seconds(60),
            awaitingSentence: false, calendar: utc, journal: &journal, at: start + .seconds(60))
        #expect(again.created.isEmpty && queue.pending.count == 2, "what waits already is not asked twice")
        let logged = journal.drain()
        #expect(logged.map(\.type) == [.changeApplied, .changePending, .changePending])
        #expect(logged[1].detail.hasSuffix("applies at 2026-06-01 11:00"), "\(logged[1].detail)")

        let withdrawn = queue.settle(
            again.inForce, toward: again.inForce, source: "lockr mode", appliesAt: later, awaitingSentence: false,
            calendar: utc, journal: &journal, at: start + .seconds(120))
        #expect(withdrawn.created.isEmpty && queue.pending.isEmpty, "no longer asked for: dropped")
        #expect(journal.drain().map(\.type) == [.changeCancelled, .changeCancelled])
    }

    @Test func dueChangesApplyOnTheirTimeButNotBeforeTheGateIsPassed() {
        var queue = ChangeQueue()
        var journal = PolicyJournal()
        let current = Protection(settings: PolicySettings(calendar: utc), guarded: ["instagram", "tiktok"])
        let wanted = Protection(settings: PolicySettings(calendar: utc), guarded: ["instagram"])
        let unguard = SettingChange(key: "guard", element: "tiktok", from: "guarded", to: "not guarded", loosens: true)
        let later = start + .seconds(3600)
        _ = queue.enqueue(
            unguard, source: "config file", appliesAt: later, awaitingSentence: true, target: wanted, at: start)
        #expect(queue.takeDue(at: later).isEmpty, "it waits for the gate")
        queue.confirm(1)
        #expect(queue.takeDue(at: later - .seconds(1)).isEmpty, "not yet")
        let due = queue.takeDue(at: later)
        #expect(due.map(\.id) == [1] && queue.pending.isEmpty)
        #expect(ChangeQueue.applying(due, to: current, journal: &journal, at: later).guarded == ["instagram"])
        #expect(journal.drain().map(\.detail) == ["#1 guard tiktok: guarded → not guarded (config file)"])
    }
}

/// A device's move on its own: planned against what waits, queued, cancelled and carried out.
@Suite struct DeviceMovesTests {
    let start = at("2026-06-01T10:00:00Z")
    let device = "aa:bb:cc:dd:ee:01"

    @Test func aMoveIsPlannedByWhatWaitsWhereItGoesAndWhetherItLoosens() {
        var queue = ChangeQueue()
        #expect(queue.plan(handing: device, from: "bob", to: "bob", loosens: true) == .stays)
        #expect(queue.plan(handing: device, from: "bob", to: "ann", loosens: false) == .movesNow)
        guard case .waits(let move) = queue.plan(handing: device, from: "bob", to: "ann", loosens: true) else {
            Issue.record("a loosening move waits")
            return
        }
        var journal = PolicyJournal()
        let target = Protection(settings: PolicySettings(calendar: utc), guarded: [])
        let pending = queue.enqueueMove(
            move, appliesAt: start + .seconds(3600), target: target, calendar: utc, journal: &journal, at: start)
        #expect(queue.plan(handing: device, from: "bob", to: "ann", loosens: true) == .waiting(pending))
        #expect(journal.drain().map(\.type) == [.changePending])
    }

    @Test func aDueMoveReleasesTheDeviceAndAnotherCancelsTheOneWaiting() {
        var state = PolicyState(today: DayRecord(day: utc.day(containing: start)), lastSeen: start)
        var journal = PolicyJournal()
        #expect(state.claim(device, journal: &journal, at: start))
        #expect(!state.claim(device, journal: &journal, at: start), "claimed already")
        let target = Protection(settings: PolicySettings(calendar: utc), guarded: [])
        let move = SettingChange(key: Loosening.deviceKey, element: device, from: "bob", to: "ann", loosens: true)
        _ = state.changes.enqueueMove(
            move, appliesAt: start + .seconds(60), target: target, calendar: utc, journal: &journal, at: start)
        #expect(state.takeDueMoves(dueBy: start, journal: &journal, at: start).isEmpty, "not due yet")

        let due = state.takeDueMoves(dueBy: start + .seconds(60), journal: &journal, at: start + .seconds(60))
        #expect(due == [DeviceHandOver(device: device, person: "ann")] && state.claimedDevices.isEmpty)

        _ = state.changes.enqueueMove(
            move, appliesAt: start + .seconds(3600), target: target, calendar: utc, journal: &journal, at: start)
        state.dropMoves(of: device, "it stays with bob", journal: &journal, at: start)
        #expect(state.changes.pending.isEmpty)
        #expect(
            journal.drain().map(\.type) == [
                .deviceAssigned, .changePending, .changeApplied, .deviceReleased, .changePending, .changeCancelled,
            ])
    }
}
