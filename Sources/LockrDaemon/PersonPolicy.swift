import DNSFilter
import LockrControl
import LockrLists
import LockrPolicy
import LockrStore
import Logging
import Synchronization

/// One person's policy: their engine behind a lock, which names are apps' names for them (the
/// names in force), and what of their state the store has not got yet.
final class PersonPolicy: Sendable {
    let name: String
    /// Their number in the household (`QueryClient.person`): 0 is the default person.
    let number: Int
    private let engine: Mutex<PolicyEngine>
    private let lookup: Mutex<Lookup>
    private let unsaved: Mutex<Unsaved>
    private let statusWatch = Mutex(StatusWatch())

    private struct Lookup {
        var naming: AppNaming
        /// Names in force that cannot be built (the catalogue took one of their app ids), logged once.
        var unbuildable: NameRules?
    }

    /// What has not reached the store yet, and what it holds.
    private struct Unsaved {
        var events: [PolicyEvent] = []
        var closedDays: [DayRecord] = []
        var saved: PolicyState?
        var savedAt = ContinuousClock.now
    }

    /// Restores the person from `state` (nil on their first start) at policy time `now`.
    init(
        number: Int, settings: PersonSettings, names: NameRules, naming: AppNaming, guarded: [String],
        state: PolicyState?, now: Instant
    ) {
        name = settings.name
        self.number = number
        engine = Mutex(
            PolicyEngine(
                settings: settings.policy, guarded: guarded, apps: naming.names, names: names,
                schedules: settings.schedules ?? [], profiles: settings.profiles, groups: naming.groups, state: state,
                now: now))
        lookup = Mutex(Lookup(naming: naming))
        unsaved = Mutex(Unsaved(saved: state))
    }

    /// Which app each name belongs to for this person, as the protection in force has it.
    var naming: AppNaming { lookup.withLock { $0.naming } }

    func withEngine<Result, Failure: Error>(
        _ body: (inout PolicyEngine) throws(Failure) -> Result
    ) throws(Failure)
        -> Result
    {
        try engine.withLock { (engine: inout PolicyEngine) throws(Failure) -> Result in try body(&engine) }
    }

    func read<Result>(_ body: (PolicyReadout) -> Result) -> Result { engine.withLock { body($0.readout) } }

    /// Takes the configuration's names (built when it loaded) as the ones to compare against.
    func takeNaming(_ naming: AppNaming) {
        lookup.withLock { lookup in
            lookup.naming = naming
            lookup.unbuildable = nil
        }
    }

    /// Rebuilds `naming` when the names in force differ from it (or, with `listsFetched`, when its
    /// entries read a list by URL), taking one of `reusing` that has the same names if there is
    /// one; true when it changed. The build (which may read lists) holds no lock; a build for names
    /// no longer in force by its end is dropped.
    func refreshNaming(
        catalogue: AppCatalogue, copies: ListCopies, logger: Logger, reusing others: [AppNaming],
        listsFetched: Bool = false
    ) -> Bool {
        let rules = engine.withLock { $0.readout.inForceNames }
        let needed = lookup.withLock { lookup in
            let stale = listsFetched && lookup.naming.readsLists
            return (lookup.naming.rules != rules || stale) && lookup.unbuildable != rules
        }
        guard needed else { return false }
        let built: AppNaming
        do throws(LoadError) {
            if let same = others.first(where: { $0.rules == rules }) {
                built = same
            } else {
                built = try AppNaming(catalogue: catalogue, rules: rules, copies: copies)
            }
        } catch {
            logger.error(
                "cannot build the app names in force; keeping the previous ones",
                metadata: ["person": "\(name)", "error": "\(error)"])
            lookup.withLock { $0.unbuildable = rules }
            return false
        }
        guard engine.withLock({ $0.readout.inForceNames }) == rules else { return false }
        lookup.withLock { lookup in
            lookup.naming = built
            lookup.unbuildable = nil
        }
        return true
    }

