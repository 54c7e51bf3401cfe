/// The answer for one query of a guarded app's name.
public enum Admission: Sendable, Equatable {
    /// The name belongs to an app that is not guarded: resolve it as any other.
    case notGuarded
    /// Resolve it; clients may cache the answer for at most `ttl`.
    case allow(ttl: Duration)
    /// Sinkhole it: why, and the sentence that says so.
    case block(AppAccess, reason: String)
}

/// What `unlock` did.
public struct UnlockResult: Sendable, Equatable {
    /// Windows opened by this call.
    public let opened: [UnlockWindow]
    /// Apps that were open already, with the window they are open in.
    public let alreadyOpen: [UnlockWindow]
}

/// The policy: modes, metering, windows and gates, as a value that changes only through its methods.
///
/// No I/O and no clock: every method takes the current policy time, which must not go backwards
/// (an earlier time is treated as the latest one seen). The daemon keeps one engine behind a lock,
/// persists `snapshot(at:)` and the events from `drainEvents()`, and restores it with
/// `init(settings:guarded:apps:state:now:)`.
public struct PolicyEngine: Sendable {
    /// Settings from the configuration file.
    public private(set) var base: PolicySettings
    /// Settings in force: the configuration with the control API's changes applied.
    public internal(set) var settings: PolicySettings
    /// Every app that may be guarded: id to display name (the catalogue's, the configuration's, and
    /// those the protection in force still defines).
    public internal(set) var apps: [String: String]
    /// Every app the configuration and catalogue know: id to display name.
    private(set) var configuredApps: [String: String]
    /// Which names are apps' names, as the configuration file says.
    private(set) var baseNames: NameRules
    /// Apps guarded by the configuration file.
    var baseGuarded: [String]
    /// Apps guarded now, in configuration order.
    public internal(set) var guarded: [String]
    var guardedSet: Set<String>
    /// Each app's catalogue group ("social", "video"), by id: what schedules and profiles name.
    private(set) var groups: [String: String]
    /// Schedules of the configuration file.
    var baseSchedules: [Schedule]
    /// Schedules in force.
    var schedules: [Schedule] = []
    /// Profiles of the configuration file (`profiles` adds those made at run time).
    var configuredProfiles: [Profile]
    /// What schedules and profiles block, worked out ahead of the DNS path.
    var restrictions = RestrictionTable.stale
    public internal(set) var state: PolicyState
    var journal = PolicyJournal()
    private var closedDays: [DayRecord] = []
    /// Whether each guarded app was open when last looked at, to log locks and unlocks once.
    var wasOpen: [String: Bool] = [:]
    private var holds = EmergencyHolds()

    /// Restores an engine. `state` is what the store kept (nil on first start); `now` must be the
    /// current policy time.
    public init(
        settings base: PolicySettings, guarded baseGuarded: [String], apps: [String: String],
        names: NameRules = NameRules(), schedules: [Schedule] = [], profiles: [Profile] = [],
        groups: [String: String] = [:], state: PolicyState?, now: Instant
    ) {
        let state = state ?? PolicyState(today: DayRecord(day: base.calendar.day(containing: now)), lastSeen: now)
        self.base = base
        self.apps = apps
        configuredApps = apps
        baseNames = names
        self.baseGuarded = baseGuarded.filter { apps[$0] != nil }
        baseSchedules = schedules
        configuredProfiles = profiles
        self.groups = groups
        self.state = state
        settings = base
        guarded = []
        guardedSet = []
        // A first start (or a store an older lockr wrote) takes the configuration as it is; after
        // that, what the configuration loosens waits like any other loosening change.
        if self.state.inForce == nil { self.state.inForce = desired }
        if self.state.inForce?.names == nil { self.state.inForce?.names = names }
        // A store an older lockr wrote has no schedules in force: the configuration's apply.
        if self.state.inForce?.schedules == nil { self.state.inForce?.schedules = schedules }
        refreshInForce()
        restartMeteringIfTheSliceChanged(at: state.lastSeen)
        self.state.metering.resume(lastSaved: state.lastSeen, at: now, relookupGap: settings.relookupGap)
        let now = advance(to: now)
        for app in guarded + restrictedUnguardedApps(at: now) { wasOpen[app] = access(app, at: now).isOpen }
        settle(source: Self.configuration, at: now)
    }

    private var slice: Duration { settings.time.metering.slice }

