import DNSWire

/// Why a logged query was blocked, as the query log stores it.
public enum BlockedReason: Sendable, Equatable {
    /// In words ("tiktok: daily budget spent").
    case text(String)
    /// A domain rule of a list: "blocked by " + `prefix` ("||", "|" or "*.") + the listed name +
    /// "^" unless the prefix is "*." + " (" + `source` + ")". The listed name is the last
    /// `listedWireLength` bytes of the query's wire name, so it is not stored twice.
    case domainRule(prefix: String, listedWireLength: Int, source: String)
}

/// The queries of one batch encoded together: the query log's unit of storage. One row per batch
/// instead of one per query keeps the writer's cost per query a small fraction of answering it.
///
/// Layout (`v` a LEB128 varint): a version byte; `v` the base time (ms since 1970); the string table (`v` count, then each string as
/// `v` length and UTF-8); the address table (`v` count, then 16 bytes each, big-endian); then each
/// entry: `v` milliseconds from the base (zigzag-coded: batches of several event loops interleave,
/// so an entry may be older than the first), a flags byte, `v` address, 6 bytes of MAC (flag 1), `v` person, `v` type, `v`
/// outcome, the wire name (a length byte and the bytes; flag 2), the reason (flag 4: `v` text;
/// flag 8: `v` prefix, `v` source, a length byte), `v` app (flag 16), `v` upstream (flag 32) and
/// `v` latency in microseconds (flag 64). Strings and addresses are indices into their tables.
public struct QueryLogBlob: Sendable, Equatable {
    public let bytes: [UInt8]
    public let count: Int
    /// When its earliest and latest queries were answered, milliseconds since 1970.
    public let first: Int64
    public let last: Int64

    static let version: UInt8 = 3

    /// The entries, each with the id `firstID + index`.
    func rows(firstID: Int64) throws(BlobError) -> [QueryLogRow] {
        var reader = BlobReader(bytes: bytes)
        guard try reader.byte() == Self.version else { throw BlobError() }
        let base = Int64(bitPattern: UInt64(try reader.varint()))
        let stringCount = try reader.varint()
        var strings: [String] = []
        strings.reserveCapacity(stringCount)
        for _ in 0..<stringCount { strings.append(String(decoding: try reader.slice(try reader.varint()), as: UTF8.self)) }
        func string(_ index: Int) throws(BlobError) -> String {
            guard index < strings.count else { throw BlobError() }
            return strings[index]
        }
        let addressCount = try reader.varint()
        var addresses: [String] = []
        addresses.reserveCapacity(addressCount)
        for _ in 0..<addressCount {
            var address: UInt128 = 0
            for byte in try reader.slice(16) { address = address << 8 | UInt128(byte) }
            addresses.append(IPAddressText.format(address))
        }
        var rows: [QueryLogRow] = []
        rows.reserveCapacity(count)
        for index in 0..<count {
            let zigzag = UInt64(try reader.varint())
            let at = base + (Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            let flags = try reader.byte()
            let addressIndex = try reader.varint()
            guard addressIndex < addresses.count else { throw BlobError() }
            var mac: String?
            if flags & 1 != 0 {
                var value: UInt64 = 0
                for byte in try reader.slice(6) { value = value << 8 | UInt64(byte) }
                mac = MACAddress(value: value).description
            }
            let person = try string(try reader.varint())
            let type = try reader.varint()
            let outcome = try string(try reader.varint())
            var wire: ArraySlice<UInt8> = []
            if flags & 2 != 0 { wire = try reader.slice(Int(try reader.byte())) }
            var reason: String?
            if flags & 4 != 0 { reason = try string(try reader.varint()) }
            if flags & 8 != 0 {
                let prefix = try string(try reader.varint())
                let source = try string(try reader.varint())
                let length = Int(try reader.byte())
                guard length <= wire.count else { throw BlobError() }
                let listed = WireName.presentation(of: wire.suffix(length))
                reason = "blocked by \(prefix)\(listed)\(prefix == "*." ? "" : "^") (\(source))"
            }
            let app = flags & 16 != 0 ? try string(try reader.varint()) : nil
            let upstream = flags & 32 != 0 ? try string(try reader.varint()) : nil
            let latency = flags & 64 != 0 ? try reader.varint() : nil
            rows.append(
                QueryLogRow(
                    id: firstID + Int64(index), at: at, client: addresses[addressIndex], mac: mac, person: person,
                    name: wire.isEmpty ? "" : WireName.presentation(of: wire), type: RecordType.mnemonic(UInt16(type)),
                    outcome: outcome, reason: reason, app: app, upstream: upstream, latencyMicroseconds: latency))
        }
        return rows
    }
}

/// A blob that does not decode (a file damaged, or written by a later lockr).
struct BlobError: Error {}

/// Builds a `QueryLogBlob` one query at a time.
public struct QueryLogBlobBuilder: Sendable {
    private var strings: [String] = []
    private var stringIndex: [String: Int] = [:]
    /// The string each field wrote last and its index: a field mostly repeats itself (the same
    /// person, list, outcome), and a string compared with the very same string is equal at a
    /// glance, where looking it up means hashing it.
    private var recent = [(string: String, index: Int)](repeating: ("", -1), count: Field.allCases.count)
    private var addresses: [UInt128] = []
    private var addressIndex: [UInt128: Int] = [:]
    private var body: [UInt8] = []
    public private(set) var count = 0
    /// The first query's time, which the others are told relative to (ms since 1970).
    private var base: Int64 = 0
    private var first: Int64 = 0
    private var last: Int64 = 0

