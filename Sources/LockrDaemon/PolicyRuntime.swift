import DNSFilter
import DNSProxy
import Foundation
import LockrAdapters
import LockrControl
import LockrPolicy
import LockrStore
import Logging
import Synchronization

/// The running policy: the engine behind a lock, its clock and its store.
///
/// DNS queries for app names (`admit`) and control calls (`perform`) go through the same engine.
/// Control calls are saved before they answer; metering and events are saved by `tick` (usage while
/// it grows, every second; otherwise at least once a minute), so a kill loses at most a second or
/// two of metering.
final class PolicyRuntime: PolicyAccess, GuardGate {
    private let engine: Mutex<PolicyEngine>
    private let store: PolicyStore
    private let clock: PolicyClock
    private let logger: Logger
    private let saving: Mutex<SaveState>
    /// Hands block-set changes to the adapters, when backends are configured.
    let publisher: BlockSetPublisher?
    /// Whether the DNS lockr answers meters usage (false when a backend's query log does).
    private let metersDNS: Bool
    private let lookup: Mutex<Lookup>
    /// Called when the app names in force change, to rebuild the DNS pipeline around them.
    private let namingChanged = Mutex<(@Sendable () -> Void)?>(nil)

    /// Which app each name is, as the protection in force has it, and what it is built from.
    private struct Lookup {
        var catalogue: AppCatalogue
        var naming: AppNaming
        /// Names in force that cannot be built (the catalogue took one of their app ids), logged once.
        var unbuildable: NameRules?
        /// Which clients each backend's query log counts for metering.
        var clients: [String: [String]]
    }

    /// What has not reached the store yet, and what it holds.
    private struct SaveState {
        var events: [PolicyEvent] = []
        var closedDays: [DayRecord] = []
        var saved: PolicyState?
        var savedAt = ContinuousClock.now
        var wallOffset: Duration = .zero
        var failing = false
    }

    var timeScale: Double { clock.scale }

    /// Restores the policy from `store`, or starts it afresh. `clock` makes the policy clock from the
    /// last time seen and the time scale (tests pass fake clock sources).
    init(
        config: LockrConfiguration, loaded: LoadedPolicy, store: PolicyStore, logger: Logger,
        publisher: BlockSetPublisher? = nil,
        clock makeClock: (Instant?, LockrConfiguration) -> PolicyClock = {
            PolicyClock(resumingAfter: $0, scale: $1.timeScale, startAt: $1.startAt)
        }
    ) throws(StoreError) {
        let state = try store.load()
        clock = makeClock(state?.lastSeen, config)
        engine = Mutex(
            PolicyEngine(
                settings: config.policy, guarded: loaded.guarded, apps: loaded.naming.names, names: config.names,
                state: state, now: clock.now()))
        self.store = store
        self.logger = logger
        self.publisher = publisher
        metersDNS = config.meterFrom == nil
        lookup = Mutex(
            Lookup(catalogue: loaded.catalogue, naming: loaded.naming, unbuildable: nil, clients: Self.clients(config)))
        saving = Mutex(SaveState(saved: state))
        refreshNaming(notify: false)
    }

    /// Which app each name belongs to, as the protection in force has it.
    var naming: AppNaming { lookup.withLock { $0.naming } }

    /// Calls `body` whenever `naming` changes (after the change).
    func whenNamingChanges(_ body: @escaping @Sendable () -> Void) { namingChanged.withLock { $0 = body } }

    /// Rebuilds `naming` when the names in force differ from it (the configuration's, built when it
    /// loaded, serve while they agree) and, with `notify`, tells whoever asked (a reload rebuilds
    /// the pipeline itself).
    private func refreshNaming(notify: Bool = true) {
        let rules = engine.withLock { $0.inForceNames }
        let changed = lookup.withLock { lookup -> Bool in
            guard lookup.naming.rules != rules, lookup.unbuildable != rules else { return false }
            do throws(LoadError) {
                lookup.naming = try AppNaming(catalogue: lookup.catalogue, rules: rules)
                lookup.unbuildable = nil
                return true
            } catch {
                logger.error(
                    "cannot build the app names in force; keeping the previous ones", metadata: ["error": "\(error)"])
                lookup.unbuildable = rules
                return false
            }
        }
        guard changed, notify else { return }
        namingChanged.withLock { $0 }?()
    }

