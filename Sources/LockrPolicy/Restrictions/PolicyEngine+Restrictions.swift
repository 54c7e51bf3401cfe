/// Schedules and profiles. Both block chosen apps (ids, catalogue groups, or every guarded app)
/// whatever the mode, budget or windows say; only the emergency opens them. Adding a schedule
/// tightens; removing one, or editing it to cover less, loosens and waits like any loosening
/// change. A profile changes nothing until it is switched on, which applies at once; switching it
/// off (or editing or removing it while it is on) needs the household's PIN when one is set, and
/// never lets an app open more cheaply than the mode and schedules allow.
extension PolicyEngine {
    // MARK: Looking up

    /// What blocks `app` at `now` outright, if anything.
    func restriction(of app: String, at now: Instant) -> Restriction? { restrictionTable(at: now).byApp[app] }

    /// Makes the table hold at `now`.
    mutating func refreshRestrictions(at now: Instant) {
        if !restrictions.holds(at: now) { restrictions = restrictionTable(at: now) }
    }

    /// What this person's policy enforces on their devices at `now` (for a device's move).
    public func enforcement(at now: Instant) -> Enforcement {
        Enforcement(protection: inForce, profileBlocks: restrictionTable(at: now).profileBlocks)
    }

    /// The apps schedules and profiles block at `now`, not counting the guarded ones, by id.
    func restrictedUnguardedApps(at now: Instant) -> [String] { restrictionTable(at: now).unguardedApps(guardedSet) }

    /// What schedules and profiles block at `now`: the table worked out ahead while it holds.
    private func restrictionTable(at now: Instant) -> RestrictionTable {
        guard !restrictions.holds(at: now) else { return restrictions }
        return RestrictionTable(
            at: now, schedules: commitments.schedules, profiles: profiles, active: state.profiles.active,
            calendar: settings.calendar
        ) { [apps, groups = configuration.groups, guarded] in
            AppSelection.apps($0, apps: apps, groups: groups, guarded: guarded)
        }
    }

    // MARK: Profiles

    /// The profiles defined: the configuration's, with those made at run time on top.
    var profiles: [Profile] { state.profiles.defined(configured: configuration.profiles) }

    /// Switches off the profiles whose time is up.
    mutating func endProfiles(at now: Instant) {
        if state.profiles.endExpired(journal: &journal, at: now) { restrictionsChanged(at: now) }
    }

    /// Takes what schedules and profiles block now, and logs the apps that locked or opened by it.
    mutating func restrictionsChanged(at now: Instant) {
        restrictions = .stale
        refreshRestrictions(at: now)
        noteTransitions(at: now)
    }
}