    public init() { body.reserveCapacity(64 * 1024) }

    /// Adds one query. `wireName` is the name as asked (wire format, at most 255 bytes), empty when
    /// it is not kept; `address` is IPv6 or IPv4-mapped.
    public mutating func append(
        at: Int64, address: UInt128, mac: UInt64?, person: String, wireName: ArraySlice<UInt8>, type: UInt16,
        outcome: String, reason: BlockedReason?, app: String?, upstream: String?, latencyMicroseconds: UInt32?
    ) {
        if count == 0 {
            base = at
            first = at
            last = at
        }
        count += 1
        first = min(first, at)
        last = max(last, at)
        var flags: UInt8 = 0
        if mac != nil { flags |= 1 }
        if !wireName.isEmpty { flags |= 2 }
        switch reason {
        case .text?: flags |= 4
        case .domainRule?: flags |= 8
        case nil: break
        }
        if app != nil { flags |= 16 }
        if upstream != nil { flags |= 32 }
        if latencyMicroseconds != nil { flags |= 64 }
        // Batches of several event loops interleave, so a query may be older than the first.
        let offset = at - base
        appendVarint(UInt64(bitPattern: (offset << 1) ^ (offset >> 63)))
        body.append(flags)
        if let index = addressIndex[address] {
            appendVarint(UInt64(index))
        } else {
            addressIndex[address] = addresses.count
            appendVarint(UInt64(addresses.count))
            addresses.append(address)
        }
        if let mac { for shift in stride(from: 40, through: 0, by: -8) { body.append(UInt8(truncatingIfNeeded: mac >> shift)) } }
        appendString(person, .person)
        appendVarint(UInt64(type))
        appendString(outcome, .outcome)
        if !wireName.isEmpty {
            body.append(UInt8(truncatingIfNeeded: wireName.count))
            body.append(contentsOf: wireName)
        }
        switch reason {
        case .text(let text)?: appendString(text, .reason)
        case .domainRule(let prefix, let length, let source)?:
            appendString(prefix, .prefix)
            appendString(source, .source)
            body.append(UInt8(truncatingIfNeeded: length))
        case nil: break
        }
        if let app { appendString(app, .app) }
        if let upstream { appendString(upstream, .upstream) }
        if let latencyMicroseconds { appendVarint(UInt64(latencyMicroseconds)) }
    }

    /// The blob of every query added.
    public func build() -> QueryLogBlob {
        var bytes: [UInt8] = [QueryLogBlob.version]
        bytes.reserveCapacity(body.count + strings.count * 16 + 16)
        Self.appendVarint(UInt64(bitPattern: base), to: &bytes)
        Self.appendVarint(UInt64(strings.count), to: &bytes)
        for string in strings {
            Self.appendVarint(UInt64(string.utf8.count), to: &bytes)
            bytes.append(contentsOf: string.utf8)
        }
        Self.appendVarint(UInt64(addresses.count), to: &bytes)
        for address in addresses {
            for shift in stride(from: 120, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: address >> shift)) }
        }
        bytes.append(contentsOf: body)
        return QueryLogBlob(bytes: bytes, count: count, first: first, last: last)
    }

    private enum Field: Int, CaseIterable {
        case person, outcome, reason, prefix, source, app, upstream
    }

    private mutating func appendString(_ string: String, _ field: Field) {
        let index: Int
        if recent[field.rawValue].index >= 0, recent[field.rawValue].string == string {
            index = recent[field.rawValue].index
        } else if let known = stringIndex[string] {
            index = known
        } else {
            index = strings.count
            stringIndex[string] = index
            strings.append(string)
        }
        recent[field.rawValue] = (string, index)
        appendVarint(UInt64(index))
    }

    private mutating func appendVarint(_ value: UInt64) { Self.appendVarint(value, to: &body) }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}

/// Reads a blob front to back; running off its end is a `BlobError`.
private struct BlobReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func byte() throws(BlobError) -> UInt8 {
        guard offset < bytes.count else { throw BlobError() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func slice(_ length: Int) throws(BlobError) -> ArraySlice<UInt8> {
        guard length >= 0, offset + length <= bytes.count else { throw BlobError() }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }

    mutating func varint() throws(BlobError) -> Int {
        var value = 0
        var shift = 0
        while true {
            let next = try byte()
            guard shift < 63 else { throw BlobError() }
            value |= Int(next & 0x7F) << shift
            if next & 0x80 == 0 { return value }
            shift += 7
        }
    }
}
