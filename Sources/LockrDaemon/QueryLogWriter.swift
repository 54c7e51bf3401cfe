import BackgroundThreads
import DNSProxy
import LockrStore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Takes the query log's batches from the journal every quarter second and formats and writes them
/// on a thread of its own, which yields to the DNS event loops; prunes what is past the retention
/// every ten minutes, and the oldest queries when the log outgrows its size every five seconds (so
/// that a device asking unique names cannot fill the disk), giving the space back. A batch that
/// cannot be written (a full disk, a locked database) is dropped and counted, and said once a minute
/// at most: the DNS path never waits for the log.
final class QueryLogWriter: Sendable {
    let journal: QueryJournal
    let store: QueryLogStore
    private let retention: Duration
    private let maximumBytes: Int
    private let logger: Logger
    private let thread = NIOThreadPool(numberOfThreads: 1)
    /// Used only on `thread`.
    private let formatter = NIOLockedValueBox(JournalFormatter())

    static let interval: Duration = .milliseconds(250)
    static let pruneInterval: Duration = .seconds(600)
    static let sizeInterval: Duration = .seconds(5)

    init(journal: QueryJournal, store: QueryLogStore, retention: Duration, maximumBytes: Int, logger: Logger) {
        self.journal = journal
        self.store = store
        self.retention = retention
        self.maximumBytes = maximumBytes
        self.logger = logger
    }

    /// Writes until cancelled, then writes what is left.
    func run() async {
        thread.start()
        // A loop woken by a query takes the CPU from the writer at once: formatting and storing a
        // quarter second's queries had shown as the slowest answers at 10k queries a second. On a
        // machine kept full the writer still gets a share; what it cannot keep up with is dropped
        // by the journal's bound and counted.
        thread.submit { _ in BackgroundThread.become("lockr-querylog", precedence: .lowest) }
        var lastPrune: ContinuousClock.Instant?
        var lastSizeCheck: ContinuousClock.Instant?
        var lastComplaint: ContinuousClock.Instant?
        var trimmed = Trimmed()
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            await write(lastComplaint: &lastComplaint)
            if lastPrune.map({ .now - $0 >= Self.pruneInterval }) ?? true {
                lastPrune = .now
                await prune()
            }
            if lastSizeCheck.map({ .now - $0 >= Self.sizeInterval }) ?? true {
                lastSizeCheck = .now
                await keepToSize(&trimmed)
            }
        }
        await write(lastComplaint: &lastComplaint)
        try? await thread.shutdownGracefully()
    }

    private func write(lastComplaint: inout ContinuousClock.Instant?) async {
        let batches = journal.take()
        guard !batches.isEmpty else { return }
        let entries = batches.reduce(0) { $0 + $1.entries.count }
        let (store, formatter) = (self.store, self.formatter)
        do {
            try await thread.runEvenIfCancelled {
                let (blobs, counts) = formatter.withLockedValue { $0.encode(batches) }
                try store.append(blobs, counts: counts)
            }
        } catch {
            journal.noteDropped(entries)
            if lastComplaint.map({ .now - $0 >= .seconds(60) }) ?? true {
                lastComplaint = .now
                logger.warning(
                    "query log entries dropped: cannot write the query log",
                    metadata: ["error": "\(error)", "dropped-so-far": "\(journal.dropped)"])
            }
        }
    }

    /// Queries dropped for size since it was last said, and when that was.
    private struct Trimmed {
        var queries = 0
        var said: ContinuousClock.Instant?
    }

    /// Drops the oldest queries when the log outgrows `maximumBytes`; says so once a minute at most.
    private func keepToSize(_ trimmed: inout Trimmed) async {
        let (store, maximumBytes) = (self.store, self.maximumBytes)
        do {
            trimmed.queries += try await thread.runIfActive { try store.limitSize(to: maximumBytes) }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("cannot keep the query log to its size", metadata: ["error": "\(error)"])
        }
        guard trimmed.queries > 0, trimmed.said.map({ .now - $0 >= .seconds(60) }) ?? true else { return }
        logger.warning(
            "query log at its size limit: dropped the oldest queries",
            metadata: ["dropped": "\(trimmed.queries)", "max-size": "\(maximumBytes >> 20)MB"])
        trimmed = Trimmed(queries: 0, said: .now)
    }

    private func prune() async {
        let now = PolicyClock.wallMilliseconds()
        let store = self.store
        let before = now - retention.milliseconds
        let countsBefore = now - QueryLogStore.countsRetention.milliseconds
        do {
            _ = try await thread.runIfActive { try store.prune(before: before, countsBefore: countsBefore) }
        } catch is CancellationError {
            // Stopping before the first prune ran: the next start prunes.
        } catch {
            logger.warning("cannot prune the query log", metadata: ["error": "\(error)"])
        }
    }
}