    /// A warning when policy time and the wall clock disagree by more than a minute, else nil.
    func clockDrift() -> String? {
        let drift = clock.drift()
        guard abs(drift.milliseconds) > 60_000 else { return nil }
        let size = drift < .zero ? .zero - drift : drift
        let now = read { engine, now in engine.settings.calendar.dateTimeText(now) }
        if drift > .zero {
            return "policy time (\(now)) is \(size.spoken) ahead of this machine's clock: a --time-scale or "
                + "--start-at run on this state directory left it there, or the clock was set back; lockr never "
                + "moves policy time back (that could grant spent budget again), so days and hours run early "
                + "until the clock catches up. Start afresh with a new --state-dir to drop it."
        }
        return "policy time (\(now)) is \(size.spoken) behind this machine's clock: the clock jumped forward "
            + "while lockr ran (see `lockr log`); a restart takes the clock's time up"
    }

    /// The engine's view for the start-up log line.
    func summary() -> (mode: String, guarded: [String], openWindows: Int) {
        let now = clock.now()
        return engine.withLock { engine in
            (engine.modeSummary, engine.guarded, engine.state.windows.filter { $0.ends > now }.count)
        }
    }

    // MARK: GuardGate

    func admit(app: String) -> GuardAdmission {
        let now = clock.now()
        let admission = engine.withLock { $0.admit(app, at: now, metering: metersDNS) }
        switch admission {
        case .notGuarded: return .notGuarded
        case .allow(let ttl): return .allow(ttl: clock.realSeconds(ttl))
        case .block(let reason): return .block(reason: reason)
        }
    }

    /// Takes the queries `backend` logged (its query log) for metering: those for guarded apps' names,
    /// from the backend's configured clients (all when none are).
    func observe(_ queries: [LoggedQuery], from backend: String) {
        let (guardSet, clients) = lookup.withLock { ($0.naming.guardSet, $0.clients[backend] ?? []) }
        let ours = queries.compactMap { query -> (app: String, at: Date)? in
            guard clients.isEmpty || clients.contains(query.client), let app = guardSet.app(forName: query.name) else {
                return nil
            }
            return (app, query.at)
        }
        guard !ours.isEmpty else { return }
        let now = clock.now()
        engine.withLock { engine in
            for query in ours { engine.observe(query.app, queriedAt: clock.instant(atWall: query.at), now: now) }
        }
        publish()
    }

    private static func clients(_ config: LockrConfiguration) -> [String: [String]] {
        Dictionary(config.backends.map { ($0.name, $0.clients) }, uniquingKeysWith: { first, _ in first })
    }

    /// Hands the current block set to the adapters (which queue it only when it changed).
    func publish() {
        guard let publisher else { return }
        let now = clock.now()
        let (guarded, blocked) = engine.withLock { ($0.guarded, $0.blockedApps(at: now)) }
        publisher.publish(guarded: guarded, blocked: blocked, rules: lookup.withLock { $0.naming.blockRules })
    }

    // MARK: PolicyAccess

    func perform<Result: Sendable>(
        _ action: (inout PolicyEngine, Instant) throws(PolicyRefusal) -> Result
    )
        throws(ControlFailure) -> Result
    {
        let now = clock.now()
        let outcome: Swift.Result<Result, PolicyRefusal> = engine.withLock { engine in
            do throws(PolicyRefusal) { return .success(try action(&engine, now)) } catch { return .failure(error) }
        }
        do { try save(force: true) } catch { throw .storage("\(error)") }
        refreshNaming()
        publish()
        switch outcome {
        case .success(let result): return result
        case .failure(let refusal): throw .refused(refusal)
        }
    }

    func read<Result: Sendable>(_ body: (PolicyEngine, Instant) -> Result) -> Result {
        let now = clock.now()
        return engine.withLock { body($0, now) }
    }

