import DNSFilter
import DNSProxy
import Foundation
import LockrAdapters
import LockrControl
import LockrPolicy
import LockrStore
import Logging
import NIOCore
import Synchronization

/// The running policy of a household: a `PersonPolicy` for each person, their clock and store.
///
/// DNS queries for app names (`admit`) go to the engine of the person who asked, control calls
/// (`perform`) to the person they name. Control calls are saved before they answer; metering and
/// events are saved by `tick` (usage while it grows, every second; otherwise at least once a
/// minute), everyone's in one transaction, so a kill loses at most a second or two of metering.
///
/// People are numbered in the order they were first configured and keep their number while lockr
/// runs (a reload that drops one leaves them without devices), so a DNS pipeline built a moment
/// before a reload still sends each query to the right engine.
final class Household: PolicyAccess, GuardGate {
    private let people: Mutex<[PersonPolicy]>
    private let store: PolicyStore
    private let clock: PolicyClock
    private let logger: Logger
    private let saving: Mutex<SaveState>
    /// Hands block-set changes to the adapters, when backends are configured.
    let publisher: BlockSetPublisher?
    /// Whether the DNS lockr answers meters usage (false when a backend's query log does).
    private let metersDNS: Bool
    /// MAC addresses of the devices on this machine's links.
    private let neighbours: (any NeighbourLookup)?
    /// The devices that asked, and which turned protection off.
    let watch: DeviceWatch
    private let setUp: Mutex<SetUp>
    /// Called when the app names in force change, to rebuild the DNS pipeline around them.
    private let namingChanged = Mutex<(@Sendable () -> Void)?>(nil)

    /// What the configuration says beyond each person's policy.
    private struct SetUp {
        var catalogue: AppCatalogue
        /// The configured people (the default person first) and their devices.
        var configured: [PersonSettings]
        var trustedForwarders: [IPNetwork]
        var protectionOffAfter: Duration
        /// Which clients each backend's query log counts for metering.
        var clients: [String: [String]]
    }

    private struct SaveState {
        var wallOffset: Duration = .zero
        var failing = false
    }

    var timeScale: Double { clock.scale }

    /// Restores everyone from `store`, or starts them afresh. `clock` makes the policy clock from the
    /// last time seen and the time scale (tests pass fake clock sources).
    init(
        config: LockrConfiguration, loaded: LoadedPolicy, store: PolicyStore, logger: Logger,
        publisher: BlockSetPublisher? = nil, neighbours: (any NeighbourLookup)? = nil,
        clock makeClock: (Instant?, LockrConfiguration) -> PolicyClock = {
            PolicyClock(resumingAfter: $0, scale: $1.timeScale, startAt: $1.startAt)
        },
        monotonic: @escaping @Sendable () -> UInt64 = { NIODeadline.now().uptimeNanoseconds }
    ) throws(StoreError) {
        var states: [PolicyState?] = []
        for person in loaded.people { states.append(try store.load(person: person.settings.name)) }
        clock = makeClock(states.compactMap { $0?.lastSeen }.max(), config)
        let now = clock.now()
        people = Mutex(
            loaded.people.enumerated().map { number, person in
                PersonPolicy(
                    number: number, settings: person.settings, names: person.names,
                    naming: person.naming, guarded: person.guarded, state: states[number], now: now)
            })
        self.store = store
        self.logger = logger
        self.publisher = publisher
        self.neighbours = neighbours
        watch = DeviceWatch(neighbours: neighbours, monotonic: monotonic)
        metersDNS = config.meterFrom == nil
        setUp = Mutex(Self.setUp(config, loaded))
        saving = Mutex(SaveState())
        refreshNaming(notify: false)
    }

    private static func setUp(_ config: LockrConfiguration, _ loaded: LoadedPolicy) -> SetUp {
        SetUp(
            catalogue: loaded.catalogue, configured: loaded.people.map(\.settings),
            trustedForwarders: config.trustedForwarders, protectionOffAfter: config.protectionOffAfter,
            clients: Dictionary(config.backends.map { ($0.name, $0.clients) }, uniquingKeysWith: { first, _ in first }))
    }

    private var everyone: [PersonPolicy] { people.withLock { $0 } }

    private func policy(number: Int) -> PersonPolicy {
        people.withLock { $0.indices.contains(number) ? $0[number] : $0[0] }
    }

    private func policy(of name: String) -> PersonPolicy? { everyone.first { $0.name == name } }

    // MARK: What the DNS pipeline is built from

    /// Each person's filter by number: the names in force for them and their own lists (`ownLists`,
    /// by name).
    func filters(ownLists: [String: RuleSet]) -> [PersonFilter] {
        everyone.map { person in
            let naming = person.naming
            return PersonFilter(antiBypass: naming.rules.antiBypass, apps: naming.guardSet, lists: ownLists[person.name])
        }
    }

