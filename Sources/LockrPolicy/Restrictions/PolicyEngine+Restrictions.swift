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
        RestrictionTable(
            at: now, schedules: schedules, profiles: profiles, active: state.profiles.active,
            calendar: settings.calendar
        ) { [apps, groups = configuration.groups, guarded] in
            AppSelection.apps($0, apps: apps, groups: groups, guarded: guarded)
        }
    }

    // MARK: Schedules

    /// Adds a schedule, or replaces the one of that name: at once when it blocks at least what the
    /// old one did, else as a loosening change.
    mutating func addSchedule(
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
    mutating func removeSchedule(
        _ name: String, phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        guard desired.schedules?.contains(where: { $0.name == name }) == true else {
            if state.changes.pending.contains(where: {
                $0.change.key == Loosening.scheduleKey && $0.change.element == name
            }) {
                throw .nothingToDo("schedule \(name) is already to be removed (`lockr pending list`)")
            }
            throw .notFound("no schedule \(name) (`lockr schedule list` shows them)")
        }
        let configured = configuration.schedules.contains { $0.name == name }
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
    var profiles: [Profile] { state.profiles.defined(configured: configuration.profiles) }

    /// Defines a profile, or redefines one. While it is off this changes no answer; while it is on,
    /// blocking less needs the PIN (when one is set).
    @discardableResult
    mutating func defineProfile(
        _ profile: Profile, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> Profile {
        let now = advance(to: now)
        try state.profiles.define(
            profile, selectionProblem: configuration.selectionProblem(profile.block, known: apps),
            configured: configuration.profiles, pinMissing: needsPin(pin), journal: &journal, at: now)
        restrictionsChanged(at: now)
        return profile
    }

    /// Removes a profile made at run time (switching it off first, which needs the PIN when set).
    mutating func removeProfile(
        _ name: String, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal)
        -> Profile
    {
        let now = advance(to: now)
        let wasOn = isActive(name, at: now)
        let profile = try state.profiles.remove(
            name, configured: configuration.profiles, pinMissing: needsPin(pin), journal: &journal, at: now)
        if wasOn { restrictionsChanged(at: now) }
        return profile
    }

    /// Switches a profile on, until switched off or for `duration`; on already, a later end
    /// extends it.
    mutating func activateProfile(
        _ name: String, for duration: Duration? = nil, at now: Instant
    ) throws(PolicyRefusal) -> ActiveProfile {
        let now = advance(to: now)
        let active = try state.profiles.activate(
            name, for: duration, configured: configuration.profiles, calendar: settings.calendar, journal: &journal,
            at: now)
        restrictionsChanged(at: now)
        return active
    }

    /// Switches a profile off: what it blocked goes back to what the mode and schedules say.
    mutating func deactivateProfile(
        _ name: String, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ActiveProfile {
        let now = advance(to: now)
        let active = try state.profiles.deactivate(
            name, configured: configuration.profiles, pinMissing: needsPin(pin), journal: &journal, at: now)
        restrictionsChanged(at: now)
        return active
    }

    /// Switches a profile on when it is off, off when it is on. Returns whether it is on now.
    mutating func toggleProfile(
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
        if state.profiles.endExpired(journal: &journal, at: now) { restrictionsChanged(at: now) }
    }

    func isActive(_ name: String, at now: Instant) -> Bool { state.profiles.isActive(name, at: now) }

    /// Every schedule in force and every profile, as status shows them.
    public func restrictionStatus(at now: Instant) -> (schedules: [ScheduleStatus], profiles: [ProfileStatus]) {
        let calendar = settings.calendar
        return (
            schedules.map {
                ScheduleStatus(schedule: $0, activeUntil: $0.occurrence(containing: now, calendar: calendar)?.end)
            },
            state.profiles.status(configured: configuration.profiles, at: now)
        )
    }

    private mutating func restrictionsChanged(at now: Instant) {
        restrictions = .stale
        refreshRestrictions(at: now)
        noteTransitions(at: now)
    }

    private func checkSelection(_ block: [String]) throws(PolicyRefusal) {
        if let problem = configuration.selectionProblem(block, known: apps) { throw .invalidSettings(problem) }
    }
}