    func events(since: Instant, limit: Int) throws(ControlFailure) -> [PolicyEvent] {
        do { return try store.events(since: since, limit: limit) } catch { throw .storage("\(error)") }
    }

    func appGroups() -> [String: String] { lookup.withLock { $0.naming.groups } }

    func backends() -> [BackendBody] {
        guard let publisher else { return [] }
        let now = Date()
        return publisher.hub.health().map { health in
            BackendBody(
                name: health.name, state: health.state.rawValue, pending: health.pending,
                lagSeconds: health.oldestPending.map { Int64(max(0, now.timeIntervalSince($0))) } ?? 0,
                lastSuccess: health.lastSuccess.map { ISO8601DateFormatter().string(from: $0) },
                lastError: health.lastError,
                retryInSeconds: health.state == .failing
                    ? health.nextRetry.map { Int64(max(0, $0.timeIntervalSince(now)).rounded(.up)) } : nil,
                repairs: health.repairs, notes: health.notes, notEnforcing: health.notEnforcing,
                metering: health.metering,
                logError: health.logError)
        }
    }

    // MARK: Running

    /// Takes a reloaded configuration.
    func reload(config: LockrConfiguration, loaded: LoadedPolicy) {
        let now = clock.now()
        let notes = engine.withLock {
            $0.rebase(
                settings: config.policy, guarded: loaded.guarded, apps: loaded.naming.names, names: config.names, at: now)
        }
        for note in notes { logger.warning("\(note)") }
        try? save(force: true)
        lookup.withLock { lookup in
            lookup.catalogue = loaded.catalogue
            lookup.naming = loaded.naming
            lookup.unbuildable = nil
            lookup.clients = Self.clients(config)
        }
        refreshNaming(notify: false)
        publish()
    }

    /// Moves the policy on and saves, until cancelled; then saves a last time.
    func run() async {
        let interval: Duration = timeScale > 1 ? .milliseconds(100) : .seconds(1)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            tick()
        }
        try? save(force: true)
    }

    func tick() {
        let now = clock.now()
        let offset = clock.wallOffset()
        let jump = saving.withLock { state -> Duration? in
            let step = offset - state.wallOffset
            state.wallOffset = offset
            return abs(step.milliseconds) > 2000 ? step : nil
        }
        engine.withLock { engine in
            if let jump { engine.noteClockJump(by: jump, at: now) }
            engine.tick(at: now)
        }
        try? save(force: timeScale != 1)
        refreshNaming()
        publish()
    }

    /// Writes what changed. Without `force`, an unchanged state is written once a minute only.
    private func save(force: Bool) throws(StoreError) {
        try saving.withLock { (pending: inout SaveState) throws(StoreError) in
            let now = clock.now()
            let (snapshot, events, closedDays) = engine.withLock { engine in
                (engine.snapshot(at: now), engine.drainEvents(), engine.drainClosedDays())
            }
            for event in events {
                logger.notice(
                    "\(event.type.rawValue)", metadata: ["app": "\(event.app ?? "all")", "detail": "\(event.detail)"])
            }
            pending.events += events
            pending.closedDays += closedDays
            var comparable = snapshot
            comparable.lastSeen = pending.saved?.lastSeen ?? snapshot.lastSeen
            let due = ContinuousClock.now - pending.savedAt >= .seconds(60)
            guard force || due || comparable != pending.saved || !pending.events.isEmpty || !pending.closedDays.isEmpty
            else { return }
            do throws(StoreError) {
                try store.save(snapshot, closedDays: pending.closedDays, events: pending.events)
            } catch {
                if !pending.failing {
                    logger.error("cannot save the policy state; retrying", metadata: ["error": "\(error)"])
                }
                pending.failing = true
                throw error
            }
            if pending.failing { logger.notice("policy state saved again") }
            pending = SaveState(
                saved: snapshot, savedAt: ContinuousClock.now, wallOffset: pending.wallOffset, failing: false)
        }
    }
}