    /// Which person each device is, by their numbers.
    func deviceDirectory() -> DeviceDirectory {
        let numbers = Dictionary(uniqueKeysWithValues: everyone.map { ($0.name, $0.number) })
        return setUp.withLock { setUp in
            DeviceDirectory(
                devices: setUp.configured.flatMap { person in
                    person.devices.compactMap { device in numbers[person.name].map { (device, $0) } }
                },
                trustedForwarders: setUp.trustedForwarders, neighbours: neighbours)
        }
    }

    /// Calls `body` whenever a person's app names change (after the change).
    func whenNamingChanges(_ body: @escaping @Sendable () -> Void) { namingChanged.withLock { $0 = body } }

    /// Rebuilds the app names of everyone whose names in force differ from theirs (people whose
    /// names are alike share one build, and so one cache stamp) and, with `notify`, tells whoever
    /// asked (a reload rebuilds the pipeline itself).
    private func refreshNaming(notify: Bool = true) {
        let catalogue = setUp.withLock { $0.catalogue }
        var changed = false
        for person in everyone {
            changed = person.refreshNaming(catalogue: catalogue, logger: logger, reusing: everyone.map(\.naming))
                || changed
        }
        guard changed, notify else { return }
        namingChanged.withLock { $0 }?()
    }

    // MARK: GuardGate

    func admit(app: String, client: QueryClient) -> GuardAdmission {
        let now = clock.now()
        let admission = policy(number: client.person).withEngine { $0.admit(app, at: now, metering: metersDNS) }
        switch admission {
        case .notGuarded: return .notGuarded
        case .allow(let ttl): return .allow(ttl: clock.realSeconds(ttl))
        case .block(let access, let reason): return .block(PolicyBlock(app: app, code: access.code, text: reason))
        }
    }

    /// Takes the queries `backend` logged (its query log) for metering: those for guarded apps'
    /// names, from the backend's configured clients (all when none are), each for the person whose
    /// device asked.
    func observe(_ queries: [LoggedQuery], from backend: String) {
        let clients = setUp.withLock { $0.clients[backend] ?? [] }
        let directory = deviceDirectory()
        let now = clock.now()
        var observed = false
        for query in queries where clients.isEmpty || clients.contains(query.client) {
            let number = IPAddressBytes.parse(query.client).map { directory.person(ofAddress: IPAddressBytes.number($0)) }
            let person = policy(number: number ?? 0)
            guard let app = person.naming.guardSet.app(forName: query.name) else { continue }
            _ = person.withEngine { $0.observe(app, queriedAt: clock.instant(atWall: query.at), now: now) }
            observed = true
        }
        if observed { publish() }
    }

    /// Hands everyone's block set to the adapters (which queue it only when it changed): the default
    /// person's, and each configured person's with their devices.
    func publish() {
        guard let publisher else { return }
        let now = clock.now()
        let devices = setUp.withLock { setUp in
            Dictionary(
                setUp.configured.map { ($0.name, $0.devices.map(\.clientName)) }, uniquingKeysWith: { first, _ in first })
        }
        let sets = everyone.compactMap { person -> PersonBlockSet? in
            let clients = person.number == 0 ? [] : devices[person.name] ?? []
            guard person.number == 0 || !clients.isEmpty else { return nil }
            let (guarded, blocked) = person.read { ($0.guarded, $0.blockedApps(at: now)) }
            return PersonBlockSet(
                person: person.name, clients: clients, guarded: guarded, blocked: blocked, rules: person.naming.blockRules)
        }
        publisher.publish(default: sets[0], people: Array(sets.dropFirst()))
    }

    // MARK: PolicyAccess

    func peopleNames() -> [String] {
        let configured = setUp.withLock { Set($0.configured.map(\.name)) }
        return everyone.map(\.name).filter(configured.contains)
    }

    func person(ofCaller caller: SocketAddress) -> String? {
        guard let address = IPAddressBytes.number(of: caller) else { return nil }
        let number = deviceDirectory().person(ofAddress: address)
        return number == 0 ? nil : policy(number: number).name
    }

    func perform<Result: Sendable>(
        for name: String, _ action: (inout PolicyEngine, Instant) throws(PolicyRefusal) -> Result
    )
        throws(ControlFailure) -> Result
    {
        guard let person = policy(of: name) else { throw .unknownPerson(name, people: peopleNames()) }
        let now = clock.now()
        let outcome: Swift.Result<Result, PolicyRefusal>
        do throws(PolicyRefusal) {
            outcome = .success(try person.withEngine { (engine) throws(PolicyRefusal) in try action(&engine, now) })
        } catch {
            outcome = .failure(error)
        }
        do { try save(force: true) } catch { throw .storage("\(error)") }
        refreshNaming()
        publish()
        switch outcome {
        case .success(let result): return result
        case .failure(let refusal): throw .refused(refusal)
        }
    }

    func read<Result: Sendable>(for name: String, _ body: (PolicyEngine, Instant) -> Result) -> Result {
        let now = clock.now()
        return (policy(of: name) ?? policy(number: 0)).read { body($0, now) }
    }

