/// Metering that must survive a restart exactly: each app's memory of recent queries and every
/// bucket's counted slices, including the one that accrues now.
public struct MeteringState: Sendable, Equatable, Codable {
    /// Per app id.
    public var meters: [String: UsageMeter] = [:]
    /// Use per app id, and under "*" all guarded apps together: every window counts.
    public var used: [String: UsageBucket] = [:]
    /// What budgets consume, per app id and under "*": use outside snooze and emergency windows.
    public var charged: [String: UsageBucket] = [:]

    public init() {}

    /// Buckets holding `used` and `charged`, for a store an older lockr wrote without this state.
    public init(used: [String: Duration], charged: [String: Duration], slice: Duration) {
        self.used = used.mapValues { UsageBucket(slice: slice, used: $0) }
        self.charged = charged.mapValues { UsageBucket(slice: slice, used: $0) }
    }
}

/// The meter: each query of a guarded app turned into counted slices of use, charged to budgets
/// outside snooze and emergency windows. Works with the metering settings in force and is told
/// which times are grace; it knows neither modes nor windows.
extension MeteringState {
    /// The shared budget's key in `DayRecord.used`, `used`, `charged` and `extraBudget`.
    public static let allApps = "*"

    /// Records a query of `app` at `now`; the slices that now count are added to its use and the
    /// total, and, unless `isGrace` says their start is in a snooze or emergency window, charged to
    /// its budget and the shared one. Returns whether the query began a new session of the app
    /// (more than `MeteringSettings.sessionGap` after its last counted use).
    mutating func record(
        _ app: String, at now: Instant, settings: MeteringSettings, relookupGap: Duration,
        isGrace: (Instant) -> Bool
    ) -> Bool {
        let counted = meters[app, default: UsageMeter()].record(at: now, settings: settings, relookupGap: relookupGap)
        guard let first = counted.min() else { return false }
        let slice = settings.slice.milliseconds
        let horizon = settings.horizon(relookupGap: relookupGap)
        let empty = UsageBucket(slice: settings.slice)
        let sessionGap = MeteringSettings.sessionGap.milliseconds / slice
        let newSession = used[app]?.newestSlice.map { first - $0 > sessionGap } ?? true
        for counted in counted {
            used[app, default: empty].charge(slice: counted, horizon: horizon)
            used[Self.allApps, default: empty].charge(slice: counted, horizon: horizon)
            if isGrace(Instant(milliseconds: counted * slice)) { continue }
            charged[app, default: empty].charge(slice: counted, horizon: horizon)
            charged[Self.allApps, default: empty].charge(slice: counted, horizon: horizon)
        }
        return newSession
    }

    /// The earliest time a query of `app` may be metered at: never before its newest slice with a
    /// query, nor before the day's start.
    func earliestRecordable(_ app: String, dayStart: Instant, slice: Duration) -> Instant {
        max(dayStart, meters[app]?.latestSliceStart(slice: slice) ?? dayStart)
    }

    /// Time counted for `key` (an app's id or `allApps`) by `now`, every window included.
    func used(_ key: String, at now: Instant) -> Duration { used[key]?.used(at: now) ?? .zero }

    /// What of `used(_:at:)` budgets were charged.
    func charged(_ key: String, at now: Instant) -> Duration { charged[key]?.used(at: now) ?? .zero }

    /// Every key's use and charge by `now`, as a day's record keeps them.
    func totals(at now: Instant) -> (used: [String: Duration], charged: [String: Duration]) {
        (used.mapValues { $0.used(at: now) }, charged.mapValues { $0.used(at: now) })
    }

    /// Starts a new day at `dayStart`: nothing before it counts any more.
    mutating func startDay(at dayStart: Instant) {
        for key in used.keys { used[key]!.startDay(at: dayStart) }
        for key in charged.keys { charged[key]!.startDay(at: dayStart) }
    }

    /// Carries each app's stretch of sustained use over a stop of lockr (see `UsageMeter.resume`).
    mutating func resume(lastSaved: Instant, at now: Instant, relookupGap: Duration) {
        for app in meters.keys { meters[app]!.resume(lastSaved: lastSaved, at: now, relookupGap: relookupGap) }
    }

    /// Counts what was metered afresh when the slice length changed (a reload, or a config edited
    /// while lockr was down): buckets keep their totals, meters start over.
    mutating func restartIfTheSliceChanged(to slice: Duration, at now: Instant) {
        let length = slice.milliseconds
        guard
            (used.values.map(\.sliceMilliseconds) + charged.values.map(\.sliceMilliseconds)).contains(where: {
                $0 != length
            })
        else { return }
        let (used, charged) = totals(at: now)
        self = MeteringState(used: used, charged: charged, slice: slice)
    }
}

/// Time mode's budgets: one shared by every guarded app, or one per app.
extension TimeModeSettings {
    /// The budget `app`'s use is charged to: its own, or the shared one.
    func budgetKey(for app: String) -> String { perApp ? app : MeteringState.allApps }

    /// The budget under `key` today, with what `extend` added.
    func budget(forKey key: String, extra: [String: Duration]) -> Duration { budget + (extra[key] ?? .zero) }

    /// Each budget as configured: the shared one, or each of `guarded`'s when budgets are per app.
    func budgets(guarded: [String]) -> [String: Duration] {
        let keys = perApp ? guarded : [MeteringState.allApps]
        return Dictionary(uniqueKeysWithValues: keys.map { ($0, budget) })
    }
}

extension PolicyState {
    /// Meters a query of `app` made at `time`, taken at `now`: never before the app's last metered
    /// query or today's start, nor after `now` (see `MeteringState.record`). Use in snooze and
    /// emergency windows is not charged; a new stretch of use counts as a session of today.
    mutating func meter(_ app: String, queriedAt time: Instant, now: Instant, settings: PolicySettings) {
        let metering = settings.time.metering
        let earliest = self.metering.earliestRecordable(app, dayStart: today.day.start, slice: metering.slice)
        let windows = windows
        let newSession = self.metering.record(
            app, at: min(now, max(time, earliest)), settings: metering, relookupGap: settings.relookupGap
        ) { windows.isGrace(app, at: $0) }
        if newSession { today.sessions[app, default: 0] += 1 }
    }
}
