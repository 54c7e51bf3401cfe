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

    /// Brings the protection in force toward what is asked for: what tightens at once, what loosens
    /// as pending changes (kept when already pending for the same value, dropped when no longer
    /// asked for). Returns the changes it made pending.
    @discardableResult
    mutating func settle(source: String, at now: Instant) -> [PendingChange] {
        let wanted = desired
        var current = inForce
        for change in Loosening.changes(from: current, to: wanted) where !change.loosens {
            current = Loosening.applying(change, to: current, from: wanted)
            log(
                .changeApplied, change.app, "\(change.description) (\(source); at once, as it does not loosen)", at: now
            )
        }
        state.inForce = current
        let loosening = Loosening.changes(from: current, to: wanted).filter(\.loosens)
        // A device's move is no setting: it waits whatever the settings ask for.
        func stillAsked(_ pending: PendingChange) -> Bool {
            pending.change.isDeviceMove || loosening.contains { ChangeQueue.same($0, pending.change) }
        }
        for gone in state.changes.remove(where: { !stillAsked($0) }) {
            log(
                .changeCancelled, gone.change.app, "#\(gone.id) \(gone.change.description): no longer asked for",
                at: now)
        }
        state.changes.forgetDeclined(notIn: loosening)
        var created: [PendingChange] = []
        for change in loosening where state.changes.waiting(for: change) == nil && !state.changes.isDeclined(change) {
            let pending = state.changes.enqueue(
                change, source: source, appliesAt: gateTime(at: now),
                awaitingSentence: Self.passesNoGate(source) && !gateSteps.isEmpty, target: wanted, at: now)
            created.append(pending)
            log(
                .changePending, change.app, "#\(pending.id) \(change.description) (\(source)): \(when(pending))",
                at: now)
        }
        refreshInForce()
        restartMeteringIfTheSliceChanged(at: now)
        noteTransitions(at: now)
        return created
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

    /// "applies at 15:00", or what it still waits for.
    func when(_ pending: PendingChange) -> String {
        let at = "applies at \(settings.calendar.dateTimeText(pending.appliesAt))"
        return pending.awaitingSentence ? "\(at) once the gate is passed (`lockr pending confirm \(pending.id)`)" : at
    }

    /// Applies the pending changes whose time has come (also those due while lockr was down).
    mutating func applyDueChanges(at now: Instant) {
        // Runs on every query (through `advance`): nothing is allocated unless a change is due.
        // A device's move is the household's to carry out (`takeDueHandOvers`).
        let due = state.changes.remove { pending in
            pending.appliesAt <= now && !pending.awaitingSentence && !pending.change.isDeviceMove
        }
        guard !due.isEmpty else { return }
        var current = inForce
        for pending in due {
            current = Loosening.applying(pending.change, to: current, from: pending.target)
            log(
                .changeApplied, pending.change.app, "#\(pending.id) \(pending.change.description) (\(pending.source))",
                at: now)
        }
        state.inForce = current
        refreshInForce()
        restartMeteringIfTheSliceChanged(at: now)
        noteTransitions(at: now)
    }

    /// Asks for the overlay that `edit` makes. A loosening request must pass the current mode's gate.
    mutating func request(
        _ source: String, phrase: String?, pin: PinCheck, at now: Instant,
        _ edit: (inout SettingsOverlay) throws(PolicyRefusal) -> Void
    ) throws(PolicyRefusal) -> ChangeOutcome {
        let now = advance(to: now)
        var overlay = state.overlay
        try edit(&overlay)
        let candidate = desired(with: overlay)
        if let problem = candidate.settings.problems().first { throw .invalidSettings(problem) }
        let loosening = Loosening.changes(from: inForce, to: candidate).filter(\.loosens)
        let asked = loosening.filter { state.changes.waiting(for: $0) == nil }
        if !asked.isEmpty, needsPin(pin) { throw .pinRequired }
        if !asked.isEmpty { try passGate(phrase, for: nil, at: now) }
        let requested = Loosening.changes(from: desired, to: candidate).map(ChangeQueue.slot)
        let (before, waiting) = (inForce, state.changes.pending)
        state.overlay = overlay
        settle(source: source, at: now)
        return ChangeOutcome(
            applied: Loosening.changes(from: before, to: inForce),
            pending: state.changes.pending.filter { requested.contains(ChangeQueue.slot($0.change)) },
            cancelled: waiting.filter { state.changes.change($0.id) == nil })
    }

    /// Changes the mode and, optionally, its budget or window; kept across restarts, on top of the
    /// configuration.
    public mutating func setMode(
        _ mode: Mode, budget: Duration? = nil, perApp: Bool? = nil, window: Duration? = nil, phrase: String? = nil,
        pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        try request("lockr mode", phrase: phrase, pin: pin, at: now) { overlay throws(PolicyRefusal) in
            overlay.mode = mode
            if let budget { overlay.budget = budget }
            if let perApp { overlay.perApp = perApp }
            if let window {
                switch mode {
                case .extreme: overlay.extremeWindow = window
                case .hourly, .time: overlay.hourlyWindow = window
                }
            }
        }
    }

    /// Starts guarding an app: at once.
    public mutating func guardApp(_ app: String, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
        let app = try appID(app)
        guard !desired.guarded.contains(app) else { throw .nothingToDo("\(app) is already guarded") }
        let configured = configuration.guarded.contains(app)
        return try request("lockr guard add", phrase: nil, pin: .none, at: now) { overlay throws(PolicyRefusal) in
            overlay.guardRemoved.removeAll { $0 == app }
            if !configured, !overlay.guardAdded.contains(app) { overlay.guardAdded.append(app) }
        }
    }

    /// Stops guarding an app: a loosening change.
    public mutating func unguardApp(
        _ app: String, phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        let app = try appID(app)
        guard desired.guarded.contains(app) else {
            throw state.changes.pending.contains(where: {
                $0.change.key == Loosening.guardKey && $0.change.element == app
            })
                ? .nothingToDo("\(app) is already to stop being guarded (`lockr pending list`)") : .notGuarded(app)
        }
        let configured = configuration.guarded.contains(app)
        return try request("lockr guard remove", phrase: phrase, pin: pin, at: now) {
            overlay throws(PolicyRefusal) in
            overlay.guardAdded.removeAll { $0 == app }
            if configured, !overlay.guardRemoved.contains(app) { overlay.guardRemoved.append(app) }
        }
    }

    /// Drops every change the control API made, going back to the configuration file (what loosens
    /// waits like any loosening change).
    public mutating func resetSettings(
        phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        guard state.overlay != SettingsOverlay() else {
            throw .nothingToDo("no setting was changed from the config file")
        }
        return try request("lockr settings reset", phrase: phrase, pin: pin, at: now) {
            overlay throws(PolicyRefusal) in
            overlay = SettingsOverlay()
        }
    }

    /// Cancels a pending change: the setting stays as it is in force. One the control API asked for
    /// is taken back; one from the config file is declined until the file says something else.
    public mutating func cancelPending(_ id: Int, at now: Instant) throws(PolicyRefusal) -> PendingChange {
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
    public mutating func confirmPending(
        _ id: Int, phrase: String?, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> PendingChange {
        let now = advance(to: now)
        guard let waiting = state.changes.change(id) else {
            throw .nothingToDo("no pending change #\(id) (`lockr pending list` shows them)")
        }
        guard waiting.awaitingSentence else { throw .nothingToDo("#\(id) waits for no sentence: \(when(waiting))") }
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
