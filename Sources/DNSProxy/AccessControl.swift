import NIOCore

/// An IP network in CIDR form ("192.168.0.0/16", "fd00::/8", or one address).
public struct IPNetwork: Sendable, Equatable, CustomStringConvertible {
    let address: [UInt8]
    let prefixLength: Int

    /// Parses CIDR text; nil if it is not an IPv4 or IPv6 network.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let bytes = IPAddressBytes.parse(String(first)) else { return nil }
        let maxPrefix = bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...maxPrefix).contains(prefix) else { return nil }
            prefixLength = prefix
        } else {
            prefixLength = maxPrefix
        }
        address = bytes
    }

    public var description: String {
        "\(IPAddressBytes.format(address))/\(prefixLength)"
    }

    func contains(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == address.count else { return false }
        var remaining = prefixLength
        for index in 0..<bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask: UInt8 = bits == 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if bytes[index] & mask != address[index] & mask { return false }
            remaining -= bits
        }
        return true
    }
}

/// Who may ask: by default loopback, private, link-local and unique-local sources, so that lockr is
/// never an open resolver; everyone else gets REFUSED.
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
        guard var bytes = IPAddressBytes.of(address) else { return address.protocol == .unix }
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12...])
        }
        return networks.contains { $0.contains(bytes) }
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

    /// Canonical text of 4 or 16 address bytes ("192.0.2.1", "fd00::").
    static func format(_ bytes: [UInt8]) -> String {
        let address = try? SocketAddress(packedIPAddress: ByteBuffer(bytes: bytes), port: 0)
        return address?.ipAddress ?? "?"
    }
}
