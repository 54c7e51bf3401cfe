/// What a settings change did: what applied at once, and what waits.
public struct ChangeOutcome: Sendable, Equatable {
    /// Changes in force now (they tighten, or change nothing that protects).
    public let applied: [SettingChange]
    /// Loosening changes asked for, each waiting for its time.
    public let pending: [PendingChange]
    /// Changes that were waiting and are no longer asked for (this change asked for something else).
    public var cancelled: [PendingChange] = []
}

/// Settings changes. Loosening costs at least what opening an app costs now: the current mode's
/// gate (the sentence, with its cooldowns, in extreme mode by default), and in every mode a wait for the mode's own reset (the next day
/// in time mode, the next clock hour in hourly and extreme mode), and at least the commitment delay.
/// Tightening applies at once. The same holds for a reloaded or restarted configuration file (which
/// cannot pass a gate: its loosening changes wait for `confirmPending` where the mode has one).
extension PolicyEngine {
    /// The configuration file with the control API's changes on top: what is asked for.
    var desired: Protection { desired(with: state.overlay) }

    func desired(with overlay: SettingsOverlay) -> Protection {
        configuration.protection(with: overlay, known: apps)
    }

    /// The protection in force.
    public var inForce: Protection { state.inForce ?? desired }

    /// Which names are apps' names, as the protection in force has them.
    public var inForceNames: NameRules { inForce.names ?? configuration.names }

    /// Makes the settings, known apps and guarded apps those of the protection in force. An app the
    /// configuration no longer defines stays known while the protection in force still has it.
    mutating func refreshInForce() {
        settings = inForce.settings
        wording.forget()
        apps = configuration.apps
        for app in inForce.names?.customApps.keys.sorted() ?? [] where apps[app] == nil { apps[app] = app }
        guarded = inForce.guarded.filter { apps[$0] != nil }
        guardedSet = Set(guarded)
        schedules = inForce.schedules ?? configuration.schedules
        restrictions = .stale
    }

    /// Brings the protection in force toward what is asked for (see `ChangeQueue.settle`): a
    /// loosening change waits for the mode's reset and, when `source` passes no gate but the mode
    /// has one, for the gate. Returns the changes it made pending.
    @discardableResult
    mutating func settle(source: String, at now: Instant) -> [PendingChange] {
        let settled = state.changes.settle(
            inForce, toward: desired, source: source, appliesAt: gateTime(at: now),
            awaitingSentence: Self.passesNoGate(source) && !gateSteps.isEmpty, calendar: settings.calendar,
            journal: &journal, at: now)
        state.inForce = settled.inForce
        inForceChanged(at: now)
        return settled.created
    }

    /// Takes what the protection in force is now: the settings, apps and metering that follow
    /// from it, and the apps that locked or opened by it.
    private mutating func inForceChanged(at now: Instant) {
        refreshInForce()
        restartMeteringIfTheSliceChanged(at: now)
        noteTransitions(at: now)
    }

    /// The settings the control API's changes set to something other than the configuration says
    /// (one asked for at the configuration's own value is none), in a fixed order.
    var differingFromConfiguration: [String] {
        let keys = Set(Loosening.changes(from: desired(with: SettingsOverlay()), to: desired).map(\.key))
        return state.overlay.overriddenKeys.filter(keys.contains)
    }

    /// When a loosening change asked for at `now` may apply: at the current mode's next reset, and
    /// no sooner than the commitment delay.
    func gateTime(at now: Instant) -> Instant {
        let reset = settings.mode == .time ? state.today.day.end : settings.calendar.clockHour(containing: now).end
        return max(reset, now + settings.commitmentDelay)
    }

    /// Applies the pending changes whose time has come (also those due while lockr was down).
    mutating func applyDueChanges(at now: Instant) {
        let due = state.changes.takeDue(at: now)
        guard !due.isEmpty else { return }
        state.inForce = ChangeQueue.applying(due, to: inForce, journal: &journal, at: now)
        inForceChanged(at: now)
    }

