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
}

/// The changes that loosen protection, waiting for their time, and the values from the config file
/// whose loosening was cancelled. What a change is and whether it loosens is `Loosening`'s; when
/// one is asked for, applied or cancelled is the engine's.
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
}
