import Foundation
import GRDB

/// A change waiting to reach a backend.
public struct OutboxEntry: Sendable, Equatable {
    public let id: Int64
    public let backend: String
    /// When it was queued (wall clock).
    public let created: Date
    /// What to send, as the adapter layer encoded it.
    public let payload: Data
    /// Failed attempts so far.
    public let attempts: Int
    public let lastError: String?
}

/// The adapters' part of the state database: a persisted outbox per backend, kept in order, and
/// small per-backend values (query-log cursors, entries a backend does not mark as lockr's).
///
/// Shares the policy store's database, so one file holds all state.
public final class OutboxStore: Sendable {
    private let store: PolicyStore

    public init(sharing store: PolicyStore) { self.store = store }

    /// Queues `payload` for each of `backends` in one transaction; returns the entries' ids.
    @discardableResult
    public func enqueue(_ payload: Data, for backends: [String], at created: Date) throws(StoreError) -> [Int64] {
        try store.access {
            try store.database.write { db in
                try backends.map { backend in
                    try db.execute(
                        sql: "INSERT INTO outbox (backend, created_ms, payload) VALUES (?, ?, ?)",
                        arguments: [backend, Int64((created.timeIntervalSince1970 * 1000).rounded()), payload])
                    return db.lastInsertedRowID
                }
            }
        }
    }

    /// `backend`'s queued entries, oldest first.
    public func pending(for backend: String) throws(StoreError) -> [OutboxEntry] {
        try store.access {
            try store.database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM outbox WHERE backend = ? ORDER BY id", arguments: [backend])
                    .map { row in
                        OutboxEntry(
                            id: row["id"], backend: row["backend"],
                            created: Date(timeIntervalSince1970: Double(row["created_ms"] as Int64) / 1000),
                            payload: row["payload"], attempts: row["attempts"], lastError: row["last_error"])
                    }
            }
        }
    }

    /// Removes an entry that reached its backend.
    public func complete(_ id: Int64) throws(StoreError) {
        try store.access {
            try store.database.write { db in try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id]) }
        }
    }

    /// Removes `backend`'s entries up to `id`: the one delivered and the older ones it supersedes.
    public func complete(through id: Int64, for backend: String) throws(StoreError) {
        try store.access {
            try store.database.write { db in
                try db.execute(sql: "DELETE FROM outbox WHERE backend = ? AND id <= ?", arguments: [backend, id])
            }
        }
    }

    /// Counts a failed attempt of an entry, with the reason.
    public func noteFailure(_ id: Int64, reason: String) throws(StoreError) {
        try store.access {
            try store.database.write { db in
                try db.execute(
                    sql: "UPDATE outbox SET attempts = attempts + 1, last_error = ? WHERE id = ?",
                    arguments: [reason, id])
            }
        }
    }

    /// A value kept for `backend` under `key`, if any.
    public func value(_ key: String, for backend: String) throws(StoreError) -> String? {
        try store.access {
            try store.database.read { db in
                try String.fetchOne(
                    db, sql: "SELECT value FROM backend_state WHERE backend = ? AND key = ?", arguments: [backend, key])
            }
        }
    }

    /// Keeps `value` for `backend` under `key`; nil removes it.
    public func setValue(_ value: String?, _ key: String, for backend: String) throws(StoreError) {
        try store.access {
            try store.database.write { db in
                if let value {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO backend_state (backend, key, value) VALUES (?, ?, ?)",
                        arguments: [backend, key, value])
                } else {
                    try db.execute(
                        sql: "DELETE FROM backend_state WHERE backend = ? AND key = ?", arguments: [backend, key])
                }
            }
        }
    }
}
