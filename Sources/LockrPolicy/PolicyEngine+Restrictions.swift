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
    var validFrom: Instant
    var validUntil: Instant
    var byApp: [String: Restriction]

    static let stale = RestrictionTable(
        validFrom: Instant(milliseconds: 0), validUntil: Instant(milliseconds: 0), byApp: [:])

    func holds(at now: Instant) -> Bool { validFrom <= now && now < validUntil }
}

/// Schedules and profiles. Both block chosen apps (ids, catalogue groups, or every guarded app)
/// whatever the mode, budget or windows say; only the emergency opens them. Adding a schedule
/// tightens; removing one, or editing it to cover less, loosens and waits like any loosening
/// change. A profile changes nothing until it is switched on, which applies at once; switching it
/// off (or editing or removing it while it is on) needs the household's PIN when one is set, and
/// never lets an app open more cheaply than the mode and schedules allow.
extension PolicyEngine {
    // MARK: Looking up

    /// What blocks `app` at `now` outright, if anything.
    func restriction(of app: String, at now: Instant) -> Restriction? {
        (restrictions.holds(at: now) ? restrictions : restrictionTable(at: now)).byApp[app]
    }

    /// Makes the table hold at `now`.
    mutating func refreshRestrictions(at now: Instant) {
        if !restrictions.holds(at: now) { restrictions = restrictionTable(at: now) }
    }

    /// What this person's policy enforces on their devices at `now` (for a device's move).
    public func enforcement(at now: Instant) -> Enforcement {
        let table = restrictions.holds(at: now) ? restrictions : restrictionTable(at: now)
        let profiled = table.byApp.filter { if case .profile = $0.value.source { true } else { false } }
        return Enforcement(protection: inForce, profileBlocks: Set(profiled.keys))
    }

    /// The apps schedules and profiles block at `now`, not counting the guarded ones, by id.
    func restrictedUnguardedApps(at now: Instant) -> [String] {
        let table = restrictions.holds(at: now) ? restrictions : restrictionTable(at: now)
        return table.byApp.keys.filter { !guardedSet.contains($0) }.sorted()
    }

    private func restrictionTable(at now: Instant) -> RestrictionTable {
        var byApp: [String: Restriction] = [:]
        func block(_ selection: [String], _ restriction: Restriction) {
            for app in AppSelection.apps(selection, apps: apps, groups: groups, guarded: guarded) {
                if let held = byApp[app], held.outlasts(restriction) { continue }
                byApp[app] = restriction
            }
        }
        let calendar = settings.calendar
        for schedule in schedules {
            guard let stretch = schedule.occurrence(containing: now, calendar: calendar) else { continue }
            block(schedule.block, Restriction(source: .schedule(schedule.name), until: stretch.end))
        }
        var validUntil = Instant(milliseconds: (now.milliseconds / 60_000 + 1) * 60_000)
        let defined = profiles
        for active in state.activeProfiles where active.until.map({ $0 > now }) ?? true {
            guard let profile = defined.first(where: { $0.name == active.name }) else { continue }
            block(profile.block, Restriction(source: .profile(profile.name), until: active.until))
            if let until = active.until { validUntil = min(validUntil, until) }
        }
        return RestrictionTable(validFrom: now, validUntil: validUntil, byApp: byApp)
    }

    // MARK: Schedules

    /// Adds a schedule, or replaces the one of that name: at once when it blocks at least what the
    /// old one did, else as a loosening change.
    public mutating func addSchedule(
        _ schedule: Schedule, phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        if let problem = schedule.problem { throw .invalidSettings("schedule \(schedule.name): \(problem)") }
        try checkSelection(schedule.block)
        guard desired.schedules?.first(where: { $0.name == schedule.name }) != schedule else {
            throw .nothingToDo("schedule \(schedule.name) is already \(schedule.timesText)")
        }
        return try request("lockr schedule add", phrase: phrase, pin: pin, at: now) { overlay throws(PolicyRefusal) in
            overlay.schedulesRemoved.removeAll { $0 == schedule.name }
            overlay.schedulesAdded.removeAll { $0.name == schedule.name }
            overlay.schedulesAdded.append(schedule)
        }
    }

