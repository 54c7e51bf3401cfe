/// What a settings change did: what applied at once, and what waits.
public struct ChangeOutcome: Sendable, Equatable {
    /// Changes in force now (they tighten, or change nothing that protects).
    public let applied: [SettingChange]
    /// Loosening changes asked for, each waiting for its time.
    public let pending: [PendingChange]
    /// Changes that were waiting and are no longer asked for (this change asked for something else).
    public var cancelled: [PendingChange] = []
}

/// The engine's side of settings changes (see `Commitments`): what follows from the protection in
/// force once it changed.
extension PolicyEngine {
    /// Takes what the protection in force is now: the wording, restrictions and metering that
    /// follow from it, and the apps that locked or opened by it.
    mutating func inForceChanged(at now: Instant) {
        standing.forget()
        state.metering.restartIfTheSliceChanged(to: settings.time.metering.slice, at: now)
        noteTransitions(at: now)
    }

    /// Applies the pending changes whose time has come (also those due while lockr was down).
    mutating func applyDueChanges(at now: Instant) {
        if commitments.applyDue(&state, journal: &journal, at: now) { inForceChanged(at: now) }
    }

    /// When a loosening change asked for at `now` may apply (see `Commitments.gateTime`).
    func gateTime(at now: Instant) -> Instant { commitments.gateTime(state.today, at: now) }
}
