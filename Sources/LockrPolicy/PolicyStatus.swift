/// Where one guarded app stands.
public struct AppStatus: Sendable {
    public let id: String
    public let name: String
    /// Whether its names resolve right now.
    public let open: Bool
    /// A sentence: why it is open or blocked.
    public let reason: String
    /// Metered use today.
    public let used: Duration
    /// Time mode: the budget this app draws on (its own or the shared one) and what is left of it.
    public let budget: Duration?
    public let left: Duration?
    /// The end of the window it is open in, if any.
    public let windowEnds: Instant?
    /// When a lock that is not the day's ends: the next clock hour for a used hourly window, the end
    /// of a cooldown; otherwise the end of the day.
    public let nextReset: Instant
}

/// A snapshot of the policy for `lockr status`.
public struct PolicyStatus: Sendable {
    public let now: Instant
    public let mode: Mode
    public let day: PolicyDay
    public let budget: Duration
    public let perAppBudget: Bool
    public let window: Duration
    public let snoozes: (used: Int, perDay: Int)
    public let extensions: (used: Int, perDay: Int)
    public let emergencies: (used: Int, perDay: Int)
    public let phraseMisses: Int
    public let cooldownUntil: Instant?
    /// Time any guarded app was in use today.
    public let totalUsed: Duration
    public let apps: [AppStatus]
}
