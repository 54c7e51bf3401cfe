/// The answer for one query of a guarded app's name.
public enum Admission: Sendable, Equatable {
    /// The name belongs to an app that is not guarded: resolve it as any other.
    case notGuarded
    /// Resolve it; clients may cache the answer for at most `ttl`.
    case allow(ttl: Duration)
    /// Sinkhole it: why, and the sentence that says so.
    case block(AppAccess, reason: String)
}

/// The policy: modes, metering, windows and gates, as a value that changes only through its methods:
/// `admit` and `observe` for queries, `tick` for time, `apply` for every action a person or the
/// household asks for (`PolicyAction`, the one way in for the API, the CLI and the web pages), and
/// the daemon's own steps (a reload's `rebase`, a device's hand-over, the PIN's entry); it is read
/// through `readout` (`PolicyReadout`: status, blocked apps, the state to save). Its rules
/// live in parts of one job each (`Commitments`, `ModeRules`, `DayAllowances`, `GateState`,
/// `Profiles`, `MeteringState`, ...; docs/architecture.md lists them); the engine keeps their
/// order: policy time first, the PIN and the gate before a part grants, and what follows a change.
///
/// No I/O and no clock: every method takes the current policy time, which must not go backwards
/// (an earlier time is treated as the latest one seen). The daemon keeps one engine behind a lock,
/// persists `readout.snapshot(at:)` and the events from `drainEvents()`, and restores it with
/// `init(settings:guarded:apps:state:now:)`.
public struct PolicyEngine: Sendable {
    /// The configuration, what is asked on top of it and what is in force (see `Commitments`).
    var commitments: Commitments
    /// Where each app stands, and what changed since last looked at.
    var standing = AppStanding()
    public internal(set) var state: PolicyState
    var journal = PolicyJournal()
    var closedDays: [DayRecord] = []
    var holds = EmergencyHolds()

    /// Restores an engine. `state` is what the store kept (nil on first start); `now` must be the
    /// current policy time.
    public init(
        settings base: PolicySettings, guarded baseGuarded: [String], apps: [String: String],
        names: NameRules = NameRules(), schedules: [Schedule] = [], profiles: [Profile] = [],
        groups: [String: String] = [:], state: PolicyState?, now: Instant
    ) {
        var state = state ?? PolicyState(today: DayRecord(day: base.calendar.day(containing: now)), lastSeen: now)
        commitments = Commitments(
            configuration: PolicyConfiguration(
                settings: base, apps: apps, names: names, guarded: baseGuarded, schedules: schedules,
                profiles: profiles, groups: groups),
            state: &state)
        self.state = state
        self.state.metering.restartIfTheSliceChanged(to: settings.time.metering.slice, at: state.lastSeen)
        self.state.metering.resume(lastSaved: state.lastSeen, at: now, relookupGap: settings.relookupGap)
        let now = advance(to: now)
        standing.markAll(commitments, self.state, at: now)
        commitments.settle(
            &self.state, source: Commitments.configurationSource, gated: commitments.gated, journal: &journal, at: now)
        inForceChanged(at: now)
    }

    /// The policy as it stands, to be read (see `PolicyReadout`).
    public var readout: PolicyReadout { PolicyReadout(commitments: commitments, standing: standing, state: state) }

    var settings: PolicySettings { commitments.settings }
    var apps: [String: String] { commitments.apps }
    var configuration: PolicyConfiguration { commitments.configuration }

    /// How reasons are worded, in the policy's time zone.
    var text: AccessText { AccessText(calendar: settings.calendar) }

    // MARK: - Queries

    /// Decides a query for `app`'s names at `now` and, unless `metering` is false (usage is metered
    /// from another blocker's query log), meters it.
    public mutating func admit(_ app: String, at now: Instant, metering: Bool = true) -> Admission {
        let admission = decide(app, queriedAt: metering ? now : nil, now: now)
        if case .block = admission { state.today.blocked[app, default: 0] += 1 }
        return admission
    }

