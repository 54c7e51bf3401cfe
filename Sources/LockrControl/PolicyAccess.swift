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
