import DNSWire
import Synchronization

/// One change of a zone, as an IXFR tells it (RFC 1995 section 4): the older version's SOA, the
/// records it removed, the newer version's SOA, the records it added.
public struct ZoneChange: Sendable, Equatable {
    public let fromSerial: UInt32
    public let records: [ResourceRecord]
}

/// One zone lockr serves as a primary: its SOA (whose serial names this version), its other
/// records, and the changes that led to it.
public struct ServedZone: Sendable, Equatable {
    /// The zone's name in wire form, lower-cased.
    public let origin: [UInt8]
    public let soa: StartOfAuthority
    public let soaTTL: UInt32
    /// Every record but the SOA.
    public let records: [ResourceRecord]
    /// The changes that led here, oldest first; `ServedZones` keeps the latest.
    public fileprivate(set) var journal: [ZoneChange] = []

    public init(origin: [UInt8], soa: StartOfAuthority, soaTTL: UInt32, records: [ResourceRecord]) {
        self.origin = origin.map(asciiLower)
        self.soa = soa
        self.soaTTL = soaTTL
        self.records = records
    }

    public var serial: UInt32 { soa.serial }

    /// The SOA as a record.
    public var soaRecord: ResourceRecord {
        ResourceRecord(owner: origin, type: RecordType.soa, ttl: soaTTL, rdata: soa.rdata)
    }

    /// The zone as a zone file (RFC 1035 5): the SOA first, then every record, one a line, names
    /// absolute.
    public var zoneFile: String {
        ([soaRecord] + records).compactMap(\.presentation).map { $0 + "\n" }.joined()
    }

    /// The records of the changes from version `serial` to this one, or nil when the journal does
    /// not reach back to it.
    public func changes(since serial: UInt32) -> [ResourceRecord]? {
        guard let start = journal.firstIndex(where: { $0.fromSerial == serial }) else { return nil }
        return journal[start...].flatMap(\.records)
    }

    /// The change from `older` to this version.
    fileprivate func change(from older: ServedZone) -> ZoneChange {
        let before = Set(older.records)
        let after = Set(records)
        return ZoneChange(
            fromSerial: older.serial,
            records: [older.soaRecord] + older.records.filter { !after.contains($0) } + [soaRecord]
                + records.filter { !before.contains($0) })
    }
}

/// The zones a `ZoneServer` serves, replaced whole as they change; read from any thread.
public final class ServedZones: Sendable {
    private let zones = Mutex<[[UInt8]: ServedZone]>([:])

    public init() {}

    /// The zone named `origin` (a lower-case wire name), if served.
    public func zone(_ origin: [UInt8]) -> ServedZone? { zones.withLock { $0[origin] } }

    /// How many changes of each zone are kept for IXFR: a secondary further behind gets the
    /// whole zone.
    public static let journalLength = 32

    /// Serves `zone` from now on in place of its older version, and keeps the change between them.
    public func serve(_ zone: ServedZone) {
        zones.withLock { zones in
            var next = zone
            if let older = zones[zone.origin], older.serial != zone.serial {
                next.journal = Array((older.journal + [zone.change(from: older)]).suffix(Self.journalLength))
            }
            zones[zone.origin] = next
        }
    }

    /// Stops serving every zone not in `origins`.
    public func keepOnly(_ origins: Set<[UInt8]>) { zones.withLock { $0 = $0.filter { origins.contains($0.key) } } }
}
