import Foundation
import LockrStore
import Logging
import Synchronization

/// The adapter layer: turns each change of the desired block set into an outbox entry per backend,
/// runs one worker per backend to deliver them, and reads query logs for metering.
public final class AdapterHub: Sendable {
    private let workers: [BackendWorker]
    private let outbox: OutboxStore
    private let timing: AdapterTiming
    private let logger: Logger
    private let meteringBackends: Set<String>
    /// The snapshot published last: what every backend must reach.
    private let latest = LatestSnapshot()

    /// `metering` names the backends whose query logs meter usage.
    public init(
        backends: [(any Backend, BackendKind)], outbox: OutboxStore, timing: AdapterTiming, metering: Set<String>,
        logger: Logger
    ) {
        let latest = self.latest
        workers = backends.map { backend, kind in
            BackendWorker(
                backend: backend, kind: kind, outbox: outbox, timing: timing,
                desired: { latest.value.withLock { $0 } }, logger: logger)
        }
        self.outbox = outbox
        self.timing = timing
        self.logger = logger
        meteringBackends = metering
        for worker in workers where metering.contains(worker.backend.name) {
            worker.health.withLock { $0.metering = true }
        }
    }

    public var isEmpty: Bool { workers.isEmpty }

    /// Takes the desired state now. When it differs from the last one (or is the first since start),
    /// the change is queued for every backend (persisted before this returns) and the workers are
    /// woken. Returns the change queued, if any.
    @discardableResult
    public func publish(_ snapshot: BlockSnapshot, at now: Date = Date()) throws(StoreError) -> BlockChange? {
        guard !workers.isEmpty else { return nil }
        let names = workers.map(\.backend.name)
        // Compare, queue and remember under one lock, so that two publishers never queue one change twice.
        let change = try latest.value.withLock { (previous: inout BlockSnapshot?) throws(StoreError) -> BlockChange? in
            guard let change = BlockChange.between(previous, snapshot, at: now) else { return nil }
            try outbox.enqueue((try? JSONEncoder().encode(change)) ?? Data(), for: names, at: now)
            previous = snapshot
            return change
        }
        if change != nil { for worker in workers { worker.nudge() } }
        return change
    }

    /// Each backend's health, in configuration order.
    public func health() -> [BackendHealth] { workers.map { $0.health.withLock { $0 } } }

    /// Delivers and reconciles until cancelled, then ends the backends' sessions; `observe` gets
    /// each metering backend's new queries.
    public func run(observe: @escaping @Sendable (String, [LoggedQuery]) -> Void) async {
        await withDiscardingTaskGroup { tasks in
            for worker in workers {
                tasks.addTask { await worker.run() }
                if meteringBackends.contains(worker.backend.name) {
                    tasks.addTask { await self.readLog(of: worker, observe: observe) }
                }
            }
        }
        // Cancellation would abort the logout requests themselves: end the sessions outside it.
        let backends = workers.map(\.backend)
        await Task {
            for backend in backends {
                do throws(BackendError) {
                    try await backend.close()
                } catch {
                    logger.warning(
                        "could not end the session", metadata: ["backend": "\(backend.name)", "error": "\(error)"])
                }
            }
        }.value
    }

    /// Reads a backend's query log every `logInterval`, from where the last read stopped (kept in
    /// the state database, so queries logged while lockr was down still count).
    private func readLog(of worker: BackendWorker, observe: @Sendable (String, [LoggedQuery]) -> Void) async {
        let backend = worker.backend
        let key = "log-cursor"
        var cursor =
            (try? outbox.value(key, for: backend.name)).flatMap(Double.init).map {
                Date(timeIntervalSince1970: $0)
            } ?? Date()
        var failing = false
        while !Task.isCancelled {
            do throws(BackendError) {
                let queries = try await backend.queries(after: cursor)
                if let last = queries.last?.at {
                    observe(backend.name, queries)
                    cursor = last
                    try? outbox.setValue(String(cursor.timeIntervalSince1970), key, for: backend.name)
                }
                worker.health.withLock { $0.logError = nil }
                if failing { logger.notice("query log readable again", metadata: ["backend": "\(backend.name)"]) }
                failing = false
            } catch {
                if !failing {
                    logger.warning(
                        "cannot read the query log", metadata: ["backend": "\(backend.name)", "error": "\(error)"])
                }
                worker.health.withLock { $0.logError = error.description }
                failing = true
            }
            try? await Task.sleep(for: timing.logInterval)
        }
    }
}

/// The snapshot published last, shared with the workers.
private final class LatestSnapshot: Sendable {
    let value = Mutex<BlockSnapshot?>(nil)
}
