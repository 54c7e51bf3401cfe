import Foundation
import GRDB

/// One of the home's own names added while lockr runs: a record line as `[local] records` writes
/// it ("nas.home.arpa A 192.168.1.5"), and why it is there.
public struct StoredHomeRecord: Sendable, Equatable, Codable {
    public let record: String
    public let comment: String

    public init(record: String, comment: String) {
        self.record = record
        self.comment = comment
    }
}

/// The local records added while lockr runs (the admin page, `lockr records`), in the policy
/// store's database, so that a restart keeps them; those of the config file stay the file's.
public final class HomeRecordStore: Sendable {
    private let store: PolicyStore

    public init(sharing store: PolicyStore) { self.store = store }

    /// The records kept, in the order they were added.
    public func all() throws(StoreError) -> [StoredHomeRecord] {
        let text = try store.access {
            try store.database.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM household WHERE key = 'local_records'")
            }
        }
        guard let text else { return [] }
        do { return try JSONDecoder().decode([StoredHomeRecord].self, from: Data(text.utf8)) } catch {
            throw StoreError(path: store.path, reason: "the local records kept are unreadable: \(error)")
        }
    }

    /// Keeps `records` in place of those kept.
    public func replace(with records: [StoredHomeRecord]) throws(StoreError) {
        try store.access {
            let text = String(decoding: try JSONEncoder().encode(records), as: UTF8.self)
            try store.database.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO household (key, value) VALUES ('local_records', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    arguments: [text])
            }
        }
    }
}
