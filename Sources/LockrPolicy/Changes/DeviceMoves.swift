/// Devices the household assigns to a person while lockr runs (the admin view's "assign"), kept
/// with the person's state. The config file's devices stay the config file's.
///
/// A device handed from this person to another is a change of the protection that device gets:
/// when the other's protection in force is no weaker (`Loosening` finds nothing that loosens), it
/// moves at once; otherwise the move is a loosening change of this person's, costing what theirs
/// cost (the PIN where one is set, the gate) and waiting as they wait, shown and cancelled with
/// them. The household carries a due move out (`takeDueHandOvers`), as it takes two people.
extension PolicyEngine {
    /// Makes `device` (a MAC or IP address, already checked) this person's; false when it was.
    public mutating func claimDevice(_ device: String, at now: Instant) -> Bool {
        let now = advance(to: now)
        return state.claim(device, journal: &journal, at: now)
    }

    /// Asks to hand `device` (this person's now) over to `person`, whose protection in force is
    /// `theirs`. Nil when it may move at once (it is released here; the caller has `person` claim
    /// it); else the pending change it waits as, a gate passed for it (and the PIN checked where
    /// one is set). A move already waiting is returned as it is; one to another person, or to this
    /// person (the device stays), cancels a move waiting before.
    public mutating func handOverDevice(
        _ device: String, from me: String, to person: String, theirs: Enforcement, phrase: String?, pin: PinCheck,
        at now: Instant
    ) throws(PolicyRefusal) -> PendingChange? {
        let now = advance(to: now)
        let loosens = Loosening.moveLoosens(
            from: readout.enforcement(at: now), to: theirs, apps: apps, groups: configuration.groups)
        switch state.changes.plan(handing: device, from: me, to: person, loosens: loosens) {
        case .waiting(let pending): return pending
        case .stays: state.dropMoves(of: device, "it stays with \(me)", journal: &journal, at: now)
        case .movesNow:
            state.dropMoves(of: device, "it moved to \(person) instead", journal: &journal, at: now)
            _ = state.release(device, journal: &journal, at: now)
        case .waits(let move):
            if needsPin(pin) { throw .pinRequired }
            try passGate(phrase, for: nil, at: now)
            state.dropMoves(of: device, "it goes to \(person) instead", journal: &journal, at: now)
            return state.changes.enqueueMove(
                move, appliesAt: gateTime(at: now), target: readout.inForce, calendar: settings.calendar, journal: &journal,
                at: now)
        }
        return nil
    }

    /// The device moves whose time has come (also those due while lockr was down), taken out of
    /// the pending changes and released here; the household has each new person claim theirs.
    public mutating func takeDueHandOvers(at now: Instant) -> [DeviceHandOver] {
        state.takeDueMoves(dueBy: now, journal: &journal, at: max(now, state.lastSeen))
    }
}

/// A device handed over to another person, due now.
public struct DeviceHandOver: Sendable, Equatable {
    public let device: String
    public let person: String
}

/// What becomes of a request to hand a device over (see `ChangeQueue.plan`).
enum HandOverPlan: Equatable {
    /// The same move waits already.
    case waiting(PendingChange)
    /// It is handed to the person it is with: it stays, and a move waiting for it is cancelled.
    case stays
    /// The other person's protection is no weaker: it moves at once.
    case movesNow
    /// It would be less protected: the move waits as a loosening change.
    case waits(SettingChange)
}

extension ChangeQueue {
    /// What becomes of handing `device` from `me` to `person`, whose protection `loosens` the
    /// device's or not.
    func plan(handing device: String, from me: String, to person: String, loosens: Bool) -> HandOverPlan {
        let move = SettingChange(key: Loosening.deviceKey, element: device, from: me, to: person, loosens: true)
        if let waiting = waiting(for: move) { return .waiting(waiting) }
        if person == me { return .stays }
        return loosens ? .waits(move) : .movesNow
    }

    /// Queues `move` to apply at `appliesAt`, logged as pending.
    mutating func enqueueMove(
        _ move: SettingChange, appliesAt: Instant, target: Protection, calendar: DayCalendar,
        journal: inout PolicyJournal, at now: Instant
    ) -> PendingChange {
        let pending = enqueue(
            move, source: Self.adminView, appliesAt: appliesAt, awaitingSentence: false, target: target, at: now)
        journal.log(
            .changePending, nil,
            "#\(pending.id) \(move.description) (\(Self.adminView)): \(pending.timing(in: calendar))",
            at: now)
        return pending
    }

    static let adminView = "admin view"
}

extension PolicyState {
    /// Makes `device` this person's; false when it was.
    mutating func claim(_ device: String, journal: inout PolicyJournal, at now: Instant) -> Bool {
        guard !claimedDevices.contains(device) else { return false }
        claimedDevices.append(device)
        journal.log(.deviceAssigned, nil, "device \(device) assigned", at: now)
        return true
    }

    /// Takes `device` back from this person; false when it was not theirs.
    mutating func release(_ device: String, journal: inout PolicyJournal, at now: Instant) -> Bool {
        guard let index = claimedDevices.firstIndex(of: device) else { return false }
        claimedDevices.remove(at: index)
        journal.log(.deviceReleased, nil, "device \(device) no longer assigned", at: now)
        return true
    }

    /// Cancels the waiting moves of `device`, saying `why`.
    mutating func dropMoves(of device: String, _ why: String, journal: inout PolicyJournal, at now: Instant) {
        for pending in changes.remove(where: { $0.change.isDeviceMove && $0.change.element == device }) {
            journal.log(.changeCancelled, nil, "#\(pending.id) \(pending.change.description): \(why)", at: now)
        }
    }

    /// The moves due by `time`, taken out of the queue and their devices released at `now`.
    mutating func takeDueMoves(dueBy time: Instant, journal: inout PolicyJournal, at now: Instant) -> [DeviceHandOver] {
        // Runs every tick: nothing is allocated unless a move is due.
        let due = changes.remove { $0.change.isDeviceMove && $0.appliesAt <= time }
        return due.compactMap { pending in
            guard let device = pending.change.element else { return nil }
            journal.log(
                .changeApplied, nil, "#\(pending.id) \(pending.change.description) (\(pending.source))", at: now)
            _ = release(device, journal: &journal, at: now)
            return DeviceHandOver(device: device, person: pending.change.to)
        }
    }
}
