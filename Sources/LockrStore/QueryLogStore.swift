import DNSWire
import Foundation
import GRDB

/// One logged query, as the query log keeps it.
public struct QueryLogRow: Sendable, Equatable, Codable {
    /// Its place in the log: later queries have larger ids (0 until stored).
    public var id: Int64 = 0
    /// When it was answered, milliseconds since 1970.
    public var at: Int64
    /// The device's address ("192.168.1.20", "fd00::7").
    public var client: String
    public var mac: String?
    public var person: String
    /// The name asked for, lower case, with its final dot.
    public var name: String
    /// "A", "AAAA", "HTTPS", "TYPE65534".
    public var type: String
    /// blocked, cached, forwarded, stale, synthesized, refused, unsupported, malformed, failed.
    public var outcome: String
    /// Why it was blocked.
    public var reason: String?
    /// The app whose name it is.
    public var app: String?
    /// The upstream that answered ("192.0.2.53:53").
    public var upstream: String?
    /// From arrival to answer, for forwarded queries.
    public var latencyMicroseconds: Int?
}

/// Queries counted per hour, person and outcome: what the log keeps of every query, whatever the
/// privacy level, and for longer than the queries themselves.
public struct QueryCount: Sendable, Equatable, Hashable {
    /// The start of the hour, milliseconds since 1970.
    public var hour: Int64
    public var person: String
    public var outcome: String

    public init(hour: Int64, person: String, outcome: String) {
        self.hour = hour
        self.person = person
        self.outcome = outcome
    }
}

/// Which logged queries to read.
public struct QueryLogFilter: Sendable, Equatable {
    public var person: String?
    /// An address or MAC address, as logged.
    public var client: String?
    public var blockedOnly = false
    /// Only queries answered at or after this time (ms since 1970).
    public var since: Int64?
    /// Only queries logged after this id (following the log).
    public var afterID: Int64?
    /// At most this many, the newest.
    public var limit = 100

    public init(
        person: String? = nil, client: String? = nil, blockedOnly: Bool = false, since: Int64? = nil,
        afterID: Int64? = nil, limit: Int = 100
    ) {
        self.person = person
        self.client = client
        self.blockedOnly = blockedOnly
        self.since = since
        self.afterID = afterID
        self.limit = limit
    }
}

/// The query log: a SQLite database of its own beside the state database, written in batches by
/// one writer off the DNS path, each batch one row (`QueryLogBlob`). Batches are pruned once their
/// last query is past the retention period, and the oldest when the log outgrows its size
/// (`limitSize(to:)`), the freed pages going back to the file system; the hourly counts stay (for
/// 400 days), as statistics outlive the log.
///
/// A query's id is its batch's row id times 65536 plus its place in the batch, so ids grow with
/// time and `afterID` follows the log.
///
/// A locked database waits at most `busyTimeout` before a write fails: the writer then drops the
/// batch rather than fall behind.
public final class QueryLogStore: Sendable {
    let database: DatabaseQueue
    public let path: String
    /// How long the hourly counts are kept.
    public static let countsRetention: Duration = .seconds(400 * 86_400)
    /// Queries one batch holds at most.
    public static let batchLimit = 65_536
    /// The size the write-ahead log is cut back to after a checkpoint.
    static let walSizeLimit = 4 * 1024 * 1024
    /// SQLite's page cache for the log, in kilobytes.
    static let pageCacheKilobytes = 256

