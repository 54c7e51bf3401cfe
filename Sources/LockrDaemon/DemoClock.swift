import LockrPolicy
import LockrStore

/// `--start-at` and `--time-scale` run policy time apart from the machine's clock, for demos and
/// tests. On a state directory whose policy runs on the real clock they would skip its people's own
/// limits (a spent budget reset by starting at tomorrow, pending changes applied early), so they
/// are refused there; a demo uses a directory of its own, marked as a demo's when first used.
enum DemoClock {
    /// Whether `config` runs on a demo's clock.
    static func asked(by config: LockrConfiguration) -> Bool { config.startAt != nil || config.timeScale != 1 }

    /// Refuses a demo's clock on a store whose policy runs on the real one; marks a new store with
    /// the clock it starts on.
    static func admit(_ config: LockrConfiguration, store: PolicyStore) throws {
        let demo = asked(by: config)
        guard try !store.people().isEmpty else {
            try store.setPolicyClock(demo ? .demo : .real)
            return
        }
        guard demo, try store.policyClock() != .demo else { return }
        throw LoadError(
            "--start-at and --time-scale are for demos and tests, on a state directory of their own: "
                + "\(config.stateDirectory) holds a policy on the real clock, whose limits they would skip; "
                + "give --state-dir a new directory")
    }

    /// Logs, in each person's event log, that `--start-at` moved policy time on from `last` (the
    /// last time the state saw) to `now`, if it did.
    static func noteJump(_ config: LockrConfiguration, from last: Instant?, to now: Instant, household: Household) {
        guard config.startAt != nil, let last, now - last > .seconds(60) else { return }
        for person in household.everyone {
            person.withEngine { $0.note(.policyTimeMoved(from: last), at: now) }
        }
    }
}
