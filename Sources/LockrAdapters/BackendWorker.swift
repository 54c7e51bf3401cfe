import Foundation
import LockrPolicy
import LockrStore
import Logging
import Synchronization

/// How a backend is doing, for `lockr status`.
public struct BackendHealth: Sendable, Equatable {
    public enum State: String, Sendable {
        /// Nothing tried yet.
        case starting
        /// The last call succeeded and lockr's blocks are in force.
        case ok
        /// Reachable and in sync, but the backend's own switches keep lockr's blocks from working.
        case notEnforcing = "not_enforcing"
        /// The last call failed; retrying with backoff.
        case failing
    }

    public let name: String
    public let kind: BackendKind
    public var state = State.starting
    /// Changes queued and not yet delivered.
    public var pending = 0
    /// When the oldest undelivered change was queued: the lag is now minus this.
    public var oldestPending: Date?
    public var lastSuccess: Date?
    public var lastError: String?
    public var nextRetry: Date?
    /// Writes made by reconciling (drift repaired) since start.
    public var repairs = 0
    /// What the last sync left alone, and why (at most 5).
    public var notes: [String] = []
    /// Why lockr's blocks are not in force (state `notEnforcing`).
    public var notEnforcing: [String] = []
    /// Whether lockr meters usage from this backend's query log.
    public var metering = false
    /// Why the query log could not be read last time, if it could not.
    public var logError: String?
}

/// Timing of delivery, retries and reconciling.
public struct AdapterTiming: Sendable, Equatable {
    /// First retry delay; doubled after each failure up to `maximumBackoff`.
    public var initialBackoff: Duration = .seconds(1)
    public var maximumBackoff: Duration = .seconds(60)
    /// How often each backend is compared with the desired state when nothing changes.
    public var reconcileInterval: Duration = .seconds(60)
    /// How often query logs are read for metering.
    public var logInterval: Duration = .seconds(10)
    /// How long one request to a backend may take.
    public var requestTimeout: Duration = .seconds(10)

    public init() {}

    /// The wait after `failures` failures in a row, with ±20% jitter so that backends do not retry in
    /// lock step.
    func backoff(after failures: Int) -> Duration {
        let base = initialBackoff * Int(1 << min(failures - 1, 20))
        let capped = min(base, maximumBackoff)
        return capped * Double.random(in: 0.8...1.2)
    }
}

/// Delivers one backend's outbox in order, retrying with backoff, and reconciles it when idle.
final class BackendWorker: Sendable {
    let backend: any Backend
    private let outbox: OutboxStore
    private let timing: AdapterTiming
    private let desired: @Sendable () -> BlockSnapshot?
    private let logger: Logger
    let health: Mutex<BackendHealth>
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(
        backend: any Backend, kind: BackendKind, outbox: OutboxStore, timing: AdapterTiming,
        desired: @escaping @Sendable () -> BlockSnapshot?, logger: Logger
    ) {
        self.backend = backend
        self.outbox = outbox
        self.timing = timing
        self.desired = desired
        self.logger = logger
        health = Mutex(BackendHealth(name: backend.name, kind: kind))
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks the worker to look at its outbox now.
    func nudge() { wake.yield() }

    func run() async {
        var failures = 0
        var nextReconcile = ContinuousClock.now
        var wakes = wakeups.makeAsyncIterator()
        while !Task.isCancelled {
            let outcome = await step(reconcileDue: ContinuousClock.now >= nextReconcile)
            switch outcome {
            case .delivered:
                failures = 0
                continue
            case .reconciled:
                failures = 0
                nextReconcile = .now + timing.reconcileInterval
            case .idle:
                break
            case .failed:
                failures += 1
                let delay = timing.backoff(after: failures)
                health.withLock { $0.nextRetry = Date() + Double(delay.milliseconds) / 1000 }
                try? await Task.sleep(for: delay)
                continue
            }
            // Sleep until a change arrives or the next reconcile is due (the timer wakes too).
            let wait = nextReconcile - .now
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [wake] in
                    try? await Task.sleep(for: max(wait, .milliseconds(10)))
                    wake.yield()
                }
                _ = await wakes.next()
                group.cancelAll()
            }
        }
    }

    private enum Outcome {
        case delivered, reconciled, idle, failed
    }

    private func step(reconcileDue: Bool) async -> Outcome {
        let pending: [OutboxEntry]
        do { pending = try outbox.pending(for: backend.name) } catch {
            fail(String(describing: error), entry: nil)
            return .failed
        }
        updatePending(pending)
        if let entry = backend.deliversEveryChange ? pending.first : pending.last {
            guard let change = try? JSONDecoder().decode(BlockChange.self, from: entry.payload) else {
                logger.error(
                    "dropping an unreadable outbox entry",
                    metadata: ["backend": "\(backend.name)", "id": "\(entry.id)"])
                try? outbox.complete(entry.id)
                return .delivered
            }
            do throws(BackendError) {
                let report = try await backend.apply(change)
                do { try outbox.complete(through: entry.id, for: backend.name) } catch {
                    fail(String(describing: error), entry: nil)
                    return .failed
                }
                succeed(report, repairing: false)
                updatePending(pending.filter { $0.id > entry.id })
                return .delivered
            } catch {
                fail(error.description, entry: entry)
                return .failed
            }
        }
        guard reconcileDue, let snapshot = desired() else { return .idle }
        do throws(BackendError) {
            let report = try await backend.reconcile(snapshot)
            if report.writes > 0 {
                logger.notice("repaired drift", metadata: ["backend": "\(backend.name)", "writes": "\(report.writes)"])
            }
            succeed(report, repairing: true)
            return .reconciled
        } catch {
            fail(error.description, entry: nil)
            return .failed
        }
    }

    private func updatePending(_ pending: [OutboxEntry]) {
        health.withLock {
            $0.pending = pending.count
            $0.oldestPending = pending.first?.created
        }
    }

    private func succeed(_ report: SyncReport, repairing: Bool) {
        let (recovered, enforcementBefore) = health.withLock { health -> (Bool, [String]) in
            let recovered = health.state == .failing
            let before = health.notEnforcing
            health.state = report.notEnforcing.isEmpty ? .ok : .notEnforcing
            health.lastSuccess = Date()
            health.lastError = nil
            health.nextRetry = nil
            health.notes = Array(report.notes.prefix(5))
            health.notEnforcing = report.notEnforcing
            if repairing { health.repairs += report.writes }
            return (recovered, before)
        }
        if recovered { logger.notice("backend reachable again", metadata: ["backend": "\(backend.name)"]) }
        // Once per episode: when the reasons appear or change, and when they are gone.
        if report.notEnforcing != enforcementBefore {
            if report.notEnforcing.isEmpty {
                logger.notice("backend enforcing lockr's blocks again", metadata: ["backend": "\(backend.name)"])
            } else {
                logger.warning(
                    "backend NOT ENFORCING lockr's blocks",
                    metadata: ["backend": "\(backend.name)", "why": "\(report.notEnforcing.joined(separator: "; "))"])
            }
        }
        for note in report.notes.prefix(5) {
            logger.info("left alone", metadata: ["backend": "\(backend.name)", "note": "\(note)"])
        }
    }

    private func fail(_ reason: String, entry: OutboxEntry?) {
        if let entry { try? outbox.noteFailure(entry.id, reason: reason) }
        let first = health.withLock { health -> Bool in
            let first = health.state != .failing || health.lastError != reason
            health.state = .failing
            health.lastError = reason
            return first
        }
        if first {
            logger.warning(
                "backend call failed; retrying", metadata: ["backend": "\(backend.name)", "error": "\(reason)"])
        }
    }
}
