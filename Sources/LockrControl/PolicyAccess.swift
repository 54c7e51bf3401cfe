import LockrPolicy

/// Why a control call failed: the policy refused, or the state could not be read or saved.
public enum ControlFailure: Error, Sendable, Equatable {
    case refused(PolicyRefusal)
    case storage(String)
}

/// What the control API needs from the daemon: the engine, its clock and its event log.
public protocol PolicyAccess: Sendable {
    /// How much faster than real time policy time runs (`--time-scale`).
    var timeScale: Double { get }

    /// Runs `action` on the engine at the current policy time and saves the outcome (the state even
    /// when the action is refused, as a refusal may count, like a wrong phrase) before returning.
    func perform<Result: Sendable>(
        _ action: (inout PolicyEngine, Instant) throws(PolicyRefusal) -> Result
    ) throws(ControlFailure) -> Result

    /// Reads the engine at the current policy time.
    func read<Result: Sendable>(_ body: (PolicyEngine, Instant) -> Result) -> Result

    /// Logged events at or after `since`, oldest first, at most the `limit` newest.
    func events(since: Instant, limit: Int) throws(ControlFailure) -> [PolicyEvent]

    /// The backends lockr drives and how each is doing.
    func backends() -> [BackendBody]

    /// A warning when policy time and the wall clock disagree by more than a minute, else nil.
    func clockDrift() -> String?

    /// Each app's group ("social", "video", ...), by id.
    func appGroups() -> [String: String]
}

extension PolicyAccess {
    /// Checks the PIN a request carries (`X-Lockr-PIN`): true when it is the household's; false when
    /// none was given or none is set. A wrong one is counted (5 wrong in a row start growing
    /// lockouts, kept across restarts) and refused. The slow hash runs outside the engine's lock.
    public func verifyPIN(_ presented: String?) throws(ControlFailure) -> Bool {
        guard let presented, let record = read({ engine, _ in engine.pin }) else { return false }
        try perform { engine, now throws(PolicyRefusal) in try engine.checkPinAllowed(at: now) }
        let correct = (try? PinHash.matches(presented, record)) ?? false
        try perform { engine, now throws(PolicyRefusal) in
            engine.notePinEntry(correct: correct, at: now)
            guard correct else {
                let failures = engine.pin?.failures ?? 0
                throw .wrongPin(failures: failures, lockout: PinRecord.lockout(afterFailures: failures))
            }
        }
        return true
    }
}
