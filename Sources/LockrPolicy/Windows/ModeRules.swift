/// What the mode says of a guarded app that no schedule or profile blocks: open in the longest
/// window it is open in; else, in time mode, while its budget lasts; in hourly and extreme mode,
/// locked until its hour's window is opened (once a clock hour), and in extreme mode not during a
/// cooldown after wrong answers at the gate.
struct ModeRules {
    let settings: PolicySettings

    /// Where `app` stands at `now` by the mode, its windows, its metered use and today's record.
    func access(
        _ app: String, windows: UnlockWindows, metering: MeteringState, today: DayRecord, at now: Instant
    ) -> AppAccess {
        if let window = windows.longest(covering: app, at: now) {
            return .window(window.kind, until: window.ends)
        }
        switch settings.mode {
        case .time:
            let key = settings.time.budgetKey(for: app)
            let budget = settings.time.budget(forKey: key, extra: today.extraBudget)
            let charged = metering.charged(key, at: now)
            return charged < budget
                ? .budgetLeft(charged: charged, budget: budget, until: now + (budget - charged))
                : .budgetSpent(charged: charged, budget: budget)
        case .hourly, .extreme:
            if settings.mode == .extreme, let until = today.cooldownUntil, now < until {
                return .coolingDown(until: until, misses: today.gateMisses)
            }
            if let next = windows.hourResets(for: app, at: now) { return .hourUsed(next: next) }
            switch settings.mode {
            case .extreme:
                let steps = settings.gate.steps(for: .extreme)
                let typed = steps == [.phrase] && settings.gate.sentenceInput(for: steps) != .voice
                return .locked(typed ? .sentence : .gate, window: settings.extreme.window)
            case .hourly where settings.hourly.openOnFirstQuery:
                return .locked(.firstQuery, window: settings.hourly.window)
            default: return .locked(.unlock, window: settings.hourly.window)
            }
        }
    }
}
