import LockrPolicy

// The control API's status: each person's apps, their access and the day's figures.

/// A moment as the API shows it: ISO 8601 (UTC), local clock time in the policy's time zone (with
/// the date for a pending change's time, which may be days away), and seconds from the response's
/// `now` (policy time, which `--time-scale` speeds up).
public struct TimeBody: Codable, Sendable, Equatable {
    public let at: String
    public let local: String
    public let inSeconds: Int64
}

public struct CounterBody: Codable, Sendable, Equatable {
    public let used: Int
    public let perDay: Int
}

public struct AppBody: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let open: Bool
    /// Where it stands and why, as a code (for scripts) and a sentence (for people).
    public let state: AccessBody
    /// `state` as a sentence that names the app ("tiktok: daily budget spent (5/5 min)").
    public let reason: String
    /// Use today in every window.
    public let usedSeconds: Int64
    /// The part of `used_seconds` in snooze and emergency windows, charged to no budget.
    public let unchargedSeconds: Int64
    /// Time mode: the budget this app draws on today (its own or the shared one, extensions included)
    /// and what is left of it.
    public let budgetSeconds: Int64?
    public let leftSeconds: Int64?
    public let windowEnds: TimeBody?
    public let nextReset: TimeBody
    /// False for an app listed only because a schedule or profile blocks it.
    public let guarded: Bool
    /// The schedule or profile that blocks it outright, if any.
    public let restriction: RestrictionBody?
}

/// Why an app is open or blocked.
public struct AccessBody: Codable, Sendable, Equatable {
    /// `window`, `budget_left`, `free`, `budget_spent`, `hour_used`, `cooldown`, `locked`, `schedule`,
    /// `profile`.
    public let code: AccessCode
    /// The reason in words, without the app's name ("daily budget spent (5/5 min)").
    public let text: String
    /// When it closes (open) or when the block ends, if not at the day's end (blocked); absent when
    /// neither is known.
    public let until: TimeBody?
    /// `window`: the window's kind (`hourly`, `snooze`, `emergency`).
    public let window: String?
    /// `locked`: what opens it (`sentence`, `gate`, `first_query`, `unlock`).
    public let opensBy: AppAccess.Opening?
}

/// `GET status`: every person (or the one `?person=` names), and what the household shares.
public struct HouseholdStatusBody: Codable, Sendable, Equatable {
    /// The default person first.
    public let people: [StatusBody]
    /// Other blockers lockr drives (empty when lockr only answers DNS itself).
    public let backends: [BackendBody]
    /// Set when policy time and this machine's clock disagree by more than a minute, and why.
    public let clockWarning: String?
}

/// Where one person stands.
public struct StatusBody: Codable, Sendable, Equatable {
    public let person: String
    /// Policy time, ISO 8601, and as local date and time ("2026-11-21 14:02").
    public let now: String
    public let nowLocal: String
    /// The policy's time zone.
    public let timeZone: String
    public let mode: String
    public let summary: String
    public let day: String
    public let dayEnds: TimeBody
    /// The configured daily budget; `extra_minutes` were added to the shared one today.
    public let budgetMinutes: Int64
    public let extraMinutes: Int64
    public let perApp: Bool
    public let windowMinutes: Int64
    public let snoozes: CounterBody
    public let extensions: CounterBody
    public let emergencies: CounterBody
    public let gateMisses: Int
    public let cooldownEnds: TimeBody?
    public let totalUsedSeconds: Int64
    /// The part of `total_used_seconds` charged to the shared budget.
    public let totalChargedSeconds: Int64
    public let apps: [AppBody]
    /// Loosening changes waiting for their time.
    public let pending: [PendingBody]
    /// Settings changed through the CLI or API, which stay on top of the config file
    /// (`lockr settings reset` drops them).
    public let overridden: [String]
    /// The schedules in force, and every profile.
    public let schedules: [ScheduleBody]
    public let profiles: [ProfileBody]
    /// Their devices that asked lately.
    public let devices: [DeviceBody]
}