    func events(since: Instant, limit: Int, person: String?) throws(ControlFailure) -> [LoggedEvent] {
        do { return try store.events(since: since, limit: limit, person: person) } catch { throw .storage("\(error)") }
    }

    func appGroups() -> [String: String] { policy(number: 0).naming.groups }

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

    /// A warning when policy time and the wall clock disagree by more than a minute, else nil.
    func clockDrift() -> String? {
        let drift = clock.drift()
        guard abs(drift.milliseconds) > 60_000 else { return nil }
        let size = drift < .zero ? .zero - drift : drift
        let now = read(for: People.defaultName) { engine, now in engine.settings.calendar.dateTimeText(now) }
        if drift > .zero {
            return "policy time (\(now)) is \(size.spoken) ahead of this machine's clock: a --time-scale or "
                + "--start-at run on this state directory left it there, or the clock was set back; lockr never "
                + "moves policy time back (that could grant spent budget again), so days and hours run early "
                + "until the clock catches up. Start afresh with a new --state-dir to drop it."
        }
        return "policy time (\(now)) is \(size.spoken) behind this machine's clock: the clock jumped forward "
            + "while lockr ran (see `lockr log`); a restart takes the clock's time up"
    }

    /// Each person's line for the start-up log.
    func summary() -> [(person: String, mode: String, guarded: [String], openWindows: Int)] {
        let now = clock.now()
        return everyone.map { person in
            person.read { engine in
                (person.name, engine.modeSummary, engine.guarded, engine.state.windows.filter { $0.ends > now }.count)
            }
        }
    }

    // MARK: Running

    /// Takes a reloaded configuration: each person's settings (changes made through the control API
    /// stay on top), new people with their stored state if they had any.
    func reload(config: LockrConfiguration, loaded: LoadedPolicy) {
        let now = clock.now()
        for configured in loaded.people {
            let settings = configured.settings
            if let person = policy(of: settings.name) {
                let notes = person.withEngine {
                    $0.rebase(
                        settings: settings.policy, guarded: configured.guarded, apps: configured.naming.names,
                        names: configured.names, schedules: settings.schedules ?? [], profiles: settings.profiles,
                        groups: configured.naming.groups, at: now)
                }
                for note in notes { logger.warning("\(note)", metadata: ["person": "\(settings.name)"]) }
                person.takeNaming(configured.naming)
                continue
            }
            let state: PolicyState?
            do { state = try store.load(person: settings.name) } catch {
                logger.error(
                    "cannot read a new person's stored state; starting them afresh",
                    metadata: ["person": "\(settings.name)", "error": "\(error)"])
                state = nil
            }
            people.withLock { people in
                people.append(
                    PersonPolicy(
                        number: people.count, settings: settings, names: configured.names,
                        naming: configured.naming, guarded: configured.guarded, state: state, now: now))
            }
        }
        // People the file no longer names keep their policy; their names share the new build when alike.
        let configured = Set(loaded.people.map(\.settings.name))
        for person in everyone where !configured.contains(person.name) {
            let rules = person.naming.rules
            if let same = loaded.people.first(where: { $0.naming.rules == rules }) { person.takeNaming(same.naming) }
        }
        setUp.withLock { $0 = Self.setUp(config, loaded) }
        try? save(force: true)
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
        for person in everyone {
            person.withEngine { engine in
                if let jump { engine.noteClockJump(by: jump, at: now) }
                engine.tick(at: now)
            }
        }
        checkDevices()
        try? save(force: timeScale != 1)
        refreshNaming()
        publish()
    }

    /// Flags the devices that turned protection off, and clears those that ask again.
    private func checkDevices() {
        let now = clock.now()
        watch.check(
            after: setUp.withLock { $0.protectionOffAfter }, scale: timeScale,
            guards: { number in policy(number: number).read { !$0.guarded.isEmpty } },
            note: { number, off, detail in
                policy(number: number).withEngine { $0.noteProtection(off: off, detail: detail, at: now) }
            })
    }

    func devices() -> [DeviceBody] {
        let now = clock.now()
        return watch.bodies(after: setUp.withLock { $0.protectionOffAfter }, scale: timeScale, now: now) { number in
            let person = policy(number: number)
            return (person.name, person.read { $0.settings.calendar })
        }
    }

    /// Writes what changed of everyone, in one transaction. Without `force`, an unchanged person is
    /// written once a minute only.
    private func save(force: Bool) throws(StoreError) {
        try saving.withLock { (saving: inout SaveState) throws(StoreError) in
            let now = clock.now()
            let records = everyone.compactMap { $0.record(at: now, force: force, logger: logger) }
            guard !records.isEmpty else { return }
            do throws(StoreError) {
                try store.save(records)
            } catch {
                if !saving.failing {
                    logger.error("cannot save the policy state; retrying", metadata: ["error": "\(error)"])
                }
                saving.failing = true
                throw error
            }
            if saving.failing { logger.notice("policy state saved again") }
            saving.failing = false
            for record in records { policy(of: record.person)?.saved(record) }
        }
    }
}
