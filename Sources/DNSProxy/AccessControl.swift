import DNSWire
import NIOCore

/// An IP network in CIDR form ("192.168.0.0/16", "fd00::/8", or one address).
///
/// Held as 128-bit numbers, IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d), so that a check is two
/// machine operations and no allocation.
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    let network: UInt128
    let mask: UInt128
    let prefixLength: Int
    let isIPv4: Bool

    /// Parses CIDR text; nil if it is not an IPv4 or IPv6 network.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let bytes = IPAddressBytes.parse(String(first)) else { return nil }
        let maxPrefix = bytes.count * 8
        var prefix = maxPrefix
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...maxPrefix).contains(value) else { return nil }
            prefix = value
        }
        isIPv4 = bytes.count == 4
        prefixLength = prefix
        let bits = isIPv4 ? prefix + 96 : prefix
        mask = bits == 0 ? 0 : ~UInt128(0) << (128 - bits)
        network = IPAddressBytes.number(bytes) & mask
    }

    public var description: String { "\(IPAddressText.format(network, asIPv4: isIPv4))/\(prefixLength)" }

    /// The address alone when the network is one host (a /32 or /128), else nil.
    public var hostAddress: String? {
        prefixLength == (isIPv4 ? 32 : 128) ? IPAddressText.format(network, asIPv4: isIPv4) : nil
    }

    @inline(__always)
    func contains(_ address: UInt128) -> Bool { address & mask == network }
}

/// Who may ask: by default loopback, private, CGNAT, link-local and unique-local sources, so that
/// lockr is never an open resolver; everyone else gets REFUSED.
public struct AccessControl: Sendable, Equatable {
    public let networks: [IPNetwork]

    /// Networks allowed when the config lists none.
    public static let localNetworks = [
        "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10",
        "::1/128", "fc00::/7", "fe80::/10",
    ].compactMap(IPNetwork.init)

    public init(networks: [IPNetwork] = AccessControl.localNetworks) {
        self.networks = networks
    }

    /// True when `address` may use the resolver. IPv4-mapped IPv6 sources are judged as IPv4.
    public func allows(_ address: SocketAddress) -> Bool {
        guard let number = IPAddressBytes.number(of: address) else { return true }
        for network in networks where network.contains(number) { return true }
        return false
    }
}

/// Conversions between IP address text, bytes and socket addresses.
public enum IPAddressBytes {
    /// 4 or 16 bytes for IPv4 or IPv6 text, nil otherwise.
    public static func parse(_ text: String) -> [UInt8]? {
        guard let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        return of(address)
    }

    static func of(_ address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        case .unixDomainSocket:
            return nil
        }
    }

    /// A socket's IP address as a 128-bit number, IPv4 mapped into IPv6; nil for a Unix socket.
    @inline(__always)
    public static func number(of address: SocketAddress) -> UInt128? {
        switch address {
        case .v4(let v4):
            0xFFFF_0000_0000 | UInt128(UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            withUnsafeBytes(of: v6.address.sin6_addr) { UInt128(bigEndian: $0.loadUnaligned(as: UInt128.self)) }
        case .unixDomainSocket:
            nil
        }
    }

    /// 4 or 16 address bytes as a 128-bit number, IPv4 mapped into IPv6 (::ffff:a.b.c.d).
    public static func number(_ bytes: [UInt8]) -> UInt128 {
        let sixteen = bytes.count == 4 ? [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + bytes : bytes
        return sixteen.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
    }

    /// Canonical text of 4 or 16 address bytes ("192.0.2.1", "fd00::").
    public static func format(_ bytes: [UInt8]) -> String {
        let address = try? SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: 0)
        return address?.ipAddress ?? "?"
    }
}
