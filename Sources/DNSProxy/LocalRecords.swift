import DNSWire

/// The home's own names (`[local] records` and `hosts-files`), answered here with authority and
/// never forwarded: the records of the type asked for; a CNAME followed through the home's own
/// names; NODATA (with an SOA) for a type the name has no record of. A name with no record here
/// is no business of this table.
public struct LocalRecords: Sendable {
    private struct Record: Sendable {
        let type: UInt16
        let ttl: UInt32
        let rdata: [UInt8]
    }

    /// By the hash of the owner's lower-case wire name: the owner and its records.
    private let byName: [UInt64: [(owner: [UInt8], records: [Record])]]
    /// TTL of records written without one, and of NODATA answers.
    let ttl: UInt32

    /// CNAMEs followed at most, so that a loop ends.
    static let maximumChain = 8

    /// `records` with `ttl` where they give none. A name's CNAME takes the place of any other
    /// record of it (RFC 1034): those are left out.
    public init(_ records: [LocalRecord], ttl: UInt32) {
        var owners: [[UInt8]: [Record]] = [:]
        for record in records {
            let entry = Record(type: record.type, ttl: record.ttl ?? ttl, rdata: record.rdata)
            if !owners[record.owner, default: []].contains(where: { $0.type == entry.type && $0.rdata == entry.rdata })
            {
                owners[record.owner, default: []].append(entry)
            }
        }
        var byName: [UInt64: [(owner: [UInt8], records: [Record])]] = [:]
        for (owner, records) in owners {
            let cname = records.filter { $0.type == RecordType.cname }.prefix(1)
            byName[Self.hash(owner[...]), default: []].append((owner, cname.isEmpty ? records : Array(cname)))
        }
        self.byName = byName
        self.ttl = ttl
    }

    /// What is wrong with `records` as a whole: a CNAME whose target none of them defines (lockr
    /// answers the whole chain itself, as dnsmasq does).
    public static func problems(_ records: [LocalRecord]) -> [String] {
        let owners = Set(records.map(\.owner))
        return records.filter { $0.type == RecordType.cname && !owners.contains($0.rdata) }.map { record in
            "the CNAME of \(WireName.presentation(of: record.owner)) points to "
                + "\(WireName.presentation(of: record.rdata)), which no local record defines"
        }
    }

    /// Whether there is no record.
    public var isEmpty: Bool { byName.isEmpty }

    /// The answer to `query` when its name is one of the home's own, else nil.
    public func answer(to query: DNSQuery) -> [UInt8]? {
        guard !byName.isEmpty, let records = records(of: query.wireName) else { return nil }
        var answer: [(owner: [UInt8]?, type: UInt16, ttl: UInt32, rdata: [UInt8])] = []
        var current = records
        var owner: [UInt8]? = nil
        for _ in 0...Self.maximumChain {
            let matching = current.filter { $0.type == query.type || query.type == RecordType.any }
            answer += matching.map { (owner, $0.type, $0.ttl, $0.rdata) }
            guard matching.isEmpty, let cname = current.first(where: { $0.type == RecordType.cname }) else { break }
            answer.append((owner, cname.type, cname.ttl, cname.rdata))
            guard let next = self.records(of: cname.rdata[...]) else { break }
            (owner, current) = (cname.rdata, next)
        }
        return Responses.local(answer, to: query, negativeTTL: ttl)
    }

    private func records(of name: ArraySlice<UInt8>) -> [Record]? {
        byName[Self.hash(name)]?.first { WireName.equalIgnoringCase($0.owner[...], name) }?.records
    }

    /// FNV-1a over the name's bytes in lower case.
    private static func hash(_ name: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name { hash = (hash ^ UInt64(asciiLower(byte))) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}
