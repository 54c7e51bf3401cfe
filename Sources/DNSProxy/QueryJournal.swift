import DNSWire
import NIOCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How much of a person's queries the query log keeps.
public enum QueryLogPrivacy: String, Sendable, CaseIterable {
    /// Every query, with its name.
    case full
    /// The names of apps only (guarded or not); other queries are only counted.
    case apps
    /// Counts only: queries per hour and outcome, no names, no devices.
    case counts
}

/// What the query log is told about the household: each person's privacy level and name, by
/// person number (`QueryClient.person`; a number past the end is the default person's, 0).
public struct QueryLogging: Sendable {
    public let privacy: [QueryLogPrivacy]
    public let people: [String]

    public init(privacy: [QueryLogPrivacy], people: [String]) {
        precondition(!privacy.isEmpty && privacy.count == people.count, "one level and one name per person")
        self.privacy = privacy
        self.people = people
    }

    @inline(__always)
    func level(of person: Int) -> QueryLogPrivacy { person < privacy.count ? privacy[person] : privacy[0] }

    /// The name of person number `person`.
    public func name(of person: Int) -> String { person < people.count ? people[person] : people[0] }
}

/// What the pipeline learned of a query on its way through, for the query log: the question, who
/// asked and, for the name of an app, which app.
public struct QueryNote: Sendable {
    public internal(set) var query: DNSQuery?
    public internal(set) var client: QueryClient?
    public internal(set) var app: String?
    /// The safe-search answer it got, if its name is one.
    public internal(set) var safeSearch: SafeSearchAnswers.Entry?

    public init() {}
}

/// One answered query as the DNS path noted it; nothing is formatted until the log's writer does it.
public struct JournalEntry: Sendable {
    /// When it was answered: milliseconds since 1970 (the wall clock).
    public let unixMilliseconds: Int64
    public let client: QueryClient
    /// The record type asked for; 0 when the packet was not a readable query.
    public let type: UInt16
    public let outcome: QueryOutcome
    /// The app whose name it was, if any.
    public let app: String?
    /// The safe-search answer it got, if its name is one.
    public let safeSearch: SafeSearchAnswers.Entry?
    /// The upstream that answered, for a forwarded query.
    public let upstream: SocketAddress?
    /// From the query's arrival to its answer, for a query sent upstream; 0 for one answered at once.
    public let latencyMicroseconds: UInt32
    /// Whether the privacy level keeps it whole; otherwise it is only counted.
    public let kept: Bool
    /// Where its name lies in the batch's names (wire format).
    let nameStart: UInt32
    let nameLength: UInt16
}

/// The entries one event loop noted, handed over together with what describes them.
public struct JournalBatch: Sendable {
    public let entries: [JournalEntry]
    private let names: [UInt8]
    private let policy: FilterPolicy
    public let logging: QueryLogging

    init(entries: [JournalEntry], names: [UInt8], policy: FilterPolicy, logging: QueryLogging) {
        self.entries = entries
        self.names = names
        self.policy = policy
        self.logging = logging
    }

    /// The name asked for, in wire form as the client sent it; empty when it was not kept or
    /// there was none.
    public func wireName(of entry: JournalEntry) -> ArraySlice<UInt8> {
        let start = Int(entry.nameStart)
        return names[start..<start + Int(entry.nameLength)]
    }

    /// Why a blocked query was answered locally, in parts (see `FilterPolicy.explanation`).
    public func explanation(of entry: JournalEntry) -> BlockExplanation? {
        guard case .blocked(let reason) = entry.outcome else { return nil }
        return policy.explanation(for: reason, client: entry.client, wireName: wireName(of: entry))
    }
}

/// Where event loops hand the query log's batches to its writer: bounded, so that a writer that
/// cannot keep up (a full disk, a locked database, a slow one) costs entries, never answers. What is
/// dropped is counted.
public final class QueryJournal: Sendable {
    /// Entries held at most, waiting for the writer.
    public let capacity: Int
    private let waiting = Mutex<(batches: [JournalBatch], entries: Int)>(([], 0))
    private let droppedEntries = Atomic<Int>(0)

    public init(capacity: Int = 262_144) { self.capacity = capacity }

    func submit(_ batch: JournalBatch) {
        let accepted = waiting.withLock { waiting in
            guard waiting.entries + batch.entries.count <= capacity else { return false }
            waiting.batches.append(batch)
            waiting.entries += batch.entries.count
            return true
        }
        if !accepted { noteDropped(batch.entries.count) }
    }

    /// Every batch waiting, oldest first.
    public func take() -> [JournalBatch] {
        waiting.withLock { waiting in
            defer { waiting = ([], 0) }
            return waiting.batches
        }
    }

    /// Counts entries the writer could not store.
    public func noteDropped(_ count: Int) { droppedEntries.add(count, ordering: .relaxed) }

    /// Entries dropped since start: the writer was behind or could not write.
    public var dropped: Int { droppedEntries.load(ordering: .relaxed) }

    /// Entries waiting for the writer now.
    public var waitingEntries: Int { waiting.withLock { $0.entries } }
}

/// One event loop's entries on their way to the journal. Confined to its loop: noting a query takes
/// no lock and, once the buffers have grown, allocates nothing.
final class JournalBuffer: @unchecked Sendable {
    private let journal: QueryJournal
    private var entries: [JournalEntry] = []
    private var names: [UInt8] = []
    /// Entries handed over at once; smaller batches go every `flushInterval`.
    static let batchSize = 4_096
    static let flushInterval = TimeAmount.milliseconds(250)

    init(journal: QueryJournal) {
        self.journal = journal
        reserve()
    }

    /// Notes an answered query, as much of it as its person's privacy level keeps.
    @inline(__always)
    func record(
        _ note: QueryNote, source: SocketAddress, outcome: QueryOutcome, pipeline: QueryPipeline,
        upstream: SocketAddress? = nil, latencyMicroseconds: UInt32 = 0
    ) {
        guard let logging = pipeline.logging else { return }
        let client = note.client ?? QueryClient(address: IPAddressBytes.number(of: source) ?? 0)
        let kept: Bool
        switch logging.level(of: client.person) {
        case .full: kept = true
        case .apps: kept = note.app != nil
        case .counts: kept = false
        }
        var nameStart: UInt32 = 0
        var nameLength: UInt16 = 0
        if kept, let query = note.query {
            nameStart = UInt32(names.count)
            nameLength = UInt16(query.nameEnd - DNSLimits.headerSize)
            names.append(contentsOf: query.wireName)
        }
        entries.append(
            JournalEntry(
                unixMilliseconds: Self.wallClockMilliseconds(), client: client, type: note.query?.type ?? 0,
                outcome: outcome, app: note.app, safeSearch: note.safeSearch, upstream: upstream,
                latencyMicroseconds: latencyMicroseconds,
                kept: kept, nameStart: nameStart, nameLength: nameLength))
        if entries.count >= Self.batchSize { flush(pipeline) }
    }

    /// Hands what was noted to the journal, described by `pipeline`, the one it was noted under.
    func flush(_ pipeline: QueryPipeline) {
        guard !entries.isEmpty, let logging = pipeline.logging else { return }
        journal.submit(JournalBatch(entries: entries, names: names, policy: pipeline.policy, logging: logging))
        reserve()
    }

    private func reserve() {
        entries = []
        entries.reserveCapacity(Self.batchSize)
        names = []
        names.reserveCapacity(Self.batchSize * 24)
    }

    @inline(__always)
    static func wallClockMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
