/// A person's policy read without changing it: where each app stands, what is in force, the gate,
/// the state to save. `PolicyEngine.readout` makes one; the daemon's status, the control API, the
/// pages, the backends and the household read the policy through it, and only the engine changes it.
public struct PolicyReadout: Sendable {
    let commitments: Commitments
    let standing: AppStanding
    /// The person's state as it stands (`snapshot(at:)` is the one to save).
    public let state: PolicyState

    /// Settings in force: the configuration with the control API's changes applied.
    public var settings: PolicySettings { commitments.settings }
    /// Every app that may be guarded: id to display name.
    public var apps: [String: String] { commitments.apps }
    /// Apps guarded now, in configuration order.
    public var guarded: [String] { commitments.guarded }
    /// The current mode's gate.
    public var gateSteps: [GateStep] { commitments.gateSteps }
    /// The PIN that protects settings, if the household set one.
    public var pin: PinRecord? { state.pin }

    /// The protection in force.
    public var inForce: Protection { commitments.inForce(state) }

    /// Which names are apps' names, as the protection in force has them.
    public var inForceNames: NameRules { inForce.names ?? commitments.configuration.names }

    /// The names asked for, a loosening change still pending included (safe search, own entries).
    public var askedNames: NameRules { commitments.desired(state.overlay).names ?? commitments.configuration.names }

    /// The settings asked for: the config file with the control API's changes on top (a loosening
    /// change still pending is included: it is what was asked for).
    public var runTimeSettings: RunTimeSettings {
        RunTimeSettings(
            asked: commitments.desired(state.overlay),
            profiles: state.profiles.defined(configured: commitments.configuration.profiles))
    }

    /// Where each guarded app stands at `now`.
    public func status(at now: Instant) -> PolicyStatus { PolicyStatus(of: self, at: now) }

    /// The apps that are blocked at `now`, guarded ones in configuration order and then those only
    /// a schedule or profile blocks: the set other blockers must enforce (an app that is open, or
    /// neither guarded nor restricted, is never in it).
    public func blockedApps(at now: Instant) -> [String] {
        let now = max(now, state.lastSeen)
        return watchedApps(at: now).filter { !access($0, at: now).isOpen }
    }

    /// Where the person stands at their gate for `app` (every guarded app when nil).
    public func gateRequirement(for app: String?, at now: Instant) -> GateRequirement {
        state.gate.requirement(
            for: try? commitments.appID(app), rules: GateRules(settings), day: state.today,
            at: max(now, state.lastSeen))
    }

    /// What this person's policy enforces on their devices at `now` (for a device's move).
    public func enforcement(at now: Instant) -> Enforcement {
        Enforcement(protection: inForce, profileBlocks: standing.profileBlocks(commitments, state, at: now))
    }

    /// The state to persist, with usage as of `now`.
    public func snapshot(at now: Instant) -> PolicyState {
        var snapshot = state
        snapshot.lastSeen = max(now, state.lastSeen)
        (snapshot.today.used, snapshot.today.charged) = state.metering.totals(at: snapshot.lastSeen)
        snapshot.today.budgets = commitments.budgets
        return snapshot
    }

    /// Where `app` stands at `now` (see `AppStanding.access`).
    func access(_ app: String, at now: Instant) -> AppAccess { standing.access(app, commitments, state, at: now) }

    /// What schedules and profiles do to `app` at `now` (see `AppStanding.restriction`).
    func restriction(of app: String, at now: Instant) -> Restriction? {
        standing.restriction(of: app, commitments, state, at: now)
    }

    /// Every app that may be blocked at `now` (see `AppStanding.watchedApps`).
    func watchedApps(at now: Instant) -> [String] { standing.watchedApps(commitments, state, at: now) }
}
