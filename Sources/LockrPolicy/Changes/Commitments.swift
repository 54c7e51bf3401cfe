/// One person's settings and what holds them in place: what the configuration file asks for, the
/// control API's changes on top of it (the overlay, kept in `PolicyState`), the protection in
/// force, and the loosening changes waiting between the two (`ChangeQueue`). Loosening costs at
/// least what opening an app costs now: the current mode's gate (the engine's), and in every mode
/// a wait for the mode's own reset (the next day in time mode, the next clock hour in hourly and
/// extreme mode), and at least the commitment delay. Tightening applies at once. The same holds
/// for a reloaded or restarted configuration file, which cannot pass a gate: its loosening changes
/// wait for `lockr pending confirm` where the mode has one.
///
/// The settings, known apps, guarded apps and schedules here are those of the protection in force,
/// brought up to date by every method that changes it.
struct Commitments: Sendable {
    /// What the configuration file and `lockr serve`'s flags say; `rebase` replaces it.
    private(set) var configuration: PolicyConfiguration
    /// Settings in force: the configuration with the control API's changes applied.
    private(set) var settings: PolicySettings
    /// Every app that may be guarded: id to display name (the catalogue's, the configuration's, and
    /// those the protection in force still defines).
    private(set) var apps: [String: String]
    /// Apps guarded now, in configuration order.
    private(set) var guarded: [String]
    private(set) var guardedSet: Set<String> = []
    /// Schedules in force.
    private(set) var schedules: [Schedule] = []

    /// The current mode's gate.
    var gateSteps: [GateStep] { settings.gate.steps(for: settings.mode) }
    /// Whether the current mode has a gate.
    var gated: Bool { !gateSteps.isEmpty }
    /// Time mode: each budget as configured; none in the other modes.
    var budgets: [String: Duration] { settings.mode == .time ? settings.time.budgets(guarded: guarded) : [:] }

    /// Where a pending change came from when the configuration asked for it: the config file and
    /// `lockr serve`'s flags (`--guard`), which a restart without them takes away.
    static let configurationSource = "configuration (config file and serve flags)"
    /// What an older lockr called it, in pending changes it saved.
    static let configFileBefore = "config file"
    /// Where a pending change came from when an import asked for it.
    static let configImport = "config import"

    /// Takes `configuration` for `state`, which a first start (or a store an older lockr wrote)
    /// takes as it is; after that, what the configuration loosens waits like any loosening change.
    init(configuration: PolicyConfiguration, state: inout PolicyState) {
        self.configuration = configuration
        settings = configuration.settings
        apps = configuration.apps
        guarded = []
        if state.inForce == nil { state.inForce = desired(state.overlay) }
        if state.inForce?.names == nil { state.inForce?.names = configuration.names }
        // A store an older lockr wrote has no schedules in force: the configuration's apply.
        if state.inForce?.schedules == nil { state.inForce?.schedules = configuration.schedules }
        refresh(state)
    }

    /// What an action for the app `text` names (any letter case, or its display name) reaches: the
    /// app's id and the guarded apps, that one (which must be guarded) or, for nil, every one.
    func targets(_ text: String?) throws(PolicyRefusal) -> (app: String?, targets: [String]) {
        guard let text else {
            guard !guarded.isEmpty else { throw .nothingToDo("no app is guarded") }
            return (nil, guarded)
        }
        let app = try AppNames.id(text, in: apps)
        guard guardedSet.contains(app) else { throw .notGuarded(app) }
        return (app, [app])
    }

    /// The id of the app `text` names, nil for nil (every app).
    func appID(_ text: String?) throws(PolicyRefusal) -> String? {
        try text.map { text throws(PolicyRefusal) in try AppNames.id(text, in: apps) }
    }

    /// The configuration file with `overlay` on top: what is asked for.
    func desired(_ overlay: SettingsOverlay) -> Protection {
        configuration.protection(with: overlay, known: apps)
    }

