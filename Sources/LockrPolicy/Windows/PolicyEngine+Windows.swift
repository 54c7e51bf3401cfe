/// What `unlock` did.
public struct UnlockResult: Sendable, Equatable {
    /// Windows opened by this call.
    public let opened: [UnlockWindow]
    /// Apps that were open already, with the window they are open in.
    public let alreadyOpen: [UnlockWindow]
}
/// The ways an app opens besides its mode: the hour's window, snooze, extend and the emergency
/// bypass, each checked against the mode, schedules and profiles, the day's allowances
/// (`DayAllowances`) and the gate before it is granted.
extension PolicyEngine {

    /// Opens the hour's window for `app`, or for every guarded app when nil. Hourly and extreme modes
    /// only; extreme mode needs `phrase`.
    mutating func unlock(
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

    var allowances: DayAllowances { DayAllowances(settings: settings) }

    @discardableResult
    mutating func openHourlyWindow(for app: String, at now: Instant, detail: String) -> UnlockWindow {
        transitions.mark(app)
        return allowances.openHour(
            for: app, detail: detail, today: &state.today, windows: &state.windows, journal: &journal, at: now)
    }

    /// Time mode, once a budget is spent: a short grace for `app`, or every guarded app when nil.
    /// Time mode's gate, if it has one, must be passed (`phrase`: the sentence typed).
    mutating func snooze(
        _ app: String?, phrase: String? = nil, at now: Instant
    ) throws(PolicyRefusal)
        -> UnlockWindow
    {
        let now = advance(to: now)
        let app = try app.map(appID)
        let targets = try targets(app)
        guard settings.mode == .time else { throw .notInThisMode("snooze belongs to time mode") }
        try checkNotRestricted(targets, at: now)
        try allowances.checkSnooze(state.today)
        let spent = targets.filter { target in
            if case .budgetSpent = access(target, at: now) { return true }
            return false
        }
        guard !spent.isEmpty else {
            throw .nothingToDo("nothing to snooze: no guarded app is out of budget")
        }
        try passGate(phrase, for: app, at: now)
        for target in spent { transitions.mark(target) }
        return allowances.snooze(
            app, spent: spent, today: &state.today, windows: &state.windows, journal: &journal, at: now)
    }

    /// Time mode: more budget for today, for the shared budget, or for `app` when budgets are per app.
    /// Time mode's gate, if it has one, must be passed. Returns the budget now in force.
    mutating func extend(
        _ app: String?, phrase: String? = nil, at now: Instant
    ) throws(PolicyRefusal)
        -> Duration
    {
        let now = advance(to: now)
        let app = try app.map(appID)
        _ = try targets(app)
        guard settings.mode == .time else { throw .notInThisMode("extend belongs to time mode") }
        let key = try allowances.extensionKey(for: app, today: state.today)
        try passGate(phrase, for: app, at: now)
        return allowances.extend(key, for: app, today: &state.today, journal: &journal, at: now)
    }

    /// Starts the emergency hold; `completeEmergency` must follow after `settings.emergencyHold`.
    mutating func beginEmergency(at now: Instant) throws(PolicyRefusal) -> UInt64 {
        let now = advance(to: now)
        try allowances.checkEmergency(state.today)
        return holds.begin(at: now)
    }

    /// Ends a hold begun by `beginEmergency` (letting go): if it lasted, every guarded app opens for
    /// the emergency window length; a hold let go too soon grants nothing and is over.
    mutating func completeEmergency(hold id: UInt64, at now: Instant) throws(PolicyRefusal) -> UnlockWindow {
        let now = advance(to: now)
        guard let held = holds.end(id, at: now) else {
            throw .holdIncomplete("no such emergency hold; start a new one")
        }
        guard held >= settings.emergencyHold else {
            // Whole seconds held, rounded down: 7.9 s is not yet 8.
            let whole = Duration.seconds(held.milliseconds / 1000)
            throw .holdIncomplete("let go after \(whole.spoken) of \(settings.emergencyHold.spoken): nothing granted")
        }
        try allowances.checkEmergency(state.today)
        for app in guarded + restrictedUnguardedApps(at: now) { transitions.mark(app) }
        return allowances.emergency(today: &state.today, windows: &state.windows, journal: &journal, at: now)
    }

    /// Refuses when a schedule or profile blocks every one of `targets`: only the emergency opens them.
    private func checkNotRestricted(_ targets: [String], at now: Instant) throws(PolicyRefusal) {
        let blocking = targets.compactMap { restriction(of: $0, at: now) }
        guard blocking.count == targets.count, let first = blocking.first else { return }
        throw .restricted(targets.count == 1 ? "\(targets[0]): \(text.text(first))" : text.text(first))
    }
}
