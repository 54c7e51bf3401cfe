/// Where each app stands for one person, what a query of its names is answered, and when that
/// changes: what schedules and profiles block
/// (worked out ahead of the DNS path and kept while it holds, to the minute or a profile's end),
/// each blocked app's reason worded once per lock, and whether each app was open when last looked
/// at, so that its locks and unlocks are logged once.
///
/// It keeps what follows from the rules, not the rules: the settings, schedules and apps come from
/// `Commitments`, the windows, metering and profiles from `PolicyState`, each passed in as they are
/// now. Whoever changes them says so (`forget`, `restrictionsChanged`) and has the changes logged.
struct AppStanding: Sendable {
    private var restrictions = RestrictionTable.stale
    private var wording = LockWording()
    private var transitions = LockTransitions()

    /// What a query of `app`'s names at `now` is answered, metering it at `time` unless that is
    /// nil (see `PolicyState.meter`). Neither guarded nor blocked by a schedule or profile, the app
    /// is none of the policy's; the hour's first query opens its window where the mode says so;
    /// an open app may be cached until its window ends, at most the maximum TTL.
    mutating func decide(
        _ app: String, queriedAt time: Instant?, _ commitments: Commitments, state: inout PolicyState,
        journal: inout PolicyJournal, at now: Instant
    ) -> Admission {
        refresh(commitments, state, at: now)
        let isGuarded = commitments.guardedSet.contains(app)
        guard isGuarded || isRestricted(app) else { return .notGuarded }
        var access = access(app, commitments, state, at: now)
        if case .locked(.firstQuery, _) = access {
            markOpen(app)
            _ = DayAllowances(settings: commitments.settings).openHour(
                for: app, detail: "first query of the hour", today: &state.today, windows: &state.windows,
                journal: &journal, at: now)
            access = self.access(app, commitments, state, at: now)
        }
        if access.isOpen, access != .free, isGuarded, let time {
            state.meter(app, queriedAt: time, now: now, settings: commitments.settings)
            if commitments.settings.mode == .time { access = self.access(app, commitments, state, at: now) }
        }
        let calendar = commitments.settings.calendar
        note(app, access, calendar: calendar, journal: &journal, at: now)
        if access == .free { return .notGuarded }
        guard access.isOpen, let until = access.until else {
            return .block(access, reason: reason(app, access, calendar: calendar, at: now))
        }
        let ttl = min(commitments.settings.maximumTTL, .seconds((until - now).secondsRoundedUp))
        return .allow(ttl: max(.seconds(1), ttl))
    }

    /// Where `app` stands at `now`: a schedule or profile first (only the emergency window opens
    /// it then), then the longest window it is open in, then the mode.
    func access(_ app: String, _ commitments: Commitments, _ state: PolicyState, at now: Instant) -> AppAccess {
        if let restriction = restriction(of: app, commitments, state, at: now) {
            return state.windows.emergencyEnd(for: app, at: now).map { .window(.emergency, until: $0) }
                ?? .restricted(restriction)
        }
        guard commitments.guardedSet.contains(app) else { return .free }
        return ModeRules(settings: commitments.settings).access(
            app, windows: state.windows, metering: state.metering, today: state.today, at: now)
    }

    /// What blocks `app` at `now` outright, if anything.
    func restriction(
        of app: String, _ commitments: Commitments, _ state: PolicyState, at now: Instant
    ) -> Restriction? {
        table(commitments, state, at: now).byApp[app]
    }

    /// Whether a schedule or profile blocks `app` by the table worked out last (`refresh` first).
    private func isRestricted(_ app: String) -> Bool { restrictions.byApp[app] != nil }

    /// The guarded apps, in configuration order, and then the apps schedules and profiles block at
    /// `now` that are not guarded: every app that may be blocked.
    func watchedApps(_ commitments: Commitments, _ state: PolicyState, at now: Instant) -> [String] {
        commitments.guarded + table(commitments, state, at: now).unguardedApps(commitments.guardedSet)
    }

    /// The apps a profile blocks at `now`.
    func profileBlocks(_ commitments: Commitments, _ state: PolicyState, at now: Instant) -> Set<String> {
        table(commitments, state, at: now).profileBlocks
    }

    /// Why `app` is blocked, worded once per lock.
    private mutating func reason(_ app: String, _ access: AppAccess, calendar: DayCalendar, at now: Instant) -> String {
        wording.sentence(app, access, at: now, text: AccessText(calendar: calendar))
    }

    /// Makes the table hold at `now`.
    mutating func refresh(_ commitments: Commitments, _ state: PolicyState, at now: Instant) {
        if !restrictions.holds(at: now) { restrictions = table(commitments, state, at: now) }
    }

    /// Takes that the protection in force changed: reasons are worded and restrictions worked out
    /// afresh.
    mutating func forget() {
        wording.forget()
        restrictions = .stale
    }

    /// Takes that schedules or profiles changed.
    mutating func restrictionsChanged() { restrictions = .stale }

    /// Takes `app` as open now, so that opening it is logged by whoever opened it, not as a change.
    mutating func markOpen(_ app: String) { transitions.mark(app) }

    /// Takes where every app stands at `now` as it is, logging nothing (on start).
    mutating func markAll(_ commitments: Commitments, _ state: PolicyState, at now: Instant) {
        for app in watchedApps(commitments, state, at: now) {
            transitions.mark(app, open: access(app, commitments, state, at: now).isOpen)
        }
    }

    /// Logs `app` locking or opening when `access` differs from where it stood when last looked at.
    private mutating func note(
        _ app: String, _ access: AppAccess, calendar: DayCalendar, journal: inout PolicyJournal, at now: Instant
    ) {
        guard transitions.changed(app, to: access) else { return }
        let sentence = AccessText(calendar: calendar).sentence(app, access, at: now)
        journal.log(access.isOpen ? .unlock : .lock, app, sentence, at: now)
    }

    /// Logs each app that locked or opened since last looked at: the guarded ones, and those a
    /// schedule or profile blocks or blocked.
    mutating func noteAll(
        _ commitments: Commitments, _ state: PolicyState, journal: inout PolicyJournal, at now: Instant
    ) {
        let unguarded = table(commitments, state, at: now).unguardedApps(commitments.guardedSet)
        let others = Set(unguarded).union(transitions.watched.filter { !commitments.guardedSet.contains($0) })
        for app in commitments.guarded + others.sorted() {
            note(
                app, access(app, commitments, state, at: now), calendar: commitments.settings.calendar,
                journal: &journal, at: now)
        }
    }

    /// What schedules and profiles block at `now`: the table worked out ahead while it holds.
    private func table(_ commitments: Commitments, _ state: PolicyState, at now: Instant) -> RestrictionTable {
        guard !restrictions.holds(at: now) else { return restrictions }
        let configuration = commitments.configuration
        return RestrictionTable(
            at: now, schedules: commitments.schedules,
            profiles: state.profiles.defined(configured: configuration.profiles), active: state.profiles.active,
            calendar: commitments.settings.calendar
        ) { [apps = commitments.apps, groups = configuration.groups, guarded = commitments.guarded] in
            AppSelection.apps($0, apps: apps, groups: groups, guarded: guarded)
        }
    }
}
