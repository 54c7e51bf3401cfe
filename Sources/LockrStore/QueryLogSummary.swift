import Foundation
import GRDB

/// Queries and blocked ones in one span of time.
public struct QueryTally: Sendable, Equatable {
    public var total: Int
    public var blocked: Int

    public init(total: Int = 0, blocked: Int = 0) {
        self.total = total
        self.blocked = blocked
    }
}

/// What the query log says of a span for the admin's dashboard: the names asked and blocked most,
/// and the clients that asked most, read from the queries kept (a person whose privacy keeps only
/// counts adds none).
public struct QueryLogTops: Sendable {
    public var asked: [(key: String, count: Int)]
    public var blocked: [(key: String, count: Int)]
    /// Clients by address (with their person: "192.168.1.20 (kid)").
    public var clients: [(key: String, count: Int)]
    /// Queries read; `complete` is false when the span held more than were read (the newest count).
    public var scanned: Int
    public var complete: Bool
}

extension QueryLogStore {
    /// Queries and blocked ones of everyone in each hour of [from, to), by the hour's start
    /// (hours with none are left out).
    public func hourlyTallies(from: Int64, to: Int64) throws(StoreError) -> [Int64: QueryTally] {
        try tallies(sql: "SELECT hour_ms AS key, outcome, SUM(count) AS total", from: from, to: to, by: "hour_ms") {
            $0["key"] as Int64
        }
    }

    /// Queries and blocked ones of each person in [from, to), to the hour.
    public func personTallies(from: Int64, to: Int64) throws(StoreError) -> [String: QueryTally] {
        try tallies(sql: "SELECT person AS key, outcome, SUM(count) AS total", from: from, to: to, by: "person") {
            $0["key"] as String
        }
    }

    private func tallies<Key: Hashable>(
        sql select: String, from: Int64, to: Int64, by group: String, key: (Row) -> Key
    ) throws(StoreError) -> [Key: QueryTally] {
        try access {
            try database.read { db in
                var tallies: [Key: QueryTally] = [:]
                for row in try Row.fetchAll(
                    db,
                    sql: select + " FROM query_counts WHERE hour_ms >= ? AND hour_ms < ? GROUP BY \(group), outcome",
                    arguments: [from, to])
                {
                    let total: Int = row["total"]
                    tallies[key(row), default: QueryTally()].total += total
                    if row["outcome"] as String == "blocked" {
                        tallies[key(row), default: QueryTally()].blocked += total
                    }
                }
                return tallies
            }
        }
    }

    /// The `top` names asked and blocked most, and the clients that asked most, among the queries
    /// kept since `since`, newest batch first, stopping once `scanLimit` are read (a batch is read
    /// whole).
    public func tops(since: Int64, top: Int, scanLimit: Int) throws(StoreError) -> QueryLogTops {
        try access {
            try database.read { db in
                var (asked, blocked, clients) = ([String: Int](), [String: Int](), [String: Int]())
                var scanned = 0
                var complete = true
                let cursor = try Row.fetchCursor(
                    db,
                    sql: "SELECT id, first_ms, last_ms, entries, data FROM batches WHERE last_ms >= ? ORDER BY id DESC",
                    arguments: [since])
                while let batch = try cursor.next() {
                    guard scanned < scanLimit else {
                        complete = false
                        break
                    }
                    let blob = QueryLogBlob(
                        bytes: [UInt8](batch["data"] as Data), count: batch["entries"], first: batch["first_ms"],
                        last: batch["last_ms"])
                    guard let rows = try? blob.rows(firstID: (batch["id"] as Int64) << 16) else { continue }
                    for row in rows where row.at >= since {
                        scanned += 1
                        asked[row.name, default: 0] += 1
                        if row.outcome == "blocked" { blocked[row.name, default: 0] += 1 }
                        clients["\(row.client) (\(row.person))", default: 0] += 1
                    }
                }
                func ranked(_ counts: [String: Int]) -> [(key: String, count: Int)] {
                    counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(top)
                        .map { ($0.key, $0.value) }
                }
                return QueryLogTops(
                    asked: ranked(asked), blocked: ranked(blocked), clients: ranked(clients), scanned: scanned,
                    complete: complete)
            }
        }
    }
}