    /// Removes a schedule: a loosening change.
    public mutating func removeSchedule(
        _ name: String, phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        guard desired.schedules?.contains(where: { $0.name == name }) == true else {
            if state.pending.contains(where: { $0.change.key == Loosening.scheduleKey && $0.change.element == name }) {
                throw .nothingToDo("schedule \(name) is already to be removed (`lockr pending list`)")
            }
            throw .notFound("no schedule \(name) (`lockr schedule list` shows them)")
        }
        let configured = baseSchedules.contains { $0.name == name }
        return try request("lockr schedule remove", phrase: phrase, pin: pin, at: now) {
            overlay throws(PolicyRefusal) in
            overlay.schedulesAdded.removeAll { $0.name == name }
            if configured, !overlay.schedulesRemoved.contains(name) {
                overlay.schedulesRemoved.append(name)
            }
        }
    }

    // MARK: Profiles

    /// The profiles defined: the configuration's, with those made at run time on top.
    var profiles: [Profile] {
        configuredProfiles.map { configured in state.profiles.first { $0.name == configured.name } ?? configured }
            + state.profiles.filter { made in !configuredProfiles.contains { $0.name == made.name } }
    }

    /// Defines a profile, or redefines one. While it is off this changes no answer; while it is on,
    /// blocking less needs the PIN (when one is set).
    @discardableResult
    public mutating func defineProfile(_ profile: Profile, pin: PinCheck = .none, at now: Instant) throws(PolicyRefusal)
        -> Profile
    {
        let now = advance(to: now)
        if let problem = profile.problem { throw .invalidSettings("profile \(profile.name): \(problem)") }
        try checkSelection(profile.block)
        let old = profiles.first { $0.name == profile.name }
        guard old != profile else { throw .nothingToDo("profile \(profile.name) already blocks \(profile.block.joined(separator: ", "))") }
        if let old, isActive(profile.name, at: now), !Set(profile.block).isSuperset(of: old.block), needsPin(pin) {
            throw .pinRequired
        }
        state.profiles.removeAll { $0.name == profile.name }
        state.profiles.append(profile)
        log(.profileChange, nil, "profile \(profile.name) blocks \(profile.block.joined(separator: ", "))", at: now)
        restrictionsChanged(at: now)
        return profile
    }

    /// Removes a profile made at run time (switching it off first, which needs the PIN when set).
    public mutating func removeProfile(_ name: String, pin: PinCheck = .none, at now: Instant) throws(PolicyRefusal)
        -> Profile
    {
        let now = advance(to: now)
        guard let profile = profiles.first(where: { $0.name == name }) else { throw unknownProfile(name) }
        guard state.profiles.contains(where: { $0.name == name }), !configuredProfiles.contains(where: { $0.name == name })
        else {
            throw .nothingToDo("profile \(name) is defined in the config file: remove it there")
        }
        if isActive(name, at: now) { _ = try deactivateProfile(name, pin: pin, at: now) }
        state.profiles.removeAll { $0.name == name }
        log(.profileChange, nil, "profile \(name) removed", at: now)
        return profile
    }

