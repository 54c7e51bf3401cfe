import Foundation
import GRDB

/// A device as the state database keeps it across restarts: how it was known, whose it was, and
/// when it last asked (wall clock).
public struct StoredDevice: Sendable, Equatable {
    /// Its address as text ("192.168.1.20", "fd00::1").
    public let address: String
    /// "aa:bb:cc:dd:ee:ff", when known.
    public let mac: String?
    /// The ClientID it asked with over DNS over TLS or HTTPS, when it did.
    public let clientID: String?
    /// The person it was last counted for.
    public let person: String
    /// How it was known (`QueryClient.identifiedBy`'s words).
    public let identifiedBy: String
    public let lastSeen: Date

    public init(
        address: String, mac: String?, clientID: String? = nil, person: String, identifiedBy: String, lastSeen: Date
    ) {
        self.address = address
        self.mac = mac
        self.clientID = clientID
        self.person = person
        self.identifiedBy = identifiedBy
        self.lastSeen = lastSeen
    }
}

/// The devices seen, in the policy store's database, so that a restart forgets none: the list,
/// assignment and "protection off" go on from where they were.
public final class DeviceStore: Sendable {
    private let store: PolicyStore

    public init(sharing store: PolicyStore) { self.store = store }

    /// Replaces the devices kept with `devices`, in one transaction.
    public func replace(with devices: [StoredDevice]) throws(StoreError) {
        try store.access {
            try store.database.write { db in
                try db.execute(sql: "DELETE FROM devices_seen")
                let insert = try db.makeStatement(
                    sql:
                        "INSERT INTO devices_seen (address, mac, client_id, person, identified_by, last_seen_ms) VALUES (?, ?, ?, ?, ?, ?)"
                )
                for device in devices {
                    try insert.execute(arguments: [
                        device.address, device.mac, device.clientID, device.person, device.identifiedBy,
                        Int64((device.lastSeen.timeIntervalSince1970 * 1000).rounded()),
                    ])
                }
            }
        }
    }

    /// The devices kept, the most recently seen first.
    public func all() throws(StoreError) -> [StoredDevice] {
        try store.access {
            try store.database.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM devices_seen ORDER BY last_seen_ms DESC").map { row in
                    StoredDevice(
                        address: row["address"], mac: row["mac"], clientID: row["client_id"], person: row["person"],
                        identifiedBy: row["identified_by"],
                        lastSeen: Date(timeIntervalSince1970: Double(row["last_seen_ms"] as Int64) / 1000))
                }
            }
        }
    }
}