    /// The protection in force.
    func inForce(_ state: PolicyState) -> Protection { state.inForce ?? desired(state.overlay) }

    /// Makes the settings, known apps and guarded apps those of the protection in force. An app the
    /// configuration no longer defines stays known while the protection in force still has it.
    private mutating func refresh(_ state: PolicyState) {
        let inForce = inForce(state)
        settings = inForce.settings
        apps = configuration.apps
        for app in inForce.names?.customApps.keys.sorted() ?? [] where apps[app] == nil { apps[app] = app }
        guarded = inForce.guarded.filter { apps[$0] != nil }
        guardedSet = Set(guarded)
        schedules = inForce.schedules ?? configuration.schedules
    }

    /// Brings the protection in force toward what is asked for (see `ChangeQueue.settle`): a
    /// loosening change waits for the mode's reset and, when `source` passes no gate but the mode
    /// has one (`gated`), for the gate. Returns the changes it made pending.
    @discardableResult
    mutating func settle(
        _ state: inout PolicyState, source: String, gated: Bool, journal: inout PolicyJournal, at now: Instant
    ) -> [PendingChange] {
        let settled = state.changes.settle(
            inForce(state), toward: desired(state.overlay), source: source, appliesAt: gateTime(state.today, at: now),
            awaitingSentence: Self.passesNoGate(source) && gated, calendar: settings.calendar, journal: &journal,
            at: now)
        state.inForce = settled.inForce
        refresh(state)
        return settled.created
    }

    /// The settings the control API's changes set to something other than the configuration says
    /// (one asked for at the configuration's own value is none), in a fixed order.
    func differingFromConfiguration(_ overlay: SettingsOverlay) -> [String] {
        let keys = Set(Loosening.changes(from: desired(SettingsOverlay()), to: desired(overlay)).map(\.key))
        return overlay.overriddenKeys.filter(keys.contains)
    }

    /// When a loosening change asked for at `now` may apply: at the current mode's next reset, and
    /// no sooner than the commitment delay.
    func gateTime(_ today: DayRecord, at now: Instant) -> Instant {
        let reset = settings.mode == .time ? today.day.end : settings.calendar.clockHour(containing: now).end
        return max(reset, now + settings.commitmentDelay)
    }

    /// Applies the pending changes whose time has come (also those due while lockr was down);
    /// whether there were any.
    mutating func applyDue(_ state: inout PolicyState, journal: inout PolicyJournal, at now: Instant) -> Bool {
        let due = state.changes.takeDue(at: now)
        guard !due.isEmpty else { return false }
        state.inForce = ChangeQueue.applying(due, to: inForce(state), journal: &journal, at: now)
        refresh(state)
        return true
    }

    /// Checks the settings `overlay` asks for; whether they loosen anything not already waiting
    /// (which needs the PIN, refused when `pinMissing`).
    func asksToLoosen(_ overlay: SettingsOverlay, _ state: PolicyState, pinMissing: Bool) throws(PolicyRefusal) -> Bool
    {
        let candidate = desired(overlay)
        if let problem = candidate.settings.problems().first { throw .invalidSettings(problem) }
        let loosening = Loosening.changes(from: inForce(state), to: candidate).filter(\.loosens)
        guard loosening.contains(where: { state.changes.waiting(for: $0) == nil }) else { return false }
        if pinMissing { throw .pinRequired }
        return true
    }

    /// Makes `overlay` what is asked for and settles it: what changed at once, what now waits,
    /// what no longer does.
    mutating func commit(
        _ overlay: SettingsOverlay, _ state: inout PolicyState, source: String, gated: Bool,
        journal: inout PolicyJournal, at now: Instant
    ) -> ChangeOutcome {
        let requested = Loosening.changes(from: desired(state.overlay), to: desired(overlay)).map(ChangeQueue.slot)
        let (before, waiting) = (inForce(state), state.changes.pending)
        state.overlay = overlay
        settle(&state, source: source, gated: gated, journal: &journal, at: now)
        return ChangeOutcome(
            applied: Loosening.changes(from: before, to: inForce(state)),
            pending: state.changes.pending.filter { requested.contains(ChangeQueue.slot($0.change)) },
            cancelled: waiting.filter { state.changes.change($0.id) == nil })
    }

