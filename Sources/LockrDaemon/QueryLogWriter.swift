import DNSProxy
import DNSWire
import Foundation
import LockrStore
import Logging
import NIOCore
import NIOPosix

/// Takes the query log's batches from the journal every quarter second and writes them on a thread
/// of its own; prunes what is past the retention every ten minutes. A batch that cannot be written
/// (a full disk, a locked database) is dropped and counted, and said once a minute at most: the DNS
/// path never waits for the log.
final class QueryLogWriter: Sendable {
    let journal: QueryJournal
    let store: QueryLogStore
    private let retention: Duration
    private let logger: Logger
    private let thread = NIOThreadPool(numberOfThreads: 1)

    static let interval: Duration = .milliseconds(250)
    static let pruneInterval: Duration = .seconds(600)

    init(journal: QueryJournal, store: QueryLogStore, retention: Duration, logger: Logger) {
        self.journal = journal
        self.store = store
        self.retention = retention
        self.logger = logger
    }

    /// Writes until cancelled, then writes what is left.
    func run() async {
        thread.start()
        var formatter = JournalFormatter()
        var lastPrune: ContinuousClock.Instant?
        var lastComplaint: ContinuousClock.Instant?
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.interval)
            await write(&formatter, lastComplaint: &lastComplaint)
            if lastPrune.map({ .now - $0 >= Self.pruneInterval }) ?? true {
                lastPrune = .now
                await prune()
            }
        }
        await write(&formatter, lastComplaint: &lastComplaint)
        try? await thread.shutdownGracefully()
    }

    private func write(_ formatter: inout JournalFormatter, lastComplaint: inout ContinuousClock.Instant?) async {
        let batches = journal.take()
        guard !batches.isEmpty else { return }
        let (rows, counts) = formatter.format(batches)
        let entries = batches.reduce(0) { $0 + $1.entries.count }
        let store = self.store
        do {
            try await thread.runIfActive { try store.append(rows, counts: counts) }
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

    private func prune() async {
        let now = JournalFormatter.nowMilliseconds()
        let store = self.store
        let before = now - retention.milliseconds
        let countsBefore = now - QueryLogStore.countsRetention.milliseconds
        do {
            _ = try await thread.runIfActive { try store.prune(before: before, countsBefore: countsBefore) }
        } catch {
            logger.warning("cannot prune the query log", metadata: ["error": "\(error)"])
        }
    }
}

/// Turns journal entries into query log rows and hourly counts, remembering the text of addresses
/// and types it has formatted.
struct JournalFormatter {
    private var addresses: [UInt128: String] = [:]
    private var types: [UInt16: String] = [:]
    private var upstreams: [SocketAddress: String] = [:]

    mutating func format(_ batches: [JournalBatch]) -> (rows: [QueryLogRow], counts: [QueryCount: Int]) {
        if addresses.count > 4_096 { addresses = [:] }
        var rows: [QueryLogRow] = []
        var counts: [QueryCount: Int] = [:]
        for batch in batches {
            for entry in batch.entries {
                let person = batch.logging.name(of: entry.client.person)
                let hour = entry.unixMilliseconds - entry.unixMilliseconds % 3_600_000
                counts[QueryCount(hour: hour, person: person, outcome: entry.outcome.label), default: 0] += 1
                guard entry.kept else { continue }
                rows.append(
                    QueryLogRow(
                        at: entry.unixMilliseconds, client: addressText(entry.client), mac: entry.client.mac?.description,
                        person: person, name: batch.name(of: entry) ?? "", type: typeText(entry.type),
                        outcome: entry.outcome.label, reason: batch.reason(of: entry), app: entry.app,
                        upstream: entry.upstream.map { upstreamText($0) },
                        latencyMicroseconds: entry.latencyMicroseconds == 0 ? nil : Int(entry.latencyMicroseconds)))
            }
        }
        return (rows, counts)
    }

    private mutating func addressText(_ client: QueryClient) -> String {
        if let text = addresses[client.address] { return text }
        let text = client.addressText
        addresses[client.address] = text
        return text
    }

    private mutating func typeText(_ type: UInt16) -> String {
        guard type != 0 else { return "-" }
        if let text = types[type] { return text }
        let text = RecordType.mnemonic(type)
        types[type] = text
        return text
    }

    private mutating func upstreamText(_ address: SocketAddress) -> String {
        if let text = upstreams[address] { return text }
        let text = AddressText.format(address)
        upstreams[address] = text
        return text
    }

    static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}

/// The query log's parts: where the DNS path hands entries over, the database, and how long
/// entries are kept.
struct QueryLog: Sendable {
    let journal: QueryJournal
    let store: QueryLogStore
    let retention: Duration

    /// The query log of `config` in its state directory, or nil when it is off.
    init?(config: LockrConfiguration) throws(StoreError) {
        guard config.queryLog.enabled, config.answersDNS else { return nil }
        journal = QueryJournal()
        store = try QueryLogStore(path: config.stateDirectory + "/queries.sqlite")
        retention = config.queryLog.retention
    }

    /// What the DNS pipeline tells the log about `household`'s people.
    static func logging(_ config: LockrConfiguration, household: Household) -> QueryLogging? {
        guard config.queryLog.enabled else { return nil }
        let levels = Dictionary(
            config.household.map { ($0.name, $0.queryLogPrivacy ?? config.queryLog.privacy) }, uniquingKeysWith: { a, _ in a })
        let everyone = household.everyone.map(\.name)
        return QueryLogging(
            privacy: everyone.map { levels[$0] ?? config.queryLog.privacy }, people: everyone)
    }
}
