import LockrControl
import LockrPolicy
import LockrStore
import Logging
import Synchronization

/// Writes what changed of everyone's policy to the store, everyone's in one transaction, and says
/// once when saving starts failing and once when it works again. Events that are news (protection
/// off, settings changed) go to live listeners as they leave the engines.
final class PolicySaver: Sendable {
    private let store: PolicyStore
    private let liveEvents: LiveEventHub
    private let logger: Logger
    /// Whether the last save failed; also keeps saves one at a time.
    private let failing = Mutex(false)

    init(store: PolicyStore, liveEvents: LiveEventHub, logger: Logger) {
        self.store = store
        self.liveEvents = liveEvents
        self.logger = logger
    }

    /// Saves what changed of `people` at policy time `now`. Without `force`, an unchanged person is
    /// written once a minute only.
    func save(_ people: [PersonPolicy], at now: Instant, force: Bool) throws(StoreError) {
        try failing.withLock { (failing: inout Bool) throws(StoreError) in
            let records = people.compactMap { $0.record(at: now, force: force, logger: logger, liveEvents: liveEvents) }
            guard !records.isEmpty else { return }
            try write(records, failing: &failing)
            for record in records { people.first { $0.name == record.person }?.saved(record) }
        }
    }

    /// Stores `records` in one transaction, saying when saving starts failing and works again.
    private func write(_ records: [PersonRecord], failing: inout Bool) throws(StoreError) {
        do throws(StoreError) {
            try store.save(records)
        } catch {
            if !failing { logger.error("cannot save the policy state; retrying", metadata: ["error": "\(error)"]) }
            failing = true
            throw error
        }
        if failing { logger.notice("policy state saved again") }
        failing = false
    }

    /// Makes `change` on the engines of `people` (each a copy, their locks held together) only
    /// once everyone's outcome is stored in one transaction; throws, having changed nothing, when
    /// it cannot be (`StoreError`) or when `change` throws.
    func commit<Result: Sendable>(
        _ people: [PersonPolicy], in household: Household, at now: Instant,
        _ change: (inout [PolicyEngine]) throws -> Result
    ) throws -> (result: Result, after: [PolicyEngine]) {
        try failing.withLock { (failing: inout Bool) throws in
            let (result, after, outcomes) = try household.withEnginesTogether(people) { engines in
                let result = try change(&engines)
                let outcomes = people.indices.map { people[$0].outcome(draining: &engines[$0], at: now) }
                try write(outcomes.map(\.record), failing: &failing)
                return (result, engines, outcomes)
            }
            for (person, outcome) in zip(people, outcomes) {
                person.committed(outcome, logger: logger, liveEvents: liveEvents)
            }
            return (result, after)
        }
    }
}
