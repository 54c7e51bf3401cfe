import DNSFilter
import LockrAdapters
import Logging
import Synchronization

/// Turns the policy's blocked apps into block-set snapshots and hands each change to the adapters.
final class BlockSetPublisher: Sendable {
    let hub: AdapterHub
    private let failing = Mutex(false)
    private let logger: Logger

    init(hub: AdapterHub, logger: Logger) {
        self.hub = hub
        self.logger = logger
    }

    /// Publishes the state of the `guarded` apps and of the others in `blocked` (blocked by a schedule
    /// or profile), each with its block `rules`. Cheap when nothing changed (the hub compares with the
    /// last snapshot).
    func publish(guarded: [String], blocked: [String], rules: [String: [DomainRule]]) {
        let blockedSet = Set(blocked)
        // Apps a schedule or profile blocks are enforced while they do, guarded or not.
        let apps = guarded + blocked.filter { !guarded.contains($0) }
        let snapshot = BlockSnapshot(
            apps: apps.map { AppBlock(app: $0, blocked: blockedSet.contains($0), rules: rules[$0] ?? []) })
        do {
            if let change = try hub.publish(snapshot) {
                let text = change.changed.map {
                    "\($0.app)=\($0.blocked.map { $0 ? "blocked" : "open" } ?? "unguarded")"
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
