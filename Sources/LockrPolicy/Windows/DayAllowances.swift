/// What a day allows besides the mode: the snoozes and the extra time of time mode, the emergency
/// bypass of every mode, and the hour's window of hourly and extreme mode. Each is counted in
/// today's record, opens its window in `UnlockWindows` and is logged in the journal handed in.
/// Checking comes before granting, so that the gate is asked for only when something can be
/// granted; which apps an allowance opens, and the gate, are the engine's.
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
}