    /// Switches a profile on, until switched off or for `duration`; on already, a later end
    /// extends it.
    public mutating func activateProfile(_ name: String, for duration: Duration? = nil, at now: Instant)
        throws(PolicyRefusal) -> ActiveProfile
    {
        let now = advance(to: now)
        guard profiles.contains(where: { $0.name == name }) else { throw unknownProfile(name) }
        if let duration, duration <= .zero || duration > .seconds(7 * 86_400) {
            throw .invalidSettings("--for must be 1 min to 7 days")
        }
        let until = duration.map { now + $0 }
        if let index = state.activeProfiles.firstIndex(where: { $0.name == name }) {
            let current = state.activeProfiles[index]
            guard let ends = current.until, until.map({ $0 > ends }) ?? true else {
                throw .nothingToDo("profile \(name) is already on\(untilText(current.until))")
            }
            state.activeProfiles[index].until = until
        } else {
            state.activeProfiles.append(ActiveProfile(name: name, since: now, until: until))
        }
        log(.profileOn, nil, "profile \(name) on\(untilText(until))", at: now)
        restrictionsChanged(at: now)
        return state.activeProfiles.first { $0.name == name }!
    }

    /// Switches a profile off: what it blocked goes back to what the mode and schedules say.
    public mutating func deactivateProfile(_ name: String, pin: PinCheck = .none, at now: Instant)
        throws(PolicyRefusal) -> ActiveProfile
    {
        let now = advance(to: now)
        guard profiles.contains(where: { $0.name == name }) else { throw unknownProfile(name) }
        guard let active = state.activeProfiles.first(where: { $0.name == name }), isActive(name, at: now) else {
            throw .nothingToDo("profile \(name) is off")
        }
        if needsPin(pin) { throw .pinRequired }
        state.activeProfiles.removeAll { $0.name == name }
        log(.profileOff, nil, "profile \(name) off", at: now)
        restrictionsChanged(at: now)
        return active
    }

    /// Switches a profile on when it is off, off when it is on. Returns whether it is on now.
    public mutating func toggleProfile(
        _ name: String, for duration: Duration? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> Bool {
        if isActive(name, at: now) {
            _ = try deactivateProfile(name, pin: pin, at: now)
            return false
        }
        _ = try activateProfile(name, for: duration, at: now)
        return true
    }

    /// Switches off the profiles whose time is up.
    mutating func endProfiles(at now: Instant) {
        guard state.activeProfiles.contains(where: { $0.until.map { $0 <= now } ?? false }) else { return }
        for ended in state.activeProfiles where ended.until.map({ $0 <= now }) ?? false {
            log(.profileOff, nil, "profile \(ended.name) off: its time is up", at: ended.until!)
        }
        state.activeProfiles.removeAll { $0.until.map { $0 <= now } ?? false }
        restrictionsChanged(at: now)
    }

    func isActive(_ name: String, at now: Instant) -> Bool {
        state.activeProfiles.contains { $0.name == name && ($0.until.map { $0 > now } ?? true) }
    }

    /// Every schedule in force and every profile, as status shows them.
    public func restrictionStatus(at now: Instant) -> (schedules: [ScheduleStatus], profiles: [ProfileStatus]) {
        let calendar = settings.calendar
        return (
            schedules.map { ScheduleStatus(schedule: $0, activeUntil: $0.occurrence(containing: now, calendar: calendar)?.end) },
            profiles.map { profile in
                ProfileStatus(
                    profile: profile,
                    active: state.activeProfiles.first { $0.name == profile.name && ($0.until.map { $0 > now } ?? true) },
                    fromConfig: configuredProfiles.contains { $0.name == profile.name })
            }
        )
    }

    private mutating func restrictionsChanged(at now: Instant) {
        restrictions = .stale
        refreshRestrictions(at: now)
        noteTransitions(at: now)
    }

    private func untilText(_ until: Instant?) -> String {
        until.map { " until \(settings.calendar.clockText($0))" } ?? ""
    }

    private func unknownProfile(_ name: String) -> PolicyRefusal {
        let names = profiles.map(\.name)
        return .notFound(
            "no profile \(name)" + (names.isEmpty ? " (`lockr profile add` makes one)" : "; profiles: \(names.joined(separator: ", "))"))
    }

    private func checkSelection(_ block: [String]) throws(PolicyRefusal) {
        if let problem = AppSelection.problem(block, apps: apps, groups: groups) { throw .invalidSettings(problem) }
    }
}