    /// Cancels the pending change `id`: the setting stays as it is in force. One the control API
    /// asked for is taken back; one from the config file is declined until the file says something
    /// else.
    mutating func cancel(
        _ id: Int, _ state: inout PolicyState, gated: Bool, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> PendingChange {
        let pending = try waiting(id, state)
        state.overlay.revert(
            pending.change, base: configuration.settings, inForce: inForce(state).names ?? configuration.names)
        let slot = ChangeQueue.slot(pending.change)
        let still = Loosening.changes(from: inForce(state), to: desired(state.overlay)).first {
            ChangeQueue.slot($0) == slot
        }
        if let still, still.loosens { state.changes.decline(still) }
        _ = state.changes.remove { $0.id == id }
        journal.log(.changeCancelled, pending.change.app, "#\(id) \(pending.change.description): cancelled", at: now)
        settle(&state, source: Self.configurationSource, gated: gated, journal: &journal, at: now)
        return pending
    }

    /// The pending change `id`, when it waits for the gate (a config file's, where the mode has one).
    func awaitingGate(_ id: Int, _ state: PolicyState) throws(PolicyRefusal) -> PendingChange {
        let pending = try waiting(id, state)
        guard pending.awaitingSentence else {
            throw .nothingToDo("#\(id) waits for no sentence: \(pending.timing(in: settings.calendar))")
        }
        return pending
    }

    /// Takes the configuration of a reloaded file, with `guarded` its guarded apps; the control API's
    /// changes stay on top. What tightens applies at once, what loosens waits. Returns a note for
    /// each changed setting the control API overrides.
    mutating func rebase(
        _ new: PolicyConfiguration, guarded newGuarded: [String], _ state: inout PolicyState, gated: Bool,
        journal: inout PolicyJournal, at now: Instant
    ) -> [String] {
        let before = configuration.protection
        configuration = new
        configuration.guarded = []
        refresh(state)
        // Guarded apps count once the apps the protection in force defines are known too.
        configuration.guarded = newGuarded.filter { apps[$0] != nil }
        let after = configuration.protection
        let overridden = Set(state.overlay.overriddenKeys)
        let notes = Loosening.changes(from: before, to: after).filter { overridden.contains($0.key) }.map {
            "\($0.key) changed in the config file, but `lockr \(Self.command(changing: $0.key))` set it and "
                + "stays in force; `lockr settings reset` goes back to the file"
        }
        settle(&state, source: Self.configurationSource, gated: gated, journal: &journal, at: now)
        return notes
    }

    /// Whether changes from `source` come without a gate passed: the config file's and an
    /// import's loosening changes wait for `lockr pending confirm` where the mode has a gate.
    static func passesNoGate(_ source: String) -> Bool {
        [configurationSource, configFileBefore, configImport].contains(source)
    }

    private func waiting(_ id: Int, _ state: PolicyState) throws(PolicyRefusal) -> PendingChange {
        guard let pending = state.changes.change(id) else {
            throw .nothingToDo("no pending change #\(id) (`lockr pending list` shows them)")
        }
        return pending
    }

    /// The command whose changes to the setting `key` stay on top of the configuration file.
    private static func command(changing key: String) -> String {
        switch key {
        case Loosening.guardKey: "guard"
        case Loosening.scheduleKey: "schedule"
        case Loosening.safeSearchKey, Loosening.youtubeKey: "filters safe-search"
        case let key where FilterEntry.Kind(rawValue: key) != nil: "filters"
        case let key where Loosening.gateKeys.contains(key): "config import"
        default: "mode"
        }
    }
}
