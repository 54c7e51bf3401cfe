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
            pending: state.changes.pending, overridden: differingFromConfiguration, schedules: schedules,
            profiles: profiles)
    }
}