    /// How reasons are worded, in the policy's time zone.
    var text: AccessText { AccessText(calendar: settings.calendar) }

    // MARK: - Queries

    /// Decides a query for `app`'s names at `now` and, unless `metering` is false (usage is metered
    /// from another blocker's query log), meters it.
    public mutating func admit(_ app: String, at now: Instant, metering: Bool = true) -> Admission {
        let admission = decide(app, queriedAt: metering ? now : nil, now: now)
        if case .block = admission { state.today.blocked[app, default: 0] += 1 }
        return admission
    }

    /// Takes a query that another blocker logged at `time` (from its query log) as if lockr had
    /// answered it at `now`: it is metered at its own time (never before the app's last metered
    /// query or today's start), and in hourly mode with open-on-first-query it opens the window.
    /// Returns what lockr would answer now.
    @discardableResult
    public mutating func observe(_ app: String, queriedAt time: Instant, now: Instant) -> Admission {
        decide(app, queriedAt: time, now: now)
    }

    /// Decides at `now`; meters a query at `time` unless it is nil.
    private mutating func decide(_ app: String, queriedAt time: Instant?, now: Instant) -> Admission {
        let now = advance(to: now)
        refreshRestrictions(at: now)
        let isGuarded = guardedSet.contains(app)
        guard isGuarded || restrictions.byApp[app] != nil else { return .notGuarded }
        var access = access(app, at: now)
        if case .locked(.firstQuery, _) = access {
            openHourlyWindow(for: app, at: now, detail: "first query of the hour")
            access = self.access(app, at: now)
        }
        if access.isOpen, access != .free, isGuarded, let time {
            let earliest = state.metering.earliestRecordable(app, dayStart: state.today.day.start, slice: slice)
            meter(app, at: min(now, max(time, earliest)))
            if settings.mode == .time { access = self.access(app, at: now) }
        }
        noteTransition(app, access, at: now)
        if access == .free { return .notGuarded }
        guard access.isOpen, let until = access.until else {
            return .block(access, reason: text.sentence(app, access, at: now))
        }
        return .allow(ttl: max(.seconds(1), min(settings.maximumTTL, .seconds((until - now).secondsRoundedUp))))
    }

    /// Meters a query of `app` at `now` (see `MeteringState.record`); use in snooze and emergency
    /// windows is not charged.
    private mutating func meter(_ app: String, at now: Instant) {
        let windows = state.windows
        let newSession = state.metering.record(
            app, at: now, settings: settings.time.metering, relookupGap: settings.relookupGap
        ) { windows.isGrace(app, at: $0) }
        if newSession { state.today.sessions[app, default: 0] += 1 }
    }

    /// Counts what was metered afresh when the slice length changed (see
    /// `MeteringState.restartIfTheSliceChanged`).
    mutating func restartMeteringIfTheSliceChanged(at now: Instant) {
        state.metering.restartIfTheSliceChanged(to: slice, at: now)
    }

    // MARK: - Actions

    /// Opens the hour's window for `app`, or for every guarded app when nil. Hourly and extreme modes
    /// only; extreme mode needs `phrase`.
    public mutating func unlock(
        _ app: String?, phrase: String?, at now: Instant
    ) throws(PolicyRefusal)
        -> UnlockResult
    {
        let now = advance(to: now)
        let app = try app.map(appID)
        let targets = try targets(app)
        guard settings.mode != .time else {
            throw .notInThisMode(
                "time mode: guarded apps are open while today's budget lasts; `lockr snooze` or `lockr extend` give more"
            )
        }
        try checkNotRestricted(targets, at: now)
        let alreadyOpen = targets.compactMap { target in
            restriction(of: target, at: now) == nil ? state.windows.newest(covering: target, at: now) : nil
        }
        let closed = targets.filter { target in
            restriction(of: target, at: now) == nil && state.windows.newest(covering: target, at: now) == nil
        }
        let available = closed.filter { state.windows.hourResets(for: $0, at: now) == nil }
        if available.isEmpty {
            if !alreadyOpen.isEmpty { return UnlockResult(opened: [], alreadyOpen: alreadyOpen) }
            let first = closed.first!
            throw .windowUsed(
                app: first, nextAt: settings.calendar.clockText(state.windows.hourResets(for: first, at: now)!))
        }
        let gated = !gateSteps.isEmpty
        try passGate(phrase, for: app, at: now)
        let detail = gated ? "gate passed" : "lockr unlock"
        let opened = available.map { openHourlyWindow(for: $0, at: now, detail: detail) }
        return UnlockResult(opened: opened, alreadyOpen: alreadyOpen)
    }

