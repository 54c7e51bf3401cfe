/// What the engine tells others: its events, the days that ended, the state to save, the apps to
/// block and where each app stands.
extension PolicyEngine {

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
        return watchedApps(at: now).filter { !access($0, at: now).isOpen }
    }

    /// Where each guarded app stands at `now`.
    public func status(at now: Instant) -> PolicyStatus { PolicyStatus(of: self, at: now) }
}
