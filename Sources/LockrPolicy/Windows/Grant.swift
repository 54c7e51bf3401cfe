/// What one of the day's allowances would grant, checked before the gate is asked for: the hour's
/// windows of `unlock`, a snooze, extra time, or the emergency bypass once its hold lasted. The
/// engine has every allowance go the same way: `DayAllowances.check`, the gate when `isGated`, and
/// `DayAllowances.grant`.
enum Grant: Sendable, Equatable {
    /// The hour's windows of `available`; `alreadyOpen`, the windows the other targets are open in.
    case hourWindows(app: String?, available: [String], alreadyOpen: [UnlockWindow])
    /// A snooze of `app` (every guarded app when nil), opening `spent`, the targets out of budget.
    case snooze(app: String?, spent: [String])
    /// Extra time for the budget `key`, asked for `app`.
    case extraTime(key: String, app: String?)
    /// The emergency bypass, opening `apps`; its hold was its gate.
    case emergency(apps: [String])

    /// The app the action named, for the gate (nil: every guarded app).
    var app: String? {
        switch self {
        case .hourWindows(let app, _, _), .snooze(let app, _), .extraTime(_, let app): app
        case .emergency: nil
        }
    }

    /// Whether the mode's gate comes first: not when nothing opens, nor for the emergency bypass.
    var isGated: Bool {
        switch self {
        case .hourWindows(_, let available, _): !available.isEmpty
        case .snooze, .extraTime: true
        case .emergency: false
        }
    }

    /// The apps it opens.
    var opens: [String] {
        switch self {
        case .hourWindows(_, let available, _): available
        case .snooze(_, let spent): spent
        case .extraTime: []
        case .emergency(let apps): apps
        }
    }
}

extension DayAllowances {
    /// What `action` (`unlock`, `snooze`, `extend` or `completeEmergency`) would grant `policy` at
    /// `now`, refused as the mode, today's counts, schedules and profiles have it. `held`: how long
    /// the emergency hold lasted (nil: no such hold).
    func check(
        _ action: PolicyAction, _ policy: PolicyReadout, held: Duration?, at now: Instant
    ) throws(PolicyRefusal) -> Grant {
        let text = AccessText(calendar: settings.calendar)
        let restriction = { (app: String) in policy.restriction(of: app, at: now) }
        switch action {
        case .unlock(let named):
            let (app, targets) = try policy.commitments.targets(named)
            let (available, alreadyOpen) = try hourWindows(
                for: targets, windows: policy.state.windows, text: text, at: now, restriction: restriction)
            return .hourWindows(app: app, available: available, alreadyOpen: alreadyOpen)
        case .snooze(let named):
            let (app, targets) = try policy.commitments.targets(named)
            let spent = try snoozeTargets(
                targets, today: policy.state.today, text: text, access: { policy.access($0, at: now) },
                restriction: restriction)
            return .snooze(app: app, spent: spent)
        case .extend(let named):
            let app = try policy.commitments.targets(named).app
            guard settings.mode == .time else { throw .notInThisMode("extend belongs to time mode") }
            return .extraTime(key: try extensionKey(for: app, today: policy.state.today), app: app)
        case .completeEmergency:
            try checkHold(held, today: policy.state.today)
            return .emergency(apps: policy.watchedApps(at: now))
        default:
            preconditionFailure("\(action.name) is no allowance")
        }
    }

    /// Grants `grant`, checked and its gate passed: counted in `today`, its window opened in
    /// `windows` and logged.
    func grant(
        _ grant: Grant, today: inout DayRecord, windows: inout UnlockWindows, journal: inout PolicyJournal,
        at now: Instant
    ) -> ActionOutcome {
        switch grant {
        case .hourWindows(_, let available, let alreadyOpen):
            let detail = GateRules(settings).steps.isEmpty ? "lockr unlock" : "gate passed"
            let opened = available.map {
                openHour(for: $0, detail: detail, today: &today, windows: &windows, journal: &journal, at: now)
            }
            return .unlocked(UnlockResult(opened: opened, alreadyOpen: alreadyOpen))
        case .snooze(let app, let spent):
            return .opened(snooze(app, spent: spent, today: &today, windows: &windows, journal: &journal, at: now))
        case .extraTime(let key, let app):
            return .extended(budget: extend(key, for: app, today: &today, journal: &journal, at: now))
        case .emergency:
            return .opened(emergency(today: &today, windows: &windows, journal: &journal, at: now))
        }
    }
}