    @discardableResult
    private mutating func openHourlyWindow(for app: String, at now: Instant, detail: String) -> UnlockWindow {
        let window = UnlockWindow(
            app: app, kind: .hourly, opened: now, ends: now + settings.windowLength,
            hourResets: settings.calendar.clockHour(containing: now).end)
        state.windows.open(window)
        state.today.opens[app, default: 0] += 1
        log(.unlock, app, "\(detail): open until \(settings.calendar.clockText(window.ends))", at: now)
        wasOpen[app] = true
        return window
    }

    /// Time mode, once a budget is spent: a short grace for `app`, or every guarded app when nil.
    /// Time mode's gate, if it has one, must be passed (`phrase`: the sentence typed).
    public mutating func snooze(
        _ app: String?, phrase: String? = nil, at now: Instant
    ) throws(PolicyRefusal)
        -> UnlockWindow
    {
        let now = advance(to: now)
        let app = try app.map(appID)
        let targets = try targets(app)
        guard settings.mode == .time else { throw .notInThisMode("snooze belongs to time mode") }
        try checkNotRestricted(targets, at: now)
        guard state.today.snoozes < settings.snooze.perDay else {
            throw .limitReached("all \(settings.snooze.perDay) snoozes of today are used")
        }
        let spent = targets.filter { target in
            if case .budgetSpent = access(target, at: now) { return true }
            return false
        }
        guard !spent.isEmpty else {
            throw .nothingToDo("nothing to snooze: no guarded app is out of budget")
        }
        try passGate(phrase, for: app, at: now)
        state.today.snoozes += 1
        for target in spent { state.today.opens[target, default: 0] += 1 }
        let window = UnlockWindow(app: app, kind: .snooze, opened: now, ends: now + settings.snooze.length)
        state.windows.open(window)
        let count = "\(state.today.snoozes)/\(settings.snooze.perDay) today"
        log(.snooze, app, "open until \(settings.calendar.clockText(window.ends)) (\(count))", at: now)
        for target in spent { wasOpen[target] = true }
        return window
    }

    /// Time mode: more budget for today, for the shared budget, or for `app` when budgets are per app.
    /// Time mode's gate, if it has one, must be passed. Returns the budget now in force.
    public mutating func extend(
        _ app: String?, phrase: String? = nil, at now: Instant
    ) throws(PolicyRefusal)
        -> Duration
    {
        let now = advance(to: now)
        let app = try app.map(appID)
        _ = try targets(app)
        guard settings.mode == .time else { throw .notInThisMode("extend belongs to time mode") }
        guard state.today.extensions < settings.extend.perDay else {
            throw .limitReached("today's extension is used (\(settings.extend.perDay) per day)")
        }
        let key: String
        if settings.time.perApp {
            guard let app else { throw .nothingToDo("budgets are per app: name the app to extend") }
            key = app
        } else {
            key = MeteringState.allApps
        }
        try passGate(phrase, for: app, at: now)
        state.today.extensions += 1
        state.today.extraBudget[key, default: .zero] += settings.extend.length
        let budget = budget(forKey: key)
        log(.extend, app, "+\(settings.extend.length.spoken), budget today \(budget.spoken)", at: now)
        return budget
    }

    /// Starts the emergency hold; `completeEmergency` must follow after `settings.emergencyHold`.
    public mutating func beginEmergency(at now: Instant) throws(PolicyRefusal) -> UInt64 {
        let now = advance(to: now)
        try checkEmergencyAllowance()
        return holds.begin(at: now)
    }