/// Turns journal entries into the query log's compact batches and hourly counts, remembering the
/// text of addresses, types and upstreams it has formatted.
struct JournalFormatter {
    private var upstreams: [SocketAddress: String] = [:]

    /// Counted per hour, person number and outcome: cheap keys, turned into names once per write.
    private struct CountKey: Hashable {
        let hour: Int64
        let person: Int
        let outcome: String
    }

    mutating func encode(_ batches: [JournalBatch]) -> (blobs: [QueryLogBlob], counts: [QueryCount: Int]) {
        var blobs: [QueryLogBlob] = []
        var builder = QueryLogBlobBuilder()
        var counts: [QueryCount: Int] = [:]
        for batch in batches {
            var batchCounts: [CountKey: Int] = [:]
            // Neighbouring entries mostly share their key: counted in a run, added when it ends.
            var run: (key: CountKey, count: Int)?
            for entry in batch.entries {
                let hour = entry.unixMilliseconds - entry.unixMilliseconds % 3_600_000
                let key = CountKey(hour: hour, person: entry.client.person, outcome: entry.outcome.kind.rawValue)
                if let current = run, current.key == key {
                    run!.count += 1
                } else {
                    if let current = run { batchCounts[current.key, default: 0] += current.count }
                    run = (key, 1)
                }
                guard entry.kept else { continue }
                if builder.count == QueryLogStore.batchLimit {
                    blobs.append(builder.build())
                    builder = QueryLogBlobBuilder()
                }
                builder.append(
                    at: entry.unixMilliseconds, address: entry.client.address, mac: entry.client.mac?.value,
                    person: batch.logging.name(of: entry.client.person), wireName: batch.wireName(of: entry),
                    type: entry.type, outcome: entry.outcome.kind.rawValue,
                    reason: batch.explanation(of: entry).map(Self.reason) ?? entry.safeSearch.map { .text($0.text) },
                    app: entry.app, upstream: entry.upstream.map { upstreamText($0) },
                    latencyMicroseconds: entry.latencyMicroseconds == 0 ? nil : entry.latencyMicroseconds)
            }
            if let current = run { batchCounts[current.key, default: 0] += current.count }
            for (key, count) in batchCounts {
                counts[
                    QueryCount(hour: key.hour, person: batch.logging.name(of: key.person), outcome: key.outcome),
                    default: 0] +=
                    count
            }
        }
        if builder.count > 0 { blobs.append(builder.build()) }
        return (blobs, counts)
    }

    private static func reason(_ explanation: BlockExplanation) -> BlockedReason {
        switch explanation {
        case .text(let text): .text(text)
        case .domainRule(let prefix, let length, let source):
            .domainRule(prefix: prefix, listedWireLength: length, source: source)
        }
    }

    private mutating func upstreamText(_ address: SocketAddress) -> String {
        if let text = upstreams[address] { return text }
        let text = AddressText.format(address)
        upstreams[address] = text
        return text
    }
}

extension NIOThreadPool {
    /// Runs `body` on the pool and waits for it, whether or not the waiting task is cancelled
    /// (`runIfActive` skips the work of a cancelled task): the daemon's stop cancels the writer, and
    /// what it writes then is what was answered last. Throws `CancellationError` only once the pool
    /// itself is shut down.
    fileprivate func runEvenIfCancelled<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { finished in
            submit { state in
                switch state {
                case .active: finished.resume(with: Result(catching: body))
                case .cancelled: finished.resume(throwing: CancellationError())
                }
            }
        }
    }
}

/// The query log's parts: where the DNS path hands entries over, the database, and how long
/// entries are kept.
struct QueryLog: Sendable {
    let journal: QueryJournal
    let store: QueryLogStore
    let retention: Duration
    let maximumBytes: Int

    /// The query log of `config` in its state directory, or nil when it is off.
    init?(config: LockrConfiguration) throws(StoreError) {
        guard config.queryLog.enabled, config.answersDNS else { return nil }
        journal = QueryJournal()
        store = try QueryLogStore(path: config.stateDirectory + "/queries.sqlite")
        retention = config.queryLog.retention
        maximumBytes = config.queryLog.maximumBytes
    }

    /// What the DNS pipeline tells the log about `household`'s people: names and each one's
    /// privacy as `config` has it (a reload changes them; whether there is a log at all is decided
    /// at start).
    static func logging(_ config: LockrConfiguration, household: Household) -> QueryLogging {
        let levels = Dictionary(
            config.household.map { ($0.name, $0.queryLogPrivacy ?? config.queryLog.privacy) },
            uniquingKeysWith: { a, _ in a })
        let everyone = household.everyone.map(\.name)
        return QueryLogging(
            privacy: everyone.map { levels[$0] ?? config.queryLog.privacy }, people: everyone)
    }
}
