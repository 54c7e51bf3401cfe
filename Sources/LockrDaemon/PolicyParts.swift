import DNSProxy
import Foundation
import LockrControl
import LockrPolicy
import LockrStore
import Logging
import NIOCore

/// The parts that run a household's policy, made together from one configuration and store: the
/// people (`household`), policy time, the DNS gate, the control API's access, the ticker, the
/// backends' metering and what carries changes out. The daemon's builder and the tests make them
/// the same way.
struct PolicyParts: Sendable {
    let household: Household
    let clock: PolicyClock
    let watch: DeviceWatch
    let propagation: PolicyPropagation
    let gate: DNSGate
    let ticker: PolicyTicker
    let meter: UseMeter
    /// The dnstap listener, when `[dnstap]` is configured.
    let dnstap: DnstapIntake?
    /// The query log, when it is kept.
    let queryLog: QueryLog?
    /// Everyone's live events: windows, countdowns, locks, protection, settings.
    let liveEvents: LiveEventHub
    /// `/metrics`.
    let metrics: MetricsExporter
    /// The daemon's side of `lockr doctor`.
    let doctor: Doctor
    /// `lockr explain`: what the DNS path would answer, and why.
    let explainer = Explainer()
    /// `lockr lists`: the lists given by URL.
    let lists = ListDesk()
    /// The home's own names, the config file's and those added while lockr runs.
    let homeRecords: HomeRecords
    let store: PolicyStore

    /// The control API's and the web pages' way in.
    var control: ControlAccess { ControlAccess(parts: self) }

    /// Restores everyone from `store`, or starts them afresh. `clock` makes the policy clock from
    /// the last time seen and the configuration (tests pass fake clock sources); `monotonic` is
    /// the DNS pipeline's clock, for when devices were seen.
    init(
        config: LockrConfiguration, loaded: LoadedPolicy, store: PolicyStore, logger: Logger,
        publisher: BlockSetPublisher? = nil, neighbours: (any NeighbourLookup & NeighbourPresence)? = nil,
        queryLog: QueryLog? = nil,
        clock makeClock: (Instant?, LockrConfiguration) -> PolicyClock = {
            PolicyClock(resumingAfter: $0, scale: $1.timeScale, startAt: $1.startAt)
        },
        monotonic: @escaping @Sendable () -> UInt64 = { NIODeadline.now().uptimeNanoseconds }
    ) throws(StoreError) {
        var states: [PolicyState?] = []
        for person in loaded.people { states.append(try store.load(person: person.settings.name)) }
        let lastSeen = states.compactMap { $0?.lastSeen }.max()
        clock = makeClock(lastSeen, config)
        household = Household(
            config: config, loaded: loaded, states: states, now: clock.now(), neighbours: neighbours, logger: logger)
        DemoClock.noteJump(config, from: lastSeen, to: clock.now(), household: household)
        watch = DeviceWatch(neighbours: neighbours, monotonic: monotonic)
        liveEvents = LiveEventHub(epoch: "\(Int64(Date().timeIntervalSince1970 * 1000))")
        liveEvents.suggest(config.suggestions)
        propagation = PolicyPropagation(
            household: household, clock: clock,
            saver: PolicySaver(store: store, liveEvents: liveEvents, logger: logger),
            publisher: publisher)
        gate = DNSGate(household: household, clock: clock, meters: config.meterFrom == nil)
        dnstap = config.dnstap.enabled ? DnstapIntake(config.dnstap) : nil
        metrics = MetricsExporter(
            household: household, clock: clock, propagation: propagation, queryLog: queryLog, devices: watch.sightings,
            dnstap: dnstap)
        doctor = Doctor(household: household, store: store, propagation: propagation)
        self.queryLog = queryLog
        ticker = PolicyTicker(
            household: household, clock: clock, watch: watch, propagation: propagation, liveEvents: liveEvents)
        meter = UseMeter(household: household, clock: clock, propagation: propagation, backends: config.backends)
        homeRecords = try HomeRecords(
            store: HomeRecordStore(sharing: store), configured: loaded.lists.homeRecords, settings: config.local)
        self.store = store
    }

    /// Takes a reloaded configuration: each person's settings (changes made through the control API
    /// stay on top), new people with their stored state if they had any; then saves, publishes and
    /// tells live listeners. The caller rebuilds the DNS pipeline.
    func reload(config: LockrConfiguration, loaded: LoadedPolicy) {
        let now = clock.now()
        household.reload(config: config, loaded: loaded, at: now) { (name) throws(StoreError) in
            try store.load(person: name)
        }
        homeRecords.reconfigure(configured: loaded.lists.homeRecords, settings: config.local)
        try? propagation.propagate(savingAll: true, notify: false)
        liveEvents.suggest(config.suggestions)
        for name in household.peopleNames() {
            liveEvents.publish(
                [LiveEvent(kind: .settingsChanged, at: now, message: "the configuration file was reloaded")], of: name)
        }
    }

    /// Each person's line for the start-up log.
    func summary() -> [(person: String, mode: String, guarded: [String], openWindows: Int)] {
        household.summary(at: clock.now())
    }
}
