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
