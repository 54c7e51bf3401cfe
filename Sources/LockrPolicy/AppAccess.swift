/// Where one app stands, and why, as a value: what the DNS answer, status, the event log and the
/// API's codes all come from. `AccessText` is the one place it becomes a sentence.
public enum AppAccess: Sendable, Equatable {
    /// Open in a window (the hour's, a snooze, the emergency) until `until`.
    case window(WindowKind, until: Instant)
    /// Time mode: open while the budget it draws on lasts, which is until `until` if used without a
    /// break.
    case budgetLeft(charged: Duration, budget: Duration, until: Instant)
    /// Not guarded, and no schedule or profile blocks it.
    case free
    /// Time mode: the budget it draws on is spent.
    case budgetSpent(charged: Duration, budget: Duration)
    /// Hourly and extreme modes: the hour's window was used; the next one may open at `next`.
    case hourUsed(next: Instant)
    /// Extreme mode: wrong sentences started a cooldown.
    case coolingDown(until: Instant, misses: Int)
    /// Hourly and extreme modes, between windows: `opening` opens a window of `window`.
    case locked(Opening, window: Duration)
    /// A schedule in force or a profile that is on blocks it; only the emergency opens it.
    case restricted(Restriction)

    /// What opens the hour's window of a locked app.
    public enum Opening: String, Codable, Sendable, Equatable, CaseIterable {
        /// Extreme mode: typing the sentence.
        case sentence
        /// Extreme mode whose gate asks more than typing the sentence (puzzles, or the sentence
        /// spoken): passing it.
        case gate
        /// Hourly mode with open-on-first-query: the hour's first query.
        case firstQuery = "first_query"
        /// Hourly mode: `lockr unlock APP`.
        case unlock
    }

    public var isOpen: Bool {
        switch self {
        case .window, .budgetLeft, .free: true
        case .budgetSpent, .hourUsed, .coolingDown, .locked, .restricted: false
        }
    }

    /// When it stops being open, or when being blocked ends for a reason other than the day's end
    /// (nil when neither is known: free, locked, a profile on until switched off).
    public var until: Instant? {
        switch self {
        case .window(_, let until), .budgetLeft(_, _, let until), .coolingDown(let until, _): until
        case .hourUsed(let next): next
        case .restricted(let restriction): restriction.until
        case .free, .budgetSpent, .locked: nil
        }
    }

    /// Its stable word for scripts, the API, the CLI and the pages.
    public var code: AccessCode {
        switch self {
        case .window: .window
        case .budgetLeft: .budgetLeft
        case .free: .free
        case .budgetSpent: .budgetSpent
        case .hourUsed: .hourUsed
        case .coolingDown: .cooldown
        case .locked: .locked
        case .restricted(let restriction):
            switch restriction.source {
            case .schedule: .schedule
            case .profile: .profile
            }
        }
    }
}

/// Where an app stands, as one stable word (the API's `code`): a new one breaks every `switch`
/// that misses it, in the daemon, the CLI and the pages alike.
public enum AccessCode: String, Codable, Sendable, CaseIterable {
    /// Open: a window (hourly, snooze, emergency).
    case window
    /// Open: time mode with budget left.
    case budgetLeft = "budget_left"
    /// Open: not guarded, or nothing limits it.
    case free
    /// Closed: the day's budget is spent.
    case budgetSpent = "budget_spent"
    /// Closed: this hour's window was used.
    case hourUsed = "hour_used"
    /// Closed: the gate's cooldown after wrong answers.
    case cooldown
    /// Closed until it is unlocked.
    case locked
    /// Closed by a schedule or a profile: only the emergency opens it.
    case schedule
    case profile
}

/// Turns the policy's typed reasons into the sentences people read, in the policy's time zone: the
/// one place they are worded (DNS extended errors, status, the event log and refusals all use it).
public struct AccessText: Sendable {
    public let calendar: DayCalendar

    public init(calendar: DayCalendar) {
        self.calendar = calendar
    }

    /// "tiktok: daily budget spent (5/5 min)".
    public func sentence(_ app: String, _ access: AppAccess, at now: Instant) -> String {
        "\(app): \(text(access, of: app, at: now))"
    }

    /// "daily budget spent (5/5 min)", "open until 14:10 (hourly window)", "bedtime until 07:00 (schedule; ...)".
    public func text(_ access: AppAccess, of app: String, at now: Instant) -> String {
        switch access {
        case .window(let kind, let until): "open until \(calendar.clockText(until)) (\(kind.rawValue) window)"
        case .budgetLeft(let charged, let budget, _):
            BudgetFigures(charged: charged, budget: budget).leftText
        case .free: "not guarded, and no schedule or profile blocks it"
        case .budgetSpent(let charged, let budget):
            "daily budget spent (\(BudgetFigures(charged: charged, budget: budget).text))"
        case .hourUsed(let next): "hourly window used, next at \(calendar.clockText(next))"
        case .coolingDown(let until, let misses): "cooldown \((until - now).spoken) after \(misses) wrong answers"
        case .locked(let opening, let window):
            switch opening {
            case .sentence: "locked; typing the phrase opens \(window.spoken)"
            case .gate: "locked; passing its gate opens \(window.spoken)"
            case .firstQuery: "locked; the hour's first query opens \(window.spoken)"
            case .unlock: "locked; `lockr unlock \(app)` opens \(window.spoken)"
            }
        case .restricted(let restriction): text(restriction)
        }
    }

    /// "bedtime until 07:00 (schedule; only the emergency opens it)", "profile work on (only the emergency opens it)".
    public func text(_ restriction: Restriction) -> String {
        switch restriction.source {
        case .schedule(let name):
            "\(name) until \(restriction.until.map(calendar.clockText) ?? "?") (schedule; only the emergency opens it)"
        case .profile(let name):
            "profile \(name) on" + (restriction.until.map { " until \(calendar.clockText($0))" } ?? "")
                + " (only the emergency opens it)"
        }
    }
}