    /// Ends a hold begun by `beginEmergency` (letting go): if it lasted, every guarded app opens for
    /// the emergency window length; a hold let go too soon grants nothing and is over.
    public mutating func completeEmergency(hold id: UInt64, at now: Instant) throws(PolicyRefusal) -> UnlockWindow {
        let now = advance(to: now)
        guard let held = holds.end(id, at: now) else {
            throw .holdIncomplete("no such emergency hold; start a new one")
        }
        guard held >= settings.emergencyHold else {
            // Whole seconds held, rounded down: 7.9 s is not yet 8.
            let whole = Duration.seconds(held.milliseconds / 1000)
            throw .holdIncomplete("let go after \(whole.spoken) of \(settings.emergencyHold.spoken): nothing granted")
        }
        try checkEmergencyAllowance()
        state.today.emergencies += 1
        let window = UnlockWindow(app: nil, kind: .emergency, opened: now, ends: now + settings.emergency.length)
        state.windows.open(window)
        let count = "\(state.today.emergencies)/\(settings.emergency.perDay) today"
        log(
            .emergency, nil, "all guarded apps open until \(settings.calendar.clockText(window.ends)) (\(count))",
            at: now)
        for app in guarded + restrictedUnguardedApps(at: now) { wasOpen[app] = true }
        return window
    }

    /// Refuses when a schedule or profile blocks every one of `targets`: only the emergency opens them.
    private func checkNotRestricted(_ targets: [String], at now: Instant) throws(PolicyRefusal) {
        let blocking = targets.compactMap { restriction(of: $0, at: now) }
        guard blocking.count == targets.count, let first = blocking.first else { return }
        throw .restricted(targets.count == 1 ? "\(targets[0]): \(text.text(first))" : text.text(first))
    }

    private func checkEmergencyAllowance() throws(PolicyRefusal) {
        guard state.today.emergencies < settings.emergency.perDay else {
            throw .limitReached("all \(settings.emergency.perDay) emergency bypasses of today are used")
        }
    }

    /// The mode and its main number, as `lockr status` shows it.
    public var modeSummary: String {
        switch settings.mode {
        case .time:
            "time, budget \(settings.time.budget.spoken) a day" + (settings.time.perApp ? " per app" : " for all apps")
        case .hourly: "hourly, \(settings.hourly.window.spoken) per hour"
        case .extreme: "extreme, \(settings.extreme.window.spoken) per hour behind the phrase"
        }
    }

    /// Takes new settings, guarded apps, known apps and app names from a reloaded configuration;
    /// changes made through the control API stay on top. What tightens applies at once, what loosens
    /// waits (see `PendingChange`). Returns a note for each changed setting the control API overrides.
    @discardableResult
    public mutating func rebase(
        settings newBase: PolicySettings, guarded newGuarded: [String], apps newApps: [String: String],
        names newNames: NameRules = NameRules(), schedules newSchedules: [Schedule] = [],
        profiles newProfiles: [Profile] = [],
        groups newGroups: [String: String] = [:], at now: Instant
    ) -> [String] {
        let now = advance(to: now)
        let before = Protection(settings: base, guarded: baseGuarded, names: baseNames, schedules: baseSchedules)
        configuredApps = newApps
        base = newBase
        baseNames = newNames
        baseSchedules = newSchedules
        configuredProfiles = newProfiles
        groups = newGroups
        refreshInForce()
        baseGuarded = newGuarded.filter { apps[$0] != nil }
        let after = Protection(settings: base, guarded: baseGuarded, names: baseNames, schedules: baseSchedules)
        let overridden = Set(state.overlay.overriddenKeys)
        let notes = Loosening.changes(from: before, to: after).filter { overridden.contains($0.key) }.map {
            "\($0.key) changed in the config file, but `lockr \(Self.command(changing: $0.key))` set it and "
                + "stays in force; `lockr settings reset` goes back to the file"
        }
        settle(source: Self.configuration, at: now)
        return notes
    }

    /// The command whose changes to the setting `key` stay on top of the configuration file.
    private static func command(changing key: String) -> String {
        switch key {
        case Loosening.guardKey: "guard"
        case Loosening.scheduleKey: "schedule"
        case let key where Loosening.gateKeys.contains(key): "config import"
        default: "mode"
        }
    }

    /// Logs that a device of this person stopped asking lockr while still on the network (`off`),
    /// or asks again.
    public mutating func noteProtection(off: Bool, detail: String, at now: Instant) {
        log(off ? .protectionOff : .protectionBack, nil, detail, at: max(now, state.lastSeen))
    }

    /// Logs a jump of the wall clock that policy time did not follow.
    public mutating func noteClockJump(by jump: Duration, at now: Instant) {
        let direction = jump < .zero ? "back" : "forward"
        let size = jump < .zero ? .zero - jump : jump
        log(.clockJump, nil, "wall clock jumped \(direction) by \(size.spoken); policy time kept its own pace", at: now)
    }

