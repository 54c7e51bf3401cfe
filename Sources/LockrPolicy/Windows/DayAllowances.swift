/// What a day allows besides the mode: the snoozes and the extra time of time mode, the emergency
/// bypass of every mode, and the hour's window of hourly and extreme mode. Each is counted in
/// today's record, opens its window in `UnlockWindows` and is logged in the journal handed in.
/// Checking comes before granting, so that the gate is asked for only when something can be
/// granted; the gate, and where each app stands, are the engine's.
struct DayAllowances {
    let settings: PolicySettings

    /// Refuses when today's snoozes are used.
    func checkSnooze(_ today: DayRecord) throws(PolicyRefusal) {
        guard today.snoozes < settings.snooze.perDay else {
            throw .limitReached("all \(settings.snooze.perDay) snoozes of today are used")
        }
    }

    /// Opens the snooze window for `app` (every guarded app when nil), which `spent`, the apps out
    /// of budget, count as opened.
    func snooze(
        _ app: String?, spent: [String], today: inout DayRecord, windows: inout UnlockWindows,
        journal: inout PolicyJournal, at now: Instant
    ) -> UnlockWindow {
        today.snoozes += 1
        for target in spent { today.opens[target, default: 0] += 1 }
        let window = UnlockWindow(app: app, kind: .snooze, opened: now, ends: now + settings.snooze.length)
        windows.open(window)
        let count = "\(today.snoozes)/\(settings.snooze.perDay) today"
        journal.log(.snooze, app, "open until \(settings.calendar.clockText(window.ends)) (\(count))", at: now)
        return window
    }

    /// The budget an extension for `app` adds to: `app`'s when budgets are per app (it must be
    /// named then), else the shared one. Refuses when today's extensions are used.
    func extensionKey(for app: String?, today: DayRecord) throws(PolicyRefusal) -> String {
        guard today.extensions < settings.extend.perDay else {
            throw .limitReached("today's extension is used (\(settings.extend.perDay) per day)")
        }
        guard settings.time.perApp else { return MeteringState.allApps }
        guard let app else { throw .nothingToDo("budgets are per app: name the app to extend") }
        return app
    }

    /// Adds the extra time to the budget `key` (for `app`, as logged); returns today's budget now.
    func extend(
        _ key: String, for app: String?, today: inout DayRecord, journal: inout PolicyJournal, at now: Instant
    ) -> Duration {
        today.extensions += 1
        today.extraBudget[key, default: .zero] += settings.extend.length
        let budget = settings.time.budget(forKey: key, extra: today.extraBudget)
        journal.log(.extend, app, "+\(settings.extend.length.spoken), budget today \(budget.spoken)", at: now)
        return budget
    }

    /// Refuses when today's emergency bypasses are used.
    func checkEmergency(_ today: DayRecord) throws(PolicyRefusal) {
        guard today.emergencies < settings.emergency.perDay else {
            throw .limitReached("all \(settings.emergency.perDay) emergency bypasses of today are used")
        }
    }

    /// Opens every guarded app for the emergency window.
    func emergency(
        today: inout DayRecord, windows: inout UnlockWindows, journal: inout PolicyJournal, at now: Instant
    ) -> UnlockWindow {
        today.emergencies += 1
        let window = UnlockWindow(app: nil, kind: .emergency, opened: now, ends: now + settings.emergency.length)
        windows.open(window)
        let count = "\(today.emergencies)/\(settings.emergency.perDay) today"
        journal.log(
            .emergency, nil, "all guarded apps open until \(settings.calendar.clockText(window.ends)) (\(count))",
            at: now)
        return window
    }

    /// Opens the hour's window for `app`: the mode's window length, and no other one for it before
    /// the next clock hour. `detail` says what opened it.
    func openHour(
        for app: String, detail: String, today: inout DayRecord, windows: inout UnlockWindows,
        journal: inout PolicyJournal, at now: Instant
    ) -> UnlockWindow {
        let window = UnlockWindow(
            app: app, kind: .hourly, opened: now, ends: now + settings.windowLength,
            hourResets: settings.calendar.clockHour(containing: now).end)
        windows.open(window)
        today.opens[app, default: 0] += 1
        journal.log(.unlock, app, "\(detail): open until \(settings.calendar.clockText(window.ends))", at: now)
        return window
    }

    // MARK: Checking

    /// Hourly and extreme mode: the apps of `targets` whose hour's window can open now, and the
    /// windows those open already are in. Refused in time mode, when schedules or profiles
    /// (`restriction`) block every one of them, or when every closed one used its hour's window.
    func hourWindows(
        for targets: [String], windows: UnlockWindows, text: AccessText, at now: Instant,
        restriction: (String) -> Restriction?
    ) throws(PolicyRefusal) -> (available: [String], alreadyOpen: [UnlockWindow]) {
        guard settings.mode != .time else {
            throw .notInThisMode(
                "time mode: guarded apps are open while today's budget lasts; `lockr snooze` or `lockr extend` give more"
            )
        }
        try checkNotRestricted(targets, text: text, restriction: restriction)
        let free = targets.filter { restriction($0) == nil }
        let alreadyOpen = free.compactMap { windows.newest(covering: $0, at: now) }
        let closed = free.filter { windows.newest(covering: $0, at: now) == nil }
        let available = closed.filter { windows.hourResets(for: $0, at: now) == nil }
        if available.isEmpty, alreadyOpen.isEmpty, let first = closed.first {
            throw .windowUsed(app: first, nextAt: settings.calendar.clockText(windows.hourResets(for: first, at: now)!))
        }
        return (available, alreadyOpen)
    }

    /// Time mode: the apps of `targets` out of budget (by `access`), which a snooze opens. Refused
    /// in the other modes, when schedules or profiles block every target, when today's snoozes are
    /// used, or when none is out of budget.
    func snoozeTargets(
        _ targets: [String], today: DayRecord, text: AccessText, access: (String) -> AppAccess,
        restriction: (String) -> Restriction?
    ) throws(PolicyRefusal) -> [String] {
        guard settings.mode == .time else { throw .notInThisMode("snooze belongs to time mode") }
        try checkNotRestricted(targets, text: text, restriction: restriction)
        try checkSnooze(today)
        let spent = targets.filter { target in
            if case .budgetSpent = access(target) { return true }
            return false
        }
        guard !spent.isEmpty else { throw .nothingToDo("nothing to snooze: no guarded app is out of budget") }
        return spent
    }

    /// Whether an emergency hold that lasted `held` (nil: no such hold) may grant the bypass.
    func checkHold(_ held: Duration?, today: DayRecord) throws(PolicyRefusal) {
        guard let held else { throw .holdIncomplete("no such emergency hold; start a new one") }
        guard held >= settings.emergencyHold else {
            // Whole seconds held, rounded down: 7.9 s is not yet 8.
            let whole = Duration.seconds(held.milliseconds / 1000)
            throw .holdIncomplete("let go after \(whole.spoken) of \(settings.emergencyHold.spoken): nothing granted")
        }
        try checkEmergency(today)
    }

    /// Refuses when a schedule or profile blocks every one of `targets`: only the emergency opens them.
    private func checkNotRestricted(
        _ targets: [String], text: AccessText, restriction: (String) -> Restriction?
    ) throws(PolicyRefusal) {
        let blocking = targets.compactMap(restriction)
        guard blocking.count == targets.count, let first = blocking.first else { return }
        throw .restricted(targets.count == 1 ? "\(targets[0]): \(text.text(first))" : text.text(first))
    }
}
