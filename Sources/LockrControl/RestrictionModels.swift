import LockrPolicy

// The JSON bodies of schedules and profiles (`/api/v1/schedules`, `/api/v1/profiles`).

/// A weekly range that blocks apps whatever the mode says.
public struct ScheduleBody: Codable, Sendable, Equatable {
    public let name: String
    /// "mon-fri", "sat,sun", "daily".
    public let days: String
    /// Local wall time, "22:00"; a `to` not after `from` is on the next day.
    public let from: String
    public let to: String
    /// App ids, catalogue groups, or `guarded`.
    public let block: [String]
    /// While it is in force: when its current stretch ends.
    public let activeUntil: TimeBody?
}

/// A named selection of apps blocked outright while it is on.
public struct ProfileBody: Codable, Sendable, Equatable {
    public let name: String
    public let block: [String]
    public let active: Bool
    /// When it switches itself off (`for`); nil while off or on until switched off.
    public let until: TimeBody?
    /// Defined in the config file (edit it there), or made through the CLI or API.
    public let fromConfig: Bool
}

/// What blocks an app outright: a schedule in force or a profile that is on.
public struct RestrictionBody: Codable, Sendable, Equatable {
    /// "schedule" or "profile".
    public let kind: String
    public let name: String
    /// When it ends; nil for a profile on until switched off.
    public let until: TimeBody?
}

/// `POST schedules`: adds a schedule, or replaces the one of that name.
public struct ScheduleRequest: Codable, Sendable, Equatable {
    public let name: String
    /// Default: daily.
    public let days: String?
    public let from: String
    public let to: String
    public let block: [String]
    /// Extreme mode: the sentence, when the change loosens.
    public let phrase: String?

    public init(name: String, days: String?, from: String, to: String, block: [String], phrase: String? = nil) {
        self.name = name
        self.days = days
        self.from = from
        self.to = to
        self.block = block
        self.phrase = phrase
    }
}

/// `GET schedules`, and what adding or removing one did.
public struct SchedulesResponse: Codable, Sendable, Equatable {
    /// Whose they are.
    public let person: String
    public let schedules: [ScheduleBody]
    public let change: ChangeBody?
}

/// `POST profiles`: defines a profile, or redefines the one of that name.
public struct ProfileRequest: Codable, Sendable, Equatable {
    public let name: String
    public let block: [String]
}

/// `POST profiles/{name}/activate|toggle`: on for this many minutes, else until switched off.
public struct ProfileSwitchRequest: Codable, Sendable, Equatable {
    public let forMinutes: Int?

    public init(forMinutes: Int?) { self.forMinutes = forMinutes }
}

public struct ProfilesResponse: Codable, Sendable, Equatable {
    /// Whose they are.
    public let person: String
    public let profiles: [ProfileBody]
}

extension ScheduleBody {
    init(_ status: ScheduleStatus, now: Instant, calendar: DayCalendar) {
        let schedule = status.schedule
        name = schedule.name
        days = schedule.days.description
        from = Schedule.clock(schedule.from)
        to = Schedule.clock(schedule.to)
        block = schedule.block
        activeUntil = status.activeUntil.map { TimeBody($0, now: now, calendar: calendar) }
    }
}

extension ProfileBody {
    init(_ status: ProfileStatus, now: Instant, calendar: DayCalendar) {
        name = status.profile.name
        block = status.profile.block
        active = status.active != nil
        until = status.active?.until.map { TimeBody($0, now: now, calendar: calendar, dated: true) }
        fromConfig = status.fromConfig
    }
}

extension RestrictionBody {
    init(_ restriction: Restriction, now: Instant, calendar: DayCalendar) {
        switch restriction.source {
        case .schedule(let name): (kind, self.name) = ("schedule", name)
        case .profile(let name): (kind, self.name) = ("profile", name)
        }
        until = restriction.until.map { TimeBody($0, now: now, calendar: calendar) }
    }
}