    /// Logs that a demo's `--start-at` moved policy time on from `last`, the last time the state saw.
    public mutating func notePolicyTimeMoved(from last: Instant, at now: Instant) {
        log(
            .clockJump, nil, "policy time moved forward by \((now - last).spoken) (--start-at, a demo's clock)", at: now
        )
    }

    /// Moves time on without a query: starts a new day, drops ended windows and logs apps that lock
    /// or open. Call it about once a second.
    public mutating func tick(at now: Instant) {
        let now = advance(to: now)
        state.windows.dropEnded(at: now)
        holds.forgetStale(at: now)
        endProfiles(at: now)
        refreshRestrictions(at: now)
        noteTransitions(at: now)
    }

    /// Where a pending change came from when the configuration asked for it: the config file and
    /// `lockr serve`'s flags (`--guard`), which a restart without them takes away.
    static let configuration = "configuration (config file and serve flags)"
    /// What an older lockr called it, in pending changes it saved.
    static let configFileBefore = "config file"

    // MARK: - Reading

    /// Events since the last call, oldest first.
    public mutating func drainEvents() -> [PolicyEvent] { journal.drain() }

    /// Days that ended since the last call, with their final usage.
    public mutating func drainClosedDays() -> [DayRecord] {
        defer { closedDays.removeAll() }
        return closedDays
    }

    /// The state to persist, with usage as of `now`.
    public func snapshot(at now: Instant) -> PolicyState {
        var snapshot = state
        snapshot.lastSeen = max(now, state.lastSeen)
        (snapshot.today.used, snapshot.today.charged) = state.metering.totals(at: snapshot.lastSeen)
        snapshot.today.budgets = budgets
        return snapshot
    }

    /// The apps that are blocked at `now`, guarded ones in configuration order and then those only
    /// a schedule or profile blocks: the set other blockers must enforce (an app that is open, or
    /// neither guarded nor restricted, is never in it).
    public func blockedApps(at now: Instant) -> [String] {
        let now = max(now, state.lastSeen)
        return (guarded + restrictedUnguardedApps(at: now)).filter { !access($0, at: now).isOpen }
    }

    /// Where each guarded app stands at `now`.
    public func status(at now: Instant) -> PolicyStatus {
        let now = max(now, state.lastSeen)
        let today = state.today
        let appStatuses = (guarded + restrictedUnguardedApps(at: now)).map { app in
            let access = access(app, at: now)
            let window = state.windows.longest(covering: app, at: now)
            let key = settings.time.budgetKey(for: app)
            let budget = budget(forKey: key)
            let used = state.metering.used(app, at: now)
            let charged = state.metering.charged(app, at: now)
            let budgetUsed = state.metering.charged(key, at: now)
            let nextReset = access.isOpen ? today.day.end : access.until ?? today.day.end
            let isTime = settings.mode == .time && guardedSet.contains(app)
            return AppStatus(
                id: app, name: apps[app] ?? app, access: access, reason: text.sentence(app, access, at: now),
                used: used, uncharged: max(.zero, used - charged), opens: today.sessions[app] ?? 0,
                budget: isTime ? budget : nil,
                left: isTime ? max(.zero, budget - budgetUsed) : nil, windowEnds: window?.ends, nextReset: nextReset,
                guarded: guardedSet.contains(app), restriction: restriction(of: app, at: now))
        }
        let (schedules, profiles) = restrictionStatus(at: now)
        return PolicyStatus(
            now: now, mode: settings.mode, day: today.day, budget: settings.time.budget,
            extraBudget: settings.time.perApp ? .zero : today.extraBudget[MeteringState.allApps] ?? .zero,
            perAppBudget: settings.time.perApp, window: settings.windowLength,
            snoozes: (today.snoozes, settings.snooze.perDay), extensions: (today.extensions, settings.extend.perDay),
            emergencies: (today.emergencies, settings.emergency.perDay), gateMisses: today.gateMisses,
            cooldownUntil: today.cooldownUntil.flatMap { $0 > now ? $0 : nil },
            totalUsed: state.metering.used(MeteringState.allApps, at: now),
            totalCharged: state.metering.charged(MeteringState.allApps, at: now), apps: appStatuses,
            pending: state.changes.pending, overridden: differingFromConfiguration, schedules: schedules, profiles: profiles)
    }

    // MARK: - Deciding