    /// Opens (or creates) the query log at `path`.
    /// - Parameter maximumPages: a cap on the file's size in pages (SQLite's `max_page_count`),
    ///   for tests of a full disk; nil for none.
    public init(path: String, busyTimeout: TimeInterval = 0.2, maximumPages: Int? = nil) throws(StoreError) {
        self.path = path
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Freed pages can be given back (taking effect on a new file; an older one is vacuumed
            // once below), and the WAL is cut back to this after each checkpoint.
            try db.execute(sql: "PRAGMA auto_vacuum = INCREMENTAL")
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walSizeLimit)")
            // Writes append and reads are a page of the log at a time: a small page cache does
            // (SQLite's default of 2 MB stayed resident once a start's pruning had filled it).
            try db.execute(sql: "PRAGMA cache_size = -\(Self.pageCacheKilobytes)")
            if let maximumPages { try db.execute(sql: "PRAGMA max_page_count = \(maximumPages)") }
        }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            // Who asked for what: lockr's user only.
            for file in [path, path + "-wal", path + "-shm"] { chmod(file, 0o600) }
            try Self.migrator.migrate(database)
            // Once, for a log an older lockr made; without room for the copy VACUUM makes it is left
            // as it is (freed pages are then reused, not given back) and tried at the next start.
            try? database.writeWithoutTransaction { db in
                if try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") != 2 { try db.execute(sql: "VACUUM") }
            }
        } catch {
            throw StoreError(path: path, reason: "\(error)", what: "query log")
        }
    }

    /// The schema, one migration per step. Never edit a migration once it has shipped.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1 queries and hourly counts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE queries (
                        id INTEGER PRIMARY KEY,
                        at_ms INTEGER NOT NULL,
                        client TEXT NOT NULL,
                        mac TEXT,
                        person TEXT NOT NULL,
                        name TEXT NOT NULL,
                        type TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        reason TEXT,
                        app TEXT,
                        upstream TEXT,
                        latency_us INTEGER
                    );
                    CREATE INDEX queries_by_time ON queries (at_ms);
                    CREATE TABLE query_counts (
                        hour_ms INTEGER NOT NULL,
                        person TEXT NOT NULL,
                        outcome TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (hour_ms, person, outcome)
                    ) WITHOUT ROWID;
                    """)
        }
        // A row per query cost more than answering it: queries are kept in compact batches. The
        // few hours a row-per-query log existed are not carried over.
        migrator.registerMigration("2 queries in batches") { db in
            try db.execute(
                sql: """
                    DROP TABLE queries;
                    CREATE TABLE batches (
                        id INTEGER PRIMARY KEY,
                        first_ms INTEGER NOT NULL,
                        last_ms INTEGER NOT NULL,
                        entries INTEGER NOT NULL,
                        data BLOB NOT NULL
                    );
                    CREATE INDEX batches_by_end ON batches (last_ms);
                    """)
        }
        return migrator
    }

    /// Stores `blobs` (each of at most `batchLimit` queries; empty ones are skipped) and adds
    /// `counts`, in one transaction.
    public func append(_ blobs: [QueryLogBlob], counts: [QueryCount: Int]) throws(StoreError) {
        try access {
            try database.write { db in
                for blob in blobs where blob.count > 0 {
                    precondition(blob.count <= Self.batchLimit, "a batch holds at most \(Self.batchLimit) queries")
                    try db.execute(
                        sql: "INSERT INTO batches (first_ms, last_ms, entries, data) VALUES (?, ?, ?, ?)",
                        arguments: [blob.first, blob.last, blob.count, Data(blob.bytes)])
                }
                let count = try db.cachedStatement(
                    sql: """
                        INSERT INTO query_counts (hour_ms, person, outcome, count) VALUES (?, ?, ?, ?)
                        ON CONFLICT (hour_ms, person, outcome) DO UPDATE SET count = count + excluded.count
                        """)
                for (key, number) in counts {
                    count.setUncheckedArguments([key.hour, key.person, key.outcome, number])
                    try count.execute()
                }
            }
        }
    }

    /// The newest queries that match `filter`, oldest first. Batches are read newest first until
    /// `limit` queries match.
    public func rows(_ filter: QueryLogFilter) throws(StoreError) -> [QueryLogRow] {
        let limit = max(0, filter.limit)
        guard limit > 0 else { return [] }
        let client = filter.client?.lowercased()
        func matches(_ row: QueryLogRow) -> Bool {
            (filter.person == nil || row.person == filter.person)
                && (client == nil || row.client == client || row.mac == client)
                && (!filter.blockedOnly || row.outcome == AnswerOutcome.blocked.rawValue)
                && (filter.since.map { row.at >= $0 } ?? true)
                && (filter.afterID.map { row.id > $0 } ?? true)
        }
        return try access {
            try database.read { db in
                var found: [QueryLogRow] = []
                let cursor = try Row.fetchCursor(
                    db,
                    sql:
                        "SELECT id, first_ms, last_ms, entries, data FROM batches WHERE last_ms >= ? AND id >= ? ORDER BY id DESC",
                    arguments: [filter.since ?? .min, (filter.afterID ?? 0) >> 16])
                while found.count < limit, let batch = try cursor.next() {
                    let blob = QueryLogBlob(
                        bytes: [UInt8](batch["data"] as Data), count: batch["entries"], first: batch["first_ms"],
                        last: batch["last_ms"])
                    let id: Int64 = batch["id"]
                    // A batch that does not decode is skipped: the rest of the log still reads.
                    guard let rows = try? blob.rows(firstID: id << 16) else { continue }
                    found += rows.reversed().lazy.filter(matches).prefix(limit - found.count)
                }
                return found.reversed()
            }
        }
    }

    /// Queries per outcome of `person` (everyone's when nil) answered in [from, to), to the hour:
    /// the hours that begin in it, and the one `from` falls in.
    public func counts(person: String?, from: Int64, to: Int64) throws(StoreError) -> [String: Int] {
        let from = from - ((from % 3_600_000) + 3_600_000) % 3_600_000
        return try access {
            try database.read { db in
                var counts: [String: Int] = [:]
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        SELECT outcome, SUM(count) AS total FROM query_counts
                        WHERE hour_ms >= ? AND hour_ms < ? AND (? IS NULL OR person = ?) GROUP BY outcome
                        """,
                    arguments: [from, to, person, person])
                {
                    counts[row["outcome"]] = row["total"]
                }
                return counts
            }
        }
    }

    /// Deletes the batches whose last query was answered before `before`, and counts older than
    /// `countsBefore`, and gives the space back. Returns how many queries went.
    @discardableResult
    public func prune(before: Int64, countsBefore: Int64) throws(StoreError) -> Int {
        try access {
            let deleted = try database.write { db in
                let deleted =
                    try Int.fetchOne(
                        db, sql: "SELECT COALESCE(SUM(entries), 0) FROM batches WHERE last_ms < ?", arguments: [before])
                    ?? 0
                try db.execute(sql: "DELETE FROM batches WHERE last_ms < ?", arguments: [before])
                try db.execute(sql: "DELETE FROM query_counts WHERE hour_ms < ?", arguments: [countsBefore])
                return deleted
            }
            try giveSpaceBack()
            return deleted
        }
    }

    /// The bytes the log's pages hold (the file less its free pages; the WAL aside).
    public func usedBytes() throws(StoreError) -> Int {
        try access { try database.read { db in try Self.usedBytes(db) } }
    }

    /// Deletes the oldest batches until the log holds at most nine tenths of `maximumBytes`, when
    /// it holds more than `maximumBytes`, and gives the space back. Returns how many queries went.
    @discardableResult
    public func limitSize(to maximumBytes: Int) throws(StoreError) -> Int {
        try access {
            let deleted = try database.write { db -> Int in
                let used = try Self.usedBytes(db)
                guard used > maximumBytes else { return 0 }
                let excess = used - maximumBytes * 9 / 10
                // The newest batch whose deletion, with all before it, frees enough (or the last).
                let through =
                    try Int64.fetchOne(
                        db,
                        sql: """
                            SELECT id FROM (SELECT id, SUM(LENGTH(data) + 64) OVER (ORDER BY id) AS freed FROM batches)
                            WHERE freed >= ? ORDER BY id LIMIT 1
                            """, arguments: [excess])
                    ?? Int64.max
                let entries =
                    try Int.fetchOne(
                        db, sql: "SELECT COALESCE(SUM(entries), 0) FROM batches WHERE id <= ?", arguments: [through])
                    ?? 0
                try db.execute(sql: "DELETE FROM batches WHERE id <= ?", arguments: [through])
                return entries
            }
            if deleted > 0 { try giveSpaceBack() }
            return deleted
        }
    }

    /// Returns free pages to the file system and cuts the WAL back.
    private func giveSpaceBack() throws {
        try database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA incremental_vacuum")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    private static func usedBytes(_ db: Database) throws -> Int {
        let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let free = try Int.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
        let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4_096
        return (pages - free) * size
    }

    func access<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw StoreError(path: path, reason: "\(error)", what: "query log") }
    }
}
