/// What `unlock` did.
public struct UnlockResult: Sendable, Equatable {
    /// Windows opened by this call.
    public let opened: [UnlockWindow]
    /// Apps that were open already, with the window they are open in.
    public let alreadyOpen: [UnlockWindow]
}
/// The ways an app opens besides its mode: the hour's window, snooze, extend and the emergency
/// bypass, each checked by the day's allowances (`DayAllowances`) against the mode, schedules and
/// profiles before the gate is asked for and it is granted.
extension PolicyEngine {
    var allowances: DayAllowances { DayAllowances(settings: settings) }

    /// Opens the hour's window for `app`, or for every guarded app when nil. Hourly and extreme modes
    /// only; extreme mode needs `phrase`.
    mutating func unlock(_ app: String?, phrase: String?, at now: Instant) throws(PolicyRefusal) -> UnlockResult {
        let now = advance(to: now)
        let (app, targets) = try commitments.targets(app)
        let (available, alreadyOpen) = try allowances.hourWindows(
            for: targets, windows: state.windows, text: text, at: now
        ) { standing.restriction(of: $0, commitments, state, at: now) }
        guard !available.isEmpty else { return UnlockResult(opened: [], alreadyOpen: alreadyOpen) }
        let detail = commitments.gated ? "gate passed" : "lockr unlock"
        try passGate(phrase, for: app, at: now)
        let opened = available.map { openHourlyWindow(for: $0, at: now, detail: detail) }
        return UnlockResult(opened: opened, alreadyOpen: alreadyOpen)
    }

    private mutating func openHourlyWindow(for app: String, at now: Instant, detail: String) -> UnlockWindow {
        standing.markOpen(app)
        return allowances.openHour(
            for: app, detail: detail, today: &state.today, windows: &state.windows, journal: &journal, at: now)
    }

    /// Time mode, once a budget is spent: a short grace for `app`, or every guarded app when nil.
    /// Time mode's gate, if it has one, must be passed (`phrase`: the sentence typed).
    mutating func snooze(_ app: String?, phrase: String? = nil, at now: Instant) throws(PolicyRefusal) -> UnlockWindow {
        let now = advance(to: now)
        let (app, targets) = try commitments.targets(app)
        let spent = try allowances.snoozeTargets(
            targets, today: state.today, text: text, access: { readout.access($0, at: now) },
            restriction: { standing.restriction(of: $0, commitments, state, at: now) })
        try passGate(phrase, for: app, at: now)
        for target in spent { standing.markOpen(target) }
        return allowances.snooze(
            app, spent: spent, today: &state.today, windows: &state.windows, journal: &journal, at: now)
    }

    /// Time mode: more budget for today, for the shared budget, or for `app` when budgets are per app.
    /// Time mode's gate, if it has one, must be passed. Returns the budget now in force.
    mutating func extend(_ app: String?, phrase: String? = nil, at now: Instant) throws(PolicyRefusal) -> Duration {
        let now = advance(to: now)
        let app = try commitments.targets(app).app
        guard settings.mode == .time else { throw .notInThisMode("extend belongs to time mode") }
        let key = try allowances.extensionKey(for: app, today: state.today)
        try passGate(phrase, for: app, at: now)
        return allowances.extend(key, for: app, today: &state.today, journal: &journal, at: now)
    }

    /// Ends a hold begun by `.beginEmergency` (letting go): if it lasted, every guarded app opens for
    /// the emergency window length; a hold let go too soon grants nothing and is over.
    mutating func completeEmergency(hold id: UInt64, at now: Instant) throws(PolicyRefusal) -> UnlockWindow {
        let now = advance(to: now)
        try allowances.checkHold(holds.end(id, at: now), today: state.today)
        for app in readout.watchedApps(at: now) { standing.markOpen(app) }
        return allowances.emergency(today: &state.today, windows: &state.windows, journal: &journal, at: now)
    }
}
