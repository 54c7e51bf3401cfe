/// What a settings change did: what applied at once, and what waits.
public struct ChangeOutcome: Sendable, Equatable {
    /// Changes in force now (they tighten, or change nothing that protects).
    public let applied: [SettingChange]
    /// Loosening changes asked for, each waiting for its time.
    public let pending: [PendingChange]
    /// Changes that were waiting and are no longer asked for (this change asked for something else).
    public var cancelled: [PendingChange] = []
}

/// The engine's side of settings changes (see `Commitments`): the gate and the PIN before a
/// loosening change is asked for, and what follows from the protection in force once it changed.
extension PolicyEngine {
    /// Brings the protection in force toward what is asked for (see `Commitments.settle`).
    @discardableResult
    mutating func settle(source: String, at now: Instant) -> [PendingChange] {
        let created = commitments.settle(
            &state, source: source, gated: commitments.gated, journal: &journal, at: now)
        inForceChanged(at: now)
        return created
    }

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

    /// Asks for the overlay the settings action `action` makes of the one asked for now (see
    /// `SettingsRequest`). A loosening request must pass the current mode's gate.
    mutating func request(
        _ action: PolicyAction, _ credentials: Credentials, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        let asked = SettingsRequest(
            desired: commitments.desired(state.overlay), configuration: configuration, apps: apps, pending: state.changes.pending)
        let (overlay, source) = try asked.edit(action, from: state.overlay)
        if try commitments.asksToLoosen(overlay, state, pinMissing: needsPin(credentials.pin)) {
            try passGate(credentials.phrase, for: nil, at: now)
        }
        return commit(overlay, source: source, at: now)
    }

    /// Makes `overlay` what is asked for (see `Commitments.commit`).
    mutating func commit(_ overlay: SettingsOverlay, source: String, at now: Instant) -> ChangeOutcome {
        let outcome = commitments.commit(
            overlay, &state, source: source, gated: commitments.gated, journal: &journal, at: now)
        inForceChanged(at: now)
        return outcome
    }

    /// Cancels a pending change (see `Commitments.cancel`).
    mutating func cancelPending(_ id: Int, at now: Instant) throws(PolicyRefusal) -> PendingChange {
        let now = advance(to: now)
        let pending = try commitments.cancel(id, &state, gated: commitments.gated, journal: &journal, at: now)
        inForceChanged(at: now)
        return pending
    }

    /// Passes the gate for a pending change from the config file made where the mode has a gate.
    mutating func confirmPending(
        _ id: Int, phrase: String?, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> PendingChange {
        let now = advance(to: now)
        _ = try commitments.awaitingGate(id, state)
        if needsPin(pin) { throw .pinRequired }
        try passGate(phrase, for: nil, at: now)
        state.changes.confirm(id)
        let confirmed = state.changes.change(id)!
        applyDueChanges(at: now)
        return confirmed
    }

    /// When a loosening change asked for at `now` may apply (see `Commitments.gateTime`).
    func gateTime(at now: Instant) -> Instant { commitments.gateTime(state.today, at: now) }
}