    /// Their state and events to save at `now`, or nil when nothing changed and no minute has
    /// passed since the last save (unless `force`). Events go to the log, and those that are news to
    /// `liveEvents`, as they leave the engine.
    func record(at now: Instant, force: Bool, logger: Logger, liveEvents: LiveEventHub) -> PersonRecord? {
        let (snapshot, events, closedDays) = engine.withLock { Self.drain(&$0, at: now) }
        announce(events, logger: logger, liveEvents: liveEvents)
        return unsaved.withLock { unsaved in
            unsaved.events += events
            unsaved.closedDays += closedDays
            var comparable = snapshot
            comparable.lastSeen = unsaved.saved?.lastSeen ?? snapshot.lastSeen
            let due = ContinuousClock.now - unsaved.savedAt >= .seconds(60)
            guard force || due || comparable != unsaved.saved || !unsaved.events.isEmpty || !unsaved.closedDays.isEmpty
            else { return nil }
            return PersonRecord(person: name, state: snapshot, closedDays: unsaved.closedDays, events: unsaved.events)
        }
    }

    /// What a change leaves to store: the record of their state after it (with the events and
    /// days not stored yet), and the events and days it drained from the engine.
    struct Outcome: Sendable {
        let record: PersonRecord
        let events: [PolicyEvent]
        let closedDays: [DayRecord]
    }

    /// The outcome of `engine` (a changed copy of theirs) at `now`, draining its events and days.
    func outcome(draining engine: inout PolicyEngine, at now: Instant) -> Outcome {
        let (snapshot, events, closedDays) = Self.drain(&engine, at: now)
        let record = unsaved.withLock { unsaved in
            PersonRecord(
                person: name, state: snapshot, closedDays: unsaved.closedDays + closedDays,
                events: unsaved.events + events)
        }
        return Outcome(record: record, events: events, closedDays: closedDays)
    }

    /// Notes that `outcome` was stored and its copy of the engine kept: its events go to the log
    /// and to `liveEvents`.
    func committed(_ outcome: Outcome, logger: Logger, liveEvents: LiveEventHub) {
        unsaved.withLock { unsaved in
            unsaved.events += outcome.events
            unsaved.closedDays += outcome.closedDays
        }
        saved(outcome.record)
        announce(outcome.events, logger: logger, liveEvents: liveEvents)
    }

    /// The engine's state at `now`, and the events and closed days that leave it.
    private static func drain(
        _ engine: inout PolicyEngine, at now: Instant
    ) -> (PolicyState, [PolicyEvent], [DayRecord]) {
        (engine.readout.snapshot(at: now), engine.drainEvents(), engine.drainClosedDays())
    }

    /// Logs `events`, and hands those that are news to `liveEvents`.
    private func announce(_ events: [PolicyEvent], logger: Logger, liveEvents: LiveEventHub) {
        for event in events {
            logger.notice(
                "\(event.type.rawValue)",
                metadata: ["person": "\(name)", "app": "\(event.app ?? "all")", "detail": "\(event.detail)"])
        }
        liveEvents.publish(events.compactMap(LiveEvent.init), of: name)
    }

    /// Moves their policy on to `now` (`PolicyEngine.tick`) and gives what changed since the last
    /// tick that is news: windows, countdowns, locks.
    func tick(at now: Instant) -> [LiveEvent] {
        let (status, calendar) = engine.withLock { engine in
            engine.tick(at: now)
            return (engine.readout.status(at: now), engine.readout.settings.calendar)
        }
        return statusWatch.withLock { $0.changes(in: status, calendar: calendar) }
    }

    /// Notes that `record` reached the store.
    func saved(_ record: PersonRecord) {
        unsaved.withLock { unsaved in
            unsaved.events.removeFirst(min(record.events.count, unsaved.events.count))
            unsaved.closedDays.removeFirst(min(record.closedDays.count, unsaved.closedDays.count))
            unsaved.saved = record.state
            unsaved.savedAt = ContinuousClock.now
        }
    }
}
