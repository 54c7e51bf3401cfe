/// Where one guarded app stands.
public struct AppStatus: Sendable {
    public let id: String
    public let name: String
    /// Where it stands and why.
    public let access: AppAccess
    /// `access` as a sentence.
    public let reason: String
    /// Whether its names resolve right now.
    public var open: Bool { access.isOpen }
    /// Metered use today, in every window.
    public let used: Duration
    /// The part of `used` in snooze and emergency windows, which no budget is charged for.
    public let uncharged: Duration
    /// Times it was opened today: uses that began after a gap (`MeteringSettings.sessionGap`).
    public let opens: Int
    /// Time mode: the budget this app draws on (its own or the shared one) and what is left of it.
    public let budget: Duration?
    public let left: Duration?
    /// The end of the window it is open in, if any.
    public let windowEnds: Instant?
    /// When a lock that is not the day's ends: the next clock hour for a used hourly window, the end
    /// of a cooldown, the end of a schedule or profile; otherwise the end of the day.
    public let nextReset: Instant
    /// Whether it is guarded (one that is not is listed only while a schedule or profile blocks it).
    public let guarded: Bool
    /// The schedule or profile that blocks it outright, if any.
    public let restriction: Restriction?
}

/// A snapshot of the policy for `lockr status`.
public struct PolicyStatus: Sendable {
    public let now: Instant
    public let mode: Mode
    public let day: PolicyDay
    /// The configured daily budget.
    public let budget: Duration
    /// Added today to the shared budget by `extend` (per-app extensions show in each app's budget).
    public let extraBudget: Duration
    public let perAppBudget: Bool
    public let window: Duration
    public let snoozes: (used: Int, perDay: Int)
    public let extensions: (used: Int, perDay: Int)
    public let emergencies: (used: Int, perDay: Int)
    public let gateMisses: Int
    public let cooldownUntil: Instant?
    /// Time any guarded app was in use today.
    public let totalUsed: Duration
    /// The part of `totalUsed` charged to the shared budget (use outside snooze and emergency windows).
    public let totalCharged: Duration
    public let apps: [AppStatus]
    /// Loosening changes waiting for their time, oldest first.
    public let pending: [PendingChange]
    /// Settings the control API changed on top of the configuration file.
    public let overridden: [String]
    /// The schedules in force, and every profile.
    public let schedules: [ScheduleStatus]
    public let profiles: [ProfileStatus]
}

/// A budget and what was charged to it, in the whole minutes people are shown: used minutes round
/// down and the minutes left are the rest, so the two always add up to the budget ("4/5 min" with
/// 1 min left, never 4 used and 2 left).
public struct BudgetFigures: Sendable, Equatable {
    public let usedMinutes: Int64
    public let budgetMinutes: Int64
    public var leftMinutes: Int64 { max(0, budgetMinutes - usedMinutes) }

    public init(charged: Duration, budget: Duration) {
        usedMinutes = charged.milliseconds / 60_000
        budgetMinutes = budget.milliseconds / 60_000
    }

    /// "4/5 min".
    public var text: String { "\(usedMinutes)/\(budgetMinutes) min" }

    /// "1 min of today's budget left (4/5 min)".
    var leftText: String { "\(leftMinutes) min of today's budget left (\(text))" }
}

extension PolicyStatus {
    /// Where each app `policy` guards or restricts stands at `now`, with the day's allowances,
    /// the changes waiting, the schedules and the profiles.
    init(of policy: PolicyReadout, at now: Instant) {
        let (state, settings, commitments) = (policy.state, policy.settings, policy.commitments)
        let text = AccessText(calendar: settings.calendar)
        let now = max(now, state.lastSeen)
        let today = state.today
        let appStatuses = policy.watchedApps(at: now).map { app in
            let access = policy.access(app, at: now)
            let window = state.windows.longest(covering: app, at: now)
            let key = settings.time.budgetKey(for: app)
            let budget = settings.time.budget(forKey: key, extra: today.extraBudget)
            let used = state.metering.used(app, at: now)
            let charged = state.metering.charged(app, at: now)
            let budgetUsed = state.metering.charged(key, at: now)
            let nextReset = access.isOpen ? today.day.end : access.until ?? today.day.end
            let isTime = settings.mode == .time && commitments.guardedSet.contains(app)
            return AppStatus(
                id: app, name: commitments.apps[app] ?? app, access: access,
                reason: text.sentence(app, access, at: now),
                used: used, uncharged: max(.zero, used - charged), opens: today.sessions[app] ?? 0,
                budget: isTime ? budget : nil,
                left: isTime ? max(.zero, budget - budgetUsed) : nil, windowEnds: window?.ends, nextReset: nextReset,
                guarded: commitments.guardedSet.contains(app),
                restriction: policy.standing.restriction(of: app, commitments, state, at: now))
        }
        let calendar = settings.calendar
        self.init(
            now: now, mode: settings.mode, day: today.day, budget: settings.time.budget,
            extraBudget: settings.time.perApp ? .zero : today.extraBudget[MeteringState.allApps] ?? .zero,
            perAppBudget: settings.time.perApp, window: settings.windowLength,
            snoozes: (today.snoozes, settings.snooze.perDay), extensions: (today.extensions, settings.extend.perDay),
            emergencies: (today.emergencies, settings.emergency.perDay), gateMisses: today.gateMisses,
            cooldownUntil: today.cooldownUntil.flatMap { $0 > now ? $0 : nil },
            totalUsed: state.metering.used(MeteringState.allApps, at: now),
            totalCharged: state.metering.charged(MeteringState.allApps, at: now), apps: appStatuses,
            pending: state.changes.pending, overridden: commitments.differingFromConfiguration(state.overlay),
            schedules: commitments.schedules.map {
                ScheduleStatus(schedule: $0, activeUntil: $0.occurrence(containing: now, calendar: calendar)?.end)
            },
            profiles: state.profiles.status(configured: commitments.configuration.profiles, at: now))
    }
}
