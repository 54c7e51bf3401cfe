/// What blocks an app outright, whatever the mode says: a schedule in force or a profile that is on.
public struct Restriction: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case schedule(String)
        case profile(String)
    }

    public let source: Source
    /// When it ends; nil for a profile that is on until switched off.
    public let until: Instant?

    /// Whether `self` holds at least as long as `other`.
    func outlasts(_ other: Restriction) -> Bool {
        guard let until else { return true }
        guard let otherUntil = other.until else { return false }
        return until >= otherUntil
    }
}

/// A schedule and, when it is in force, the end of its current stretch.
public struct ScheduleStatus: Sendable, Equatable {
    public let schedule: Schedule
    public let activeUntil: Instant?
}

/// A profile, whether it is on and until when, and whether the configuration file defines it.
public struct ProfileStatus: Sendable, Equatable {
    public let profile: Profile
    public let active: ActiveProfile?
    public let fromConfig: Bool
}

/// Which apps schedules and profiles block at some time, and until when that answer holds: it is
/// worked out at most once a minute (schedule boundaries fall on whole minutes) and whenever a
/// schedule or profile changes, so the DNS path only looks it up.
struct RestrictionTable: Sendable {
    let validFrom: Instant
    let validUntil: Instant
    let byApp: [String: Restriction]

    static let stale = RestrictionTable(
        validFrom: Instant(milliseconds: 0), validUntil: Instant(milliseconds: 0), byApp: [:])

    func holds(at now: Instant) -> Bool { validFrom <= now && now < validUntil }

    /// The apps it blocks that are not among `guarded`, by id.
    func unguardedApps(_ guarded: Set<String>) -> [String] { byApp.keys.filter { !guarded.contains($0) }.sorted() }

    /// The apps a profile blocks.
    var profileBlocks: Set<String> {
        Set(byApp.compactMap { if case .profile = $0.value.source { $0.key } else { nil } })
    }
}

extension RestrictionTable {
    /// What `schedules` in force and the `active` ones of `profiles` block at `now`; `apps` names
    /// the apps an entry of a schedule's or profile's list stands for. Where two block an app, the
    /// one that lasts longer is kept.
    init(
        at now: Instant, schedules: [Schedule], profiles: [Profile], active: [ActiveProfile], calendar: DayCalendar,
        apps: ([String]) -> [String]
    ) {
        var byApp: [String: Restriction] = [:]
        func block(_ selection: [String], _ restriction: Restriction) {
            for app in apps(selection) {
                if let held = byApp[app], held.outlasts(restriction) { continue }
                byApp[app] = restriction
            }
        }
        for schedule in schedules {
            guard let stretch = schedule.occurrence(containing: now, calendar: calendar) else { continue }
            block(schedule.block, Restriction(source: .schedule(schedule.name), until: stretch.end))
        }
        var validUntil = Instant(milliseconds: (now.milliseconds / 60_000 + 1) * 60_000)
        for active in active where active.until.map({ $0 > now }) ?? true {
            guard let profile = profiles.first(where: { $0.name == active.name }) else { continue }
            block(profile.block, Restriction(source: .profile(profile.name), until: active.until))
            if let until = active.until { validUntil = min(validUntil, until) }
        }
        self.init(validFrom: now, validUntil: validUntil, byApp: byApp)
    }
}