    /// Takes a query that another blocker logged at `time` (from its query log) as if lockr had
    /// answered it at `now`: it is metered at its own time (never before the app's last metered
    /// query or today's start), and in hourly mode with open-on-first-query it opens the window.
    /// Returns what lockr would answer now.
    @discardableResult
    public mutating func observe(_ app: String, queriedAt time: Instant, now: Instant) -> Admission {
        decide(app, queriedAt: time, now: now)
    }

    /// Decides at `now`; meters a query at `time` unless it is nil (see `AppStanding.decide`).
    private mutating func decide(_ app: String, queriedAt time: Instant?, now: Instant) -> Admission {
        let now = advance(to: now)
        return standing.decide(app, queriedAt: time, commitments, state: &state, journal: &journal, at: now)
    }

    /// Takes new settings, guarded apps, known apps and app names from a reloaded configuration;
    /// changes made through the control API stay on top. What tightens applies at once, what loosens
    /// waits (see `PendingChange`). Returns a note for each changed setting the control API overrides.
    @discardableResult
    public mutating func rebase(
        settings newBase: PolicySettings, guarded newGuarded: [String], apps newApps: [String: String],
        names newNames: NameRules = NameRules(), schedules newSchedules: [Schedule] = [],
        profiles newProfiles: [Profile] = [],
        groups newGroups: [String: String] = [:], at now: Instant
    ) -> [String] {
        let now = advance(to: now)
        let new = PolicyConfiguration(
            settings: newBase, apps: newApps, names: newNames, guarded: [], schedules: newSchedules,
            profiles: newProfiles, groups: newGroups)
        let notes = commitments.rebase(
            new, guarded: newGuarded, &state, gated: commitments.gated, journal: &journal, at: now)
        inForceChanged(at: now)
        return notes
    }

    /// Logs what the daemon noticed about this person (see `PolicyNote`).
    public mutating func note(_ note: PolicyNote, at now: Instant) {
        let now = max(now, state.lastSeen)
        let entry = note.entry(at: now)
        log(entry.type, nil, entry.detail, at: now)
    }

    /// Moves time on without a query: starts a new day, drops ended windows and logs apps that lock
    /// or open. Call it about once a second.
    public mutating func tick(at now: Instant) {
        let now = advance(to: now)
        state.windows.dropEnded(at: now)
        holds.forgetStale(at: now)
        if state.profiles.endExpired(journal: &journal, at: now) { restrictionsChanged(at: now) }
        standing.refresh(commitments, state, at: now)
        noteTransitions(at: now)
    }

    // MARK: - Time

    /// Clamps `now` to the latest time seen, and starts a new day when one has begun.
    @discardableResult
    mutating func advance(to now: Instant) -> Instant {
        let now = max(now, state.lastSeen)
        state.lastSeen = now
        if let finished = state.closeDay(ifOverBy: now, calendar: settings.calendar, budgets: commitments.budgets) {
            closedDays.append(finished)
            log(.dayReset, nil, "new day \(state.today.day.key): budget and counters reset", at: now)
        }
        applyDueChanges(at: now)
        return now
    }

    /// Logs each app that locked or opened since last looked at (see `AppStanding.noteAll`).
    mutating func noteTransitions(at now: Instant) {
        standing.noteAll(commitments, state, journal: &journal, at: now)
    }

    /// Takes what schedules and profiles block now, and logs the apps that locked or opened by it.
    mutating func restrictionsChanged(at now: Instant) {
        standing.restrictionsChanged()
        noteTransitions(at: now)
    }

    /// Events since the last call, oldest first.
    public mutating func drainEvents() -> [PolicyEvent] { journal.drain() }

    /// Days that ended since the last call, with their final usage.
    public mutating func drainClosedDays() -> [DayRecord] {
        defer { closedDays.removeAll() }
        return closedDays
    }

    mutating func log(_ type: EventType, _ app: String?, _ detail: String, at now: Instant) {
        journal.log(type, app, detail, at: now)
    }
}
