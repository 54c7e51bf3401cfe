/// Devices the household assigns to a person while lockr runs (the admin view's "assign"), kept
/// with the person's state. The config file's devices stay the config file's.
///
/// A device handed from this person to another is a change of the protection that device gets:
/// when the other's protection in force is no weaker (`Loosening` finds nothing that loosens), it
/// moves at once; otherwise the move is a loosening change of this person's, costing what theirs
/// cost (the PIN where one is set, the gate) and waiting as they wait, shown and cancelled with
/// them. The household carries a due move out (`takeDueHandOvers`), as it takes two people.
extension PolicyEngine {
    /// A device handed over to another person, due now.
    public struct HandOver: Sendable, Equatable {
        public let device: String
        public let person: String
    }

    /// Makes `device` (a MAC or IP address, already checked) this person's; false when it was.
    public mutating func claimDevice(_ device: String, at now: Instant) -> Bool {
        let now = advance(to: now)
        guard !state.claimedDevices.contains(device) else { return false }
        state.claimedDevices.append(device)
        log(.deviceAssigned, nil, "device \(device) assigned", at: now)
        return true
    }

    /// Takes `device` back from this person; false when it was not theirs.
    public mutating func releaseDevice(_ device: String, at now: Instant) -> Bool {
        let now = advance(to: now)
        guard let index = state.claimedDevices.firstIndex(of: device) else { return false }
        state.claimedDevices.remove(at: index)
        log(.deviceReleased, nil, "device \(device) no longer assigned", at: now)
        return true
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
        let move = SettingChange(key: Loosening.deviceKey, element: device, from: me, to: person, loosens: true)
        if let waiting = state.changes.waiting(for: move) { return waiting }
        if person == me {
            dropHandOvers(of: device, "it stays with \(me)", at: now)
            return nil
        }
        guard Loosening.moveLoosens(from: enforcement(at: now), to: theirs, apps: apps, groups: configuration.groups)
        else {
            dropHandOvers(of: device, "it moved to \(person) instead", at: now)
            _ = releaseDevice(device, at: now)
            return nil
        }
        if needsPin(pin) { throw .pinRequired }
        try passGate(phrase, for: nil, at: now)
        dropHandOvers(of: device, "it goes to \(person) instead", at: now)
        let pending = state.changes.enqueue(
            move, source: Self.adminView, appliesAt: gateTime(at: now), awaitingSentence: false, target: inForce,
            at: now)
        log(
            .changePending, nil,
            "#\(pending.id) \(move.description) (\(Self.adminView)): \(pending.timing(in: settings.calendar))", at: now)
        return pending
    }

    /// The device moves whose time has come (also those due while lockr was down), taken out of
    /// the pending changes and released here; the household has each new person claim theirs.
    public mutating func takeDueHandOvers(at now: Instant) -> [HandOver] {
        // Runs every tick: nothing is allocated unless a move is due.
        let due = state.changes.remove { $0.change.isDeviceMove && $0.appliesAt <= now }
        guard !due.isEmpty else { return [] }
        let now = advance(to: now)
        return due.compactMap { pending in
            guard let device = pending.change.element else { return nil }
            log(.changeApplied, nil, "#\(pending.id) \(pending.change.description) (\(pending.source))", at: now)
            _ = releaseDevice(device, at: now)
            return HandOver(device: device, person: pending.change.to)
        }
    }

    /// Cancels the waiting moves of `device`, saying `why`.
    private mutating func dropHandOvers(of device: String, _ why: String, at now: Instant) {
        let moves = state.changes.remove { $0.change.isDeviceMove && $0.change.element == device }
        for pending in moves {
            log(.changeCancelled, nil, "#\(pending.id) \(pending.change.description): \(why)", at: now)
        }
    }

    static let adminView = "admin view"
}