    /// Where `app` stands at `now`: a schedule or profile first (only the emergency window opens
    /// it then), then the longest window it is open in, then the mode.
    func access(_ app: String, at now: Instant) -> AppAccess {
        if let restriction = restriction(of: app, at: now) {
            return state.windows.emergencyEnd(for: app, at: now).map { .window(.emergency, until: $0) }
                ?? .restricted(restriction)
        }
        guard guardedSet.contains(app) else { return .free }
        if let window = state.windows.longest(covering: app, at: now) {
            return .window(window.kind, until: window.ends)
        }
        switch settings.mode {
        case .time:
            let key = settings.time.budgetKey(for: app)
            let budget = budget(forKey: key)
            let charged = state.metering.charged(key, at: now)
            return charged < budget
                ? .budgetLeft(charged: charged, budget: budget, until: now + (budget - charged))
                : .budgetSpent(charged: charged, budget: budget)
        case .hourly, .extreme:
            if settings.mode == .extreme, let until = state.today.cooldownUntil, now < until {
                return .coolingDown(until: until, misses: state.today.gateMisses)
            }
            if let next = state.windows.hourResets(for: app, at: now) { return .hourUsed(next: next) }
            switch settings.mode {
            case .extreme:
                let typed = gateSteps == [.phrase] && settings.gate.sentenceInput(for: gateSteps) != .voice
                return .locked(typed ? .sentence : .gate, window: settings.extreme.window)
            case .hourly where settings.hourly.openOnFirstQuery:
                return .locked(.firstQuery, window: settings.hourly.window)
            default: return .locked(.unlock, window: settings.hourly.window)
            }
        }
    }

    /// Time mode: each budget as configured; none in the other modes.
    private var budgets: [String: Duration] { settings.mode == .time ? settings.time.budgets(guarded: guarded) : [:] }

    private func budget(forKey key: String) -> Duration {
        settings.time.budget(forKey: key, extra: state.today.extraBudget)
    }

    // MARK: - Time

    /// Clamps `now` to the latest time seen, and starts a new day when one has begun.
    @discardableResult
    mutating func advance(to now: Instant) -> Instant {
        let now = max(now, state.lastSeen)
        state.lastSeen = now
        guard now >= state.today.day.end else {
            applyDueChanges(at: now)
            return now
        }
        var finished = state.today
        (finished.used, finished.charged) = state.metering.totals(at: finished.day.end)
        finished.budgets = budgets
        closedDays.append(finished)
        let day = settings.calendar.day(containing: now)
        state.today = DayRecord(day: day)
        state.metering.startDay(at: day.start)
        log(.dayReset, nil, "new day \(day.key): budget and counters reset", at: now)
        applyDueChanges(at: now)
        return now
    }

    /// Logs each app that locked or opened since last looked at: the guarded ones, and those a
    /// schedule or profile blocks or blocked.
    mutating func noteTransitions(at now: Instant) {
        let others = Set(restrictedUnguardedApps(at: now)).union(wasOpen.keys.filter { !guardedSet.contains($0) })
        for app in guarded + others.sorted() { noteTransition(app, access(app, at: now), at: now) }
    }

    private mutating func noteTransition(_ app: String, _ access: AppAccess, at now: Instant) {
        let open = access.isOpen
        // An app neither guarded nor restricted is no longer watched once it is known to be open.
        if access == .free, wasOpen[app] == true {
            wasOpen[app] = nil
            return
        }
        guard wasOpen[app] != open else { return }
        wasOpen[app] = access == .free ? nil : open
        log(open ? .unlock : .lock, app, text.sentence(app, access, at: now), at: now)
    }

    private func targets(_ app: String?) throws(PolicyRefusal) -> [String] {
        guard let app else {
            guard !guarded.isEmpty else { throw .nothingToDo("no app is guarded") }
            return guarded
        }
        guard guardedSet.contains(app) else { throw .notGuarded(app) }
        return [app]
    }

    /// The id of the app `text` names (any letter case, or its display name).
    func appID(_ text: String) throws(PolicyRefusal) -> String {
        guard let id = AppNames.resolve(text, in: apps) else { throw AppNames.unknown(text, in: apps) }
        return id
    }

    mutating func log(_ type: EventType, _ app: String?, _ detail: String, at now: Instant) {
        journal.log(type, app, detail, at: now)
    }
}
