/// A change that loosens protection, waiting for its time: the current mode's gate (the next day in
/// time mode, the next clock hour in hourly and extreme mode) and the commitment delay. It applies at
/// `appliesAt`, also when lockr was down then (at the next start), unless it waits for the sentence.
public struct PendingChange: Sendable, Equatable, Codable {
    public let id: Int
    public let change: SettingChange
    /// What asked for it: "lockr mode", "lockr guard remove", "lockr settings reset", "configuration (config file and serve flags)".
    public let source: String
    public let requested: Instant
    public let appliesAt: Instant
    /// From the config file in extreme mode: it waits for the sentence (`lockr pending confirm`).
    public var awaitingSentence: Bool
    /// The protection asked for, where the new value is taken from.
    let target: Protection

    /// "applies at 15:00", or what it still waits for.
    func timing(in calendar: DayCalendar) -> String {
        let at = "applies at \(calendar.dateTimeText(appliesAt))"
        return awaitingSentence ? "\(at) once the gate is passed (`lockr pending confirm \(id)`)" : at
    }
}

/// The changes that loosen protection, waiting for their time, and the values from the config file
/// whose loosening was cancelled. What a change is and whether it loosens is `Loosening`'s; when
/// one may apply (the mode's reset, the gate) is the engine's.
public struct ChangeQueue: Sendable, Equatable {
    /// Oldest first.
    public internal(set) var pending: [PendingChange]
    /// Values from the config file whose loosening was cancelled (`lockr pending cancel`), by
    /// setting: they are not asked for again until the file says something else.
    public internal(set) var declined: [String: String]
    /// The id the next change gets.
    public internal(set) var nextID: Int

    public init(pending: [PendingChange] = [], declined: [String: String] = [:], nextID: Int = 1) {
        self.pending = pending
        self.declined = declined
        self.nextID = nextID
    }

    /// The change waiting that asks for what `change` asks for (the same setting, the same value).
    func waiting(for change: SettingChange) -> PendingChange? { pending.first { Self.same($0.change, change) } }

    /// The change waiting with this id.
    func change(_ id: Int) -> PendingChange? { pending.first { $0.id == id } }

    /// Adds `change`, asked for by `source` at `now`, to wait until `appliesAt` (and the sentence,
    /// when `awaitingSentence`); `target` is the protection its value is taken from.
    mutating func enqueue(
        _ change: SettingChange, source: String, appliesAt: Instant, awaitingSentence: Bool, target: Protection,
        at now: Instant
    ) -> PendingChange {
        let added = PendingChange(
            id: nextID, change: change, source: source, requested: now, appliesAt: appliesAt,
            awaitingSentence: awaitingSentence, target: target)
        nextID += 1
        pending.append(added)
        return added
    }

    /// Takes out the changes `leaves` picks; returns them, oldest first.
    mutating func remove(where leaves: (PendingChange) -> Bool) -> [PendingChange] {
        // Runs on every query (through the engine's `advance`): nothing is allocated unless one leaves.
        guard pending.contains(where: leaves) else { return [] }
        let gone = pending.filter(leaves)
        pending.removeAll(where: leaves)
        return gone
    }

    /// Marks the change `id` as having passed the gate it waited for.
    mutating func confirm(_ id: Int) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        pending[index].awaitingSentence = false
    }

    /// Whether the config file's `change` was declined.
    func isDeclined(_ change: SettingChange) -> Bool { declined[Self.slot(change)] == change.to }

    /// Declines the config file's `change` until the file says something else.
    mutating func decline(_ change: SettingChange) { declined[Self.slot(change)] = change.to }

    /// Forgets the declined values no longer among `loosening`, the loosening changes the
    /// configuration asks for now.
    mutating func forgetDeclined(notIn loosening: [SettingChange]) {
        declined = declined.filter { slot, value in loosening.contains { Self.slot($0) == slot && $0.to == value } }
    }

    static func same(_ a: SettingChange, _ b: SettingChange) -> Bool { slot(a) == slot(b) && a.to == b.to }

    /// The setting a change is about: its key, and for a list the entry.
    static func slot(_ change: SettingChange) -> String { change.key + (change.element.map { " " + $0 } ?? "") }

    /// Brings `current`, the protection in force, toward `wanted`: what tightens applies at once;
    /// what loosens waits until `appliesAt` (and the gate, when `awaitingSentence`), kept when it
    /// waits already for the same value and not asked again when declined; a change waiting that
    /// is no longer asked for is dropped (a device's move is no setting: it stays). Logs each step.
    /// Returns the protection in force now and the changes made to wait.
    mutating func settle(
        _ current: Protection, toward wanted: Protection, source: String, appliesAt: Instant, awaitingSentence: Bool,
        calendar: DayCalendar, journal: inout PolicyJournal, at now: Instant
    ) -> (inForce: Protection, created: [PendingChange]) {
        var current = current
        for change in Loosening.changes(from: current, to: wanted) where !change.loosens {
            current = Loosening.applying(change, to: current, from: wanted)
            journal.log(
                .changeApplied, change.app, "\(change.description) (\(source); at once, as it does not loosen)", at: now
            )
        }
        let loosening = Loosening.changes(from: current, to: wanted).filter(\.loosens)
        func stillAsked(_ pending: PendingChange) -> Bool {
            pending.change.isDeviceMove || loosening.contains { Self.same($0, pending.change) }
        }
        for gone in remove(where: { !stillAsked($0) }) {
            journal.log(
                .changeCancelled, gone.change.app, "#\(gone.id) \(gone.change.description): no longer asked for",
                at: now)
        }
        forgetDeclined(notIn: loosening)
        var created: [PendingChange] = []
        for change in loosening where waiting(for: change) == nil && !isDeclined(change) {
            let pending = enqueue(
                change, source: source, appliesAt: appliesAt, awaitingSentence: awaitingSentence, target: wanted,
                at: now)
            created.append(pending)
            journal.log(
                .changePending, change.app,
                "#\(pending.id) \(change.description) (\(source)): \(pending.timing(in: calendar))", at: now)
        }
        return (current, created)
    }

    /// Takes out the changes whose time has come at `now` (also those due while lockr was down),
    /// oldest first. A device's move is the household's to carry out, and one that waits for the
    /// gate stays.
    mutating func takeDue(at now: Instant) -> [PendingChange] {
        // Runs on every query (through the engine's `advance`): nothing is allocated unless a change is due.
        remove { $0.appliesAt <= now && !$0.awaitingSentence && !$0.change.isDeviceMove }
    }

    /// `current` with the changes `due` applied, each logged.
    static func applying(
        _ due: [PendingChange], to current: Protection, journal: inout PolicyJournal, at now: Instant
    ) -> Protection {
        var current = current
        for pending in due {
            current = Loosening.applying(pending.change, to: current, from: pending.target)
            journal.log(
                .changeApplied, pending.change.app, "#\(pending.id) \(pending.change.description) (\(pending.source))",
                at: now)
        }
        return current
    }
}
