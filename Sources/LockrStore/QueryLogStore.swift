import Foundation
import GRDB

/// One logged query, as the query log keeps it.
public struct QueryLogRow: Sendable, Equatable, Codable {
    /// Its place in the log: later queries have larger ids (0 until stored).
    public var id: Int64
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

    public init(
        id: Int64 = 0, at: Int64, client: String, mac: String? = nil, person: String, name: String, type: String,
        outcome: String, reason: String? = nil, app: String? = nil, upstream: String? = nil,
        latencyMicroseconds: Int? = nil
    ) {
        self.id = id
        self.at = at
        self.client = client
        self.mac = mac
        self.person = person
        self.name = name
        self.type = type
        self.outcome = outcome
        self.reason = reason
        self.app = app
        self.upstream = upstream
        self.latencyMicroseconds = latencyMicroseconds
    }
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
/// one writer off the DNS path. Queries are pruned after the retention period; the hourly counts
/// stay (for 400 days), as statistics outlive the log.
///
/// A locked database waits at most `busyTimeout` before a write fails: the writer then drops the
/// batch rather than fall behind.
public final class QueryLogStore: Sendable {
    private let database: DatabaseQueue
    public let path: String
    /// How long the hourly counts are kept.
    public static let countsRetention: Duration = .seconds(400 * 86_400)

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
            if let maximumPages { try db.execute(sql: "PRAGMA max_page_count = \(maximumPages)") }
        }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            // Who asked for what: lockr's user only.
            for file in [path, path + "-wal", path + "-shm"] { chmod(file, 0o600) }
            try Self.migrator.migrate(database)
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
        return migrator
    }

    /// Stores `rows` and adds `counts`, in one transaction.
    public func append(_ rows: [QueryLogRow], counts: [QueryCount: Int]) throws(StoreError) {
        try access {
            try database.write { db in
                let insert = try db.cachedStatement(
                    sql: """
                        INSERT INTO queries
                            (at_ms, client, mac, person, name, type, outcome, reason, app, upstream, latency_us)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                for row in rows {
                    insert.setUncheckedArguments([
                        row.at, row.client, row.mac, row.person, row.name, row.type, row.outcome, row.reason, row.app,
                        row.upstream, row.latencyMicroseconds,
                    ])
                    try insert.execute()
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

    /// The newest queries that match `filter`, oldest first.
    public func rows(_ filter: QueryLogFilter) throws(StoreError) -> [QueryLogRow] {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let person = filter.person {
            conditions.append("person = ?")
            arguments.append(person)
        }
        if let client = filter.client {
            conditions.append("(client = ? OR mac = ?)")
            arguments += [client, client.lowercased()]
        }
        if filter.blockedOnly { conditions.append("outcome = 'blocked'") }
        if let since = filter.since {
            conditions.append("at_ms >= ?")
            arguments.append(since)
        }
        if let after = filter.afterID {
            conditions.append("id > ?")
            arguments.append(after)
        }
        let condition = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments.append(max(0, filter.limit))
        return try access {
            try database.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT * FROM queries \(condition) ORDER BY id DESC LIMIT ?",
                    arguments: StatementArguments(arguments)
                ).reversed().map { row in
                    QueryLogRow(
                        id: row["id"], at: row["at_ms"], client: row["client"], mac: row["mac"], person: row["person"],
                        name: row["name"], type: row["type"], outcome: row["outcome"], reason: row["reason"],
                        app: row["app"], upstream: row["upstream"], latencyMicroseconds: row["latency_us"])
                }
            }
        }
    }

    /// Queries per outcome of `person` (everyone's when nil) answered in [from, to).
    public func counts(person: String?, from: Int64, to: Int64) throws(StoreError) -> [String: Int] {
        try access {
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

    /// Deletes queries answered before `before` and counts older than `countsBefore`, a slice at a
    /// time so that the writer is never held up for long. Returns how many queries went.
    @discardableResult
    public func prune(before: Int64, countsBefore: Int64) throws(StoreError) -> Int {
        try access {
            var deleted = 0
            while true {
                let slice = try database.write { db in
                    try db.execute(
                        sql: "DELETE FROM queries WHERE id IN (SELECT id FROM queries WHERE at_ms < ? LIMIT 10000)",
                        arguments: [before])
                    return db.changesCount
                }
                deleted += slice
                if slice < 10_000 { break }
            }
            try database.write { db in
                try db.execute(sql: "DELETE FROM query_counts WHERE hour_ms < ?", arguments: [countsBefore])
            }
            return deleted
        }
    }

    private func access<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw StoreError(path: path, reason: "\(error)", what: "query log") }
    }
}
