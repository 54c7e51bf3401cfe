/// What a person asks of their settings while lockr runs: a settings action, the confirmation of a
/// pending change, an import. Each is checked whole before anything changes; what loosens needs
/// the PIN where one is set and passes the current mode's gate, except an import's, which passes
/// none and so waits for `lockr pending confirm` where the mode has a gate (as the config file's).
/// The engine takes what is in force afterwards.
extension Commitments {
    /// Asks for the overlay the settings action `action` makes of the one asked for now (see
    /// `SettingsRequest`).
    mutating func request(
        _ action: PolicyAction, _ credentials: Credentials, _ state: inout PolicyState, journal: inout PolicyJournal,
        at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        let asked = SettingsRequest(
            desired: desired(state.overlay), configuration: configuration, apps: apps, pending: state.changes.pending)
        let (overlay, source) = try asked.edit(action, from: state.overlay)
        if try asksToLoosen(overlay, state, pinMissing: credentials.pin.isMissing(household: state.pin)) {
            try passGate(credentials.phrase, &state, journal: &journal, at: now)
        }
        return commit(overlay, &state, source: source, gated: gated, journal: &journal, at: now)
    }

    /// Passes the gate for the pending change `id`, one from the config file made where the mode
    /// has a gate; it applies when its time has come.
    func confirm(
        _ id: Int, _ credentials: Credentials, _ state: inout PolicyState, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> PendingChange {
        _ = try awaitingGate(id, state)
        if credentials.pin.isMissing(household: state.pin) { throw .pinRequired }
        try passGate(credentials.phrase, &state, journal: &journal, at: now)
        state.changes.confirm(id)
        return state.changes.change(id)!
    }

    /// Asks for `wanted` as a whole: an unknown app or group, a bad schedule or profile, or
    /// settings lockr does not accept are refused naming what is wrong, and nothing changes.
    /// Returns what it changed and whether the profiles did.
    mutating func importing(
        _ wanted: RunTimeSettings, pin: PinCheck, _ state: inout PolicyState, journal: inout PolicyJournal,
        at now: Instant
    ) throws(PolicyRefusal) -> (outcome: ChangeOutcome, profilesChanged: Bool) {
        let pinMissing = pin.isMissing(household: state.pin)
        var overlay = try configuration.overlay(for: wanted, known: apps)
        // Safe search and own entries are not among the run-time settings: they stay as asked.
        (overlay.safeSearch, overlay.filters) = (state.overlay.safeSearch, state.overlay.filters)
        let madeProfiles = try configuration.profilesMade(for: wanted.profiles, known: apps)
        if state.profiles.wouldBlockLess(wanted.profiles, configured: configuration.profiles, at: now), pinMissing {
            throw .pinRequired
        }
        _ = try asksToLoosen(overlay, state, pinMissing: pinMissing)
        let profilesChanged = state.profiles.importMade(
            madeProfiles, configured: configuration.profiles, journal: &journal, at: now)
        let outcome = commit(overlay, &state, source: Self.configImport, gated: gated, journal: &journal, at: now)
        return (outcome, profilesChanged)
    }

    /// The current mode's gate, passed with `phrase` (see `GateState.pass`).
    private func passGate(
        _ phrase: String?, _ state: inout PolicyState, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) {
        try state.gate.pass(phrase, for: nil, rules: GateRules(settings), day: &state.today, journal: &journal, at: now)
    }
}
