import DNSWire

/// lockr's own encrypted endpoints, given to devices that look for them (Discovery of Designated
/// Resolvers, RFC 9462): `_dns.resolver.arpa` SVCB answers name lockr's DNS over TLS and DNS over
/// HTTPS (RFC 9461: `alpn`, `port`, `dohpath`), so a device that upgrades to encrypted DNS upgrades
/// to lockr. Every other name under `resolver.arpa` stays NODATA (anti-bypass).
public struct DesignatedResolver: Sendable {
    /// `_dns.resolver.arpa` in wire format.
    static let wireName: [UInt8] = WireName.wire(fromPresentation: "_dns.resolver.arpa")!
    private let records: LocalRecords

    /// The endpoints on `name` (which the certificate carries): DoT on `tlsPort` and DoH on
    /// `httpsPort` (nil: not served); nil when neither is served or `name` is no host name.
    public init?(name: String, tlsPort: Int?, httpsPort: Int?) {
        guard tlsPort != nil || httpsPort != nil, let target = WireName.wire(fromPresentation: name) else { return nil }
        var records: [LocalRecord] = []
        if let tlsPort {
            records.append(Self.record(priority: 1, target: target, alpn: ["dot"], port: tlsPort, dohPath: nil))
        }
        if let httpsPort {
            records.append(
                Self.record(
                    priority: records.count + 1, target: target, alpn: ["h2"], port: httpsPort,
                    dohPath: DoHRequestReader.path + "{?dns}"))
        }
        self.records = LocalRecords(records, ttl: Self.ttl)
    }

    /// How long devices may keep the answer.
    static let ttl: UInt32 = 300

    /// The answer to `query` when it asks `_dns.resolver.arpa` (any type: SVCB gets the endpoints,
    /// the others NODATA); nil for any other name.
    @inline(__always)
    func answer(to query: DNSQuery) -> [UInt8]? {
        guard query.nameEnd - DNSLimits.headerSize == Self.wireName.count else { return nil }
        return records.answer(to: query)
    }

    /// One SVCB record (RFC 9460 section 2.2): priority, target, then the parameters by key.
    private static func record(
        priority: Int, target: [UInt8], alpn: [String], port: Int, dohPath: String?
    ) -> LocalRecord {
        var rdata: [UInt8] = [UInt8(priority >> 8), UInt8(priority & 0xFF)] + target
        func parameter(_ key: UInt16, _ value: [UInt8]) {
            rdata += [UInt8(key >> 8), UInt8(key & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        parameter(1, alpn.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) })
        parameter(3, [UInt8(port >> 8), UInt8(port & 0xFF)])
        if let dohPath { parameter(7, Array(dohPath.utf8)) }
        return LocalRecord(owner: wireName, type: RecordType.svcb, ttl: ttl, rdata: rdata)
    }
}
