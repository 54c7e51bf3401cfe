import DNSWire

/// The names no public resolver should be asked about, answered here: the reverse lookups of
/// private, shared (CGNAT), link-local, loopback, documentation and unique-local addresses (RFC
/// 6303, RFC 6598), and the special-use domains `local` (mDNS, RFC 6762), `home.arpa` (RFC 8375),
/// `onion` (RFC 7686) and `invalid` (RFC 6761). A name of one of these zones gets NXDOMAIN (the
/// zone's own name NODATA) with a negative-caching SOA, unless a `[[forward]]` domain covers it:
/// then the home's server is asked, as for any other name of that domain.
public struct LocallyServedZones: Sendable {
    /// The zones, lower case, without the final dot.
    public static let zones: [String] =
        ["10", "127", "0", "254.169", "168.192", "255.255.255.255", "2.0.192", "100.51.198", "113.0.203"]
        .map { $0 + ".in-addr.arpa" }
        + (16...31).map { "\($0).172.in-addr.arpa" } + (64...127).map { "\($0).100.in-addr.arpa" }
        + ["d.f", "8.e.f", "9.e.f", "a.e.f", "b.e.f", "8.b.d.0.1.0.0.2"].map { $0 + ".ip6.arpa" }
        + [String(repeating: "0.", count: 32) + "ip6.arpa", "1." + String(repeating: "0.", count: 31) + "ip6.arpa"]
        + ["local", "home.arpa", "onion", "invalid"]
    /// How long the answers may be cached, seconds.
    static let ttl: UInt32 = 3_600

    private let zones: Set<String>
    /// Domains of `[[forward]]` tables: their names are the home's servers' to answer.
    private let forwarded: [String]

    /// `forwarded`: the `[[forward]]` domains (lower case, without the final dot).
    public init(forwarded: [String]) {
        zones = Set(Self.zones)
        self.forwarded = forwarded
    }

    /// The answer to `query`, when its name is in a locally served zone no forward covers.
    public func answer(to query: DNSQuery) -> [UInt8]? {
        guard Self.topLevels.contains(Self.lastLabel(of: query.wireName)) else { return nil }  // no String made
        var name = query.name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        guard let zone = zone(of: name) else { return nil }
        guard !forwarded.contains(where: { name == $0 || name.hasSuffix("." + $0) }) else { return nil }
        return Responses.synthesized(zone == name ? .noData : .nameError, to: query, ttl: Self.ttl)
    }

    /// The last labels of the zones (see `lastLabel`).
    private static let topLevels: Set<UInt64> = Set(["arpa", "local", "onion", "invalid"].map { packed($0.utf8) })

    /// The last label of a wire name, in lower case and packed into a number (0 for the root or a
    /// label longer than 7 bytes, which no zone here ends in).
    private static func lastLabel(of wire: ArraySlice<UInt8>) -> UInt64 {
        var index = wire.startIndex
        var last = index..<index
        while index < wire.endIndex, wire[index] != 0 {
            let end = index + 1 + Int(wire[index])
            guard end <= wire.endIndex else { return 0 }
            last = (index + 1)..<end
            index = end
        }
        return last.count > 7 ? 0 : packed(wire[last])
    }

    private static func packed(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(UInt64(0)) { $0 << 8 | UInt64(asciiLower($1)) }
    }

    /// The locally served zone `name` is in (itself or a parent of it), if any.
    private func zone(of name: String) -> String? {
        var rest = Substring(name)
        while true {
            if zones.contains(String(rest)) { return String(rest) }
            guard let dot = rest.firstIndex(of: ".") else { return nil }
            rest = rest[rest.index(after: dot)...]
        }
    }
}