    /// Asks for the overlay that `edit` makes of the one asked for now (see `SettingsRequest`),
    /// for `source`. A loosening request must pass the current mode's gate.
    mutating func request(
        _ source: String, _ credentials: Credentials, at now: Instant,
        _ edit: (SettingsRequest, SettingsOverlay) throws(PolicyRefusal) -> SettingsOverlay
    ) throws(PolicyRefusal) -> ChangeOutcome {
        let now = advance(to: now)
        let asked = SettingsRequest(
            desired: desired, configuration: configuration, apps: apps, pending: state.changes.pending)
        let overlay = try edit(asked, state.overlay)
        if try asksToLoosen(overlay, pin: credentials.pin) { try passGate(credentials.phrase, for: nil, at: now) }
        return commit(overlay, source: source, at: now)
    }

    /// Checks the settings `overlay` asks for; whether they loosen anything not already waiting
    /// (which needs the PIN when one is set).
    func asksToLoosen(_ overlay: SettingsOverlay, pin: PinCheck) throws(PolicyRefusal) -> Bool {
        let candidate = desired(with: overlay)
        if let problem = candidate.settings.problems().first { throw .invalidSettings(problem) }
        let loosening = Loosening.changes(from: inForce, to: candidate).filter(\.loosens)
        guard loosening.contains(where: { state.changes.waiting(for: $0) == nil }) else { return false }
        if needsPin(pin) { throw .pinRequired }
        return true
    }

    /// Makes `overlay` (and `madeProfiles`, the profiles made at run time, when given) what is
    /// asked for and settles it: what changed at once, what now waits, what no longer does.
    mutating func commit(
        _ overlay: SettingsOverlay, madeProfiles: [Profile]? = nil, source: String, at now: Instant
    ) -> ChangeOutcome {
        let requested = Loosening.changes(from: desired, to: desired(with: overlay)).map(ChangeQueue.slot)
        let (before, waiting) = (inForce, state.changes.pending)
        state.overlay = overlay
        if let madeProfiles, madeProfiles != state.profiles.made {
            state.profiles.replaceMade(with: madeProfiles)
            log(
                .profileChange, nil, "profiles set by an import: \(profiles.map(\.name).joined(separator: ", "))",
                at: now)
            restrictions = .stale
        }
        settle(source: source, at: now)
        return ChangeOutcome(
            applied: Loosening.changes(from: before, to: inForce),
            pending: state.changes.pending.filter { requested.contains(ChangeQueue.slot($0.change)) },
            cancelled: waiting.filter { state.changes.change($0.id) == nil })
    }

    /// Cancels a pending change: the setting stays as it is in force. One the control API asked for
    /// is taken back; one from the config file is declined until the file says something else.
    mutating func cancelPending(_ id: Int, at now: Instant) throws(PolicyRefusal) -> PendingChange {
        let now = advance(to: now)
        guard let pending = state.changes.change(id) else {
            throw .nothingToDo("no pending change #\(id) (`lockr pending list` shows them)")
        }
        state.overlay.revert(pending.change, base: configuration.settings)
        let slot = ChangeQueue.slot(pending.change)
        let still = Loosening.changes(from: inForce, to: desired).first { ChangeQueue.slot($0) == slot }
        if let still, still.loosens { state.changes.decline(still) }
        _ = state.changes.remove { $0.id == id }
        log(.changeCancelled, pending.change.app, "#\(id) \(pending.change.description): cancelled", at: now)
        settle(source: Self.configuration, at: now)
        return pending
    }

    /// Passes the gate for a pending change from the config file made where the mode has a gate.
    mutating func confirmPending(
        _ id: Int, phrase: String?, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> PendingChange {
        let now = advance(to: now)
        guard let waiting = state.changes.change(id) else {
            throw .nothingToDo("no pending change #\(id) (`lockr pending list` shows them)")
        }
        guard waiting.awaitingSentence else {
            throw .nothingToDo("#\(id) waits for no sentence: \(waiting.timing(in: settings.calendar))")
        }
        if needsPin(pin) { throw .pinRequired }
        try passGate(phrase, for: nil, at: now)
        state.changes.confirm(id)
        let confirmed = state.changes.change(id)!
        applyDueChanges(at: now)
        return confirmed
    }

    /// Whether changes from `source` come without a gate passed: the config file's and an
    /// import's loosening changes wait for `confirmPending` where the mode has a gate.
    static func passesNoGate(_ source: String) -> Bool {
        [configuration, configFileBefore, configImport].contains(source)
    }

}
