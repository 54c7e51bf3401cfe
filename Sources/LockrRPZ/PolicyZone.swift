import DNSFilter
import DNSProxy
import DNSWire
import LockrAdapters

/// What a resolver answers for a name a policy zone lists (the zone's action records, RPZ section
/// 4): NXDOMAIN (`CNAME .`), NODATA (`CNAME *.`), or local data (the null address, or another).
public enum RPZAction: Sendable, Equatable {
    case nxdomain
    case nodata
    /// A and/or AAAA records with these addresses; a type without one gets NODATA.
    case localData(ipv4: [UInt8]?, ipv6: [UInt8]?)

    /// 0.0.0.0 and ::, lockr's own default answer to a blocked name.
    public static let nullAddresses = RPZAction.localData(ipv4: [0, 0, 0, 0], ipv6: [UInt8](repeating: 0, count: 16))

    /// The records of one trigger name.
    func records(owner: [UInt8], ttl: UInt32) -> [ResourceRecord] {
        switch self {
        case .nxdomain: [ResourceRecord(owner: owner, type: RecordType.cname, ttl: ttl, rdata: [0])]
        case .nodata:
            [ResourceRecord(owner: owner, type: RecordType.cname, ttl: ttl, rdata: [1, UInt8(ascii: "*"), 0])]
        case .localData(let ipv4, let ipv6):
            [
                ipv4.map { ResourceRecord(owner: owner, type: RecordType.a, ttl: ttl, rdata: $0) },
                ipv6.map { ResourceRecord(owner: owner, type: RecordType.aaaa, ttl: ttl, rdata: $0) },
            ].compactMap { $0 }
        }
    }
}

/// One person's block set as the records of a Response Policy Zone: for each blocked app, each of
/// its names as a trigger (`tiktok.com.alice.rpz.lockr.`) and, where its rule covers them, its
/// subdomains (`*.tiktok.com.alice.rpz.lockr.`), with the action's records. An open app has no
/// triggers. A regular expression other than one that names a single name cannot be said in RPZ:
/// it is left out and counted.
public struct PolicyZoneContent: Sendable, Equatable {
    /// The records besides the SOA, sorted: the apex's NS first, then the triggers.
    public let records: [ResourceRecord]
    /// Rules left out, by app: regular expressions, and names too long under the zone's name.
    public let leftOut: [String: Int]

    public init(origin: [UInt8], apps: [AppBlock], action: RPZAction, ttl: UInt32) {
        // RPZ zones are zones: an NS at the apex (its target is never looked up).
        var records = [ResourceRecord(owner: origin, type: RecordType.ns, ttl: ttl, rdata: Self.localhost)]
        var triggers: Set<[UInt8]> = []
        var leftOut: [String: Int] = [:]
        for app in apps where app.blocked {
            for rule in app.rules {
                let names: [String]
                switch rule {
                case .domain(let name): names = [name, "*." + name]
                case .subdomains(let name): names = ["*." + name]
                case .regex(let pattern):
                    guard let name = Self.singleName(pattern) else {
                        leftOut[app.app, default: 0] += 1
                        continue
                    }
                    names = [name]
                }
                for name in names {
                    guard let wire = WireName.wire(fromPresentation: name), wire.count - 1 + origin.count <= 255 else {
                        leftOut[app.app, default: 0] += 1
                        continue
                    }
                    triggers.insert(Array(wire.dropLast()) + origin)
                }
            }
        }
        for trigger in triggers.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            records += action.records(owner: trigger, ttl: ttl)
        }
        self.records = records
        self.leftOut = leftOut
    }

    /// `localhost.`: the target of the apex's NS and the SOA's primary, never looked up.
    static let localhost: [UInt8] = [9] + Array("localhost".utf8) + [0]

    /// The name a regular expression `^name\.with\.dots$` matches alone (as lockr writes a rule for
    /// one name without its subdomains), if it is one.
    static func singleName(_ pattern: String) -> String? {
        guard pattern.hasPrefix("^"), pattern.hasSuffix("$") else { return nil }
        let body = pattern.dropFirst().dropLast()
        var name = ""
        var escaped = false
        for character in body {
            if escaped {
                guard character == "." else { return nil }
                name.append(".")
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character.isASCII,
                character.isLetter || character.isNumber || character == "-" || character == "_"
            {
                name.append(character)
            } else {
                return nil
            }
        }
        return escaped || name.isEmpty ? nil : name
    }
}

extension RPZAction {
    /// The action that says what lockr's own `block-mode` says: RPZ has no REFUSED, so `refused`
    /// becomes NXDOMAIN.
    public init(_ answer: BlockAnswer) {
        switch answer {
        case .null: self = .nullAddresses
        case .nxdomain, .refused: self = .nxdomain
        case .address(let ipv4, let ipv6): self = .localData(ipv4: ipv4, ipv6: ipv6)
        }
    }
}
