/// The event log's entries the policy wrote since the daemon last took them: each part of the
/// policy writes into the one journal it is handed.
struct PolicyJournal: Sendable {
    private var events: [PolicyEvent] = []
    /// The action being applied, which every entry written meanwhile names.
    var action: ActionName?

    mutating func log(_ type: EventType, _ app: String?, _ detail: String, at now: Instant) {
        events.append(PolicyEvent(at: now, type: type, app: app, detail: detail, action: action))
    }

    /// The entries written since the last call, oldest first.
    mutating func drain() -> [PolicyEvent] {
        defer { events.removeAll() }
        return events
    }
}

/// What the daemon notices about a person and has their event log say, not being an action of
/// theirs: a device that stopped asking lockr, and policy time that did not follow the clock.
public enum PolicyNote: Sendable, Equatable {
    /// A device of this person stopped asking lockr while still on the network: which, and since when.
    case protectionOff(String)
    /// That device asks again.
    case protectionBack(String)
    /// The wall clock jumped by this much (back when negative); policy time kept its own pace.
    case clockJump(Duration)
    /// A demo's `--start-at` moved policy time on from the last time the state saw.
    case policyTimeMoved(from: Instant)

    /// The entry it writes at `now`.
    func entry(at now: Instant) -> (type: EventType, detail: String) {
        switch self {
        case .protectionOff(let detail): (.protectionOff, detail)
        case .protectionBack(let detail): (.protectionBack, detail)
        case .clockJump(let jump):
            (
                .clockJump,
                "wall clock jumped \(jump < .zero ? "back" : "forward") by \((jump < .zero ? .zero - jump : jump).spoken); "
                    + "policy time kept its own pace"
            )
        case .policyTimeMoved(let last):
            (.clockJump, "policy time moved forward by \((now - last).spoken) (--start-at, a demo's clock)")
        }
    }
}
