import LockrPolicy

// The control API's statistics: each person's days and streaks.

/// `GET stats`: each person's days and streaks.
public struct StatsResponse: Codable, Sendable, Equatable {
    public let people: [PersonStatsBody]
}

/// One person's days, oldest first, and their streaks as of today.
public struct PersonStatsBody: Codable, Sendable, Equatable {
    public let person: String
    public let days: [DayStatsBody]
    public let streaks: StreaksBody
}

/// One day: use against the budget, each app, gates, allowances and queries.
public struct DayStatsBody: Codable, Sendable, Equatable {
    /// The local date the day starts on.
    public let day: String
    /// Time mode: the shared budget, with what extensions added (nil in other modes or with
    /// budgets per app, which `apps` carry).
    public let budgetSeconds: Int64?
    /// Use of all guarded apps together, and what of it the budget was charged.
    public let usedSeconds: Int64
    public let chargedSeconds: Int64
    public let apps: [AppDayBody]
    public let gates: [GateDayBody]
    public let snoozes: Int
    public let extensions: Int
    public let emergencies: Int
    /// No snooze, extension or emergency asked for more.
    public let heldLimits: Bool
    /// Queries answered per outcome (the query log's counts; empty when it is off).
    public let queries: [String: Int]
}

/// One app on one day.
public struct AppDayBody: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let usedSeconds: Int64
    /// Its own budget, when budgets are per app (with extensions).
    public let budgetSeconds: Int64?
    /// Times it was opened: use more than 5 minutes after the last.
    public let opens: Int
    /// Windows opened for it (unlocks, first queries of the hour, snoozes).
    public let windows: Int
    /// Queries of its names answered with the block answer.
    public let blocked: Int
}

/// Gates of one kind ("phrase", "voice", "chess hard") on one day.
public struct GateDayBody: Codable, Sendable, Equatable {
    public let kind: String
    public let passed: Int
    public let failed: Int
}

/// Days in a row: the run that reaches today, and the longest.
public struct RunBody: Codable, Sendable, Equatable {
    public let current: Int
    public let best: Int
}

/// Days whose limits held, and days without an emergency.
public struct StreaksBody: Codable, Sendable, Equatable {
    public let heldLimits: RunBody
    public let withoutEmergency: RunBody
}
