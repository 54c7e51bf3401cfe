import DNSFilter
import LockrAdapters
import LockrPolicy
import Logging
import Synchronization

/// What one person has blocked, for the adapters: their guarded apps, those blocked now (guarded or
/// blocked by a schedule or profile), each app's block rules, and their devices as clients (none
/// for the default person).
struct PersonBlockSet {
    let person: String
    let clients: [String]
    let guarded: [String]
    let blocked: [String]
    let rules: [String: [DomainRule]]

    /// The apps to enforce or keep ready: apps a schedule or profile blocks count while they do,
    /// guarded or not.
    var apps: [AppBlock] {
        let blockedSet = Set(blocked)
        let apps = guarded + blocked.filter { !guarded.contains($0) }
        return apps.map { AppBlock(app: $0, blocked: blockedSet.contains($0), rules: rules[$0] ?? []) }
    }
}

/// Turns the policy's blocked apps into block-set snapshots and hands each change to the adapters.
final class BlockSetPublisher: Sendable {
    let hub: AdapterHub
    private let failing = Mutex(false)
    private let logger: Logger

    init(hub: AdapterHub, logger: Logger) {
        self.hub = hub
        self.logger = logger
    }

    /// Publishes everyone's block set at policy time `now`: the default person's, and each
    /// configured person's with their devices (people without devices have nothing to publish).
    /// Cheap when nothing changed (the hub compares with the last snapshot).
    func publish(_ household: Household, at now: Instant) {
        let devices = household.clientNames()
        let sets = household.everyone.compactMap { person -> PersonBlockSet? in
            let clients = person.number == 0 ? [] : devices[person.name] ?? []
            guard person.number == 0 || !clients.isEmpty else { return nil }
            let (guarded, blocked) = person.read { ($0.guarded, $0.blockedApps(at: now)) }
            return PersonBlockSet(
                person: person.name, clients: clients, guarded: guarded, blocked: blocked,
                rules: person.naming.blockRules)
        }
        publish(default: sets[0], people: Array(sets.dropFirst()))
    }

    private func publish(default defaultSet: PersonBlockSet, people: [PersonBlockSet]) {
        let snapshot = BlockSnapshot(
            apps: defaultSet.apps,
            people: people.map { PersonBlocks(person: $0.person, clients: $0.clients, apps: $0.apps) })
        do {
            if let change = try hub.publish(snapshot) {
                let text = change.changed.map {
                    ($0.person.map { "\($0)." } ?? "")
                        + "\($0.app)=\($0.blocked.map { $0 ? "blocked" : "open" } ?? "unguarded")"
                }
                logger.info(
                    "block set queued for backends",
                    metadata: ["event": "\(change.event)", "changed": "\(text.joined(separator: ","))"])
            }
            if failing.withLock({ $0 }) { logger.notice("outbox writable again") }
            failing.withLock { $0 = false }
        } catch {
            if !failing.withLock({ $0 }) {
                logger.error("cannot queue the block set for backends; retrying", metadata: ["error": "\(error)"])
            }
            failing.withLock { $0 = true }
        }
    }
}
