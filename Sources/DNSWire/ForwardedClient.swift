/// A 48-bit hardware (MAC) address, held as a number so that comparing and hashing allocate nothing.
public struct MACAddress: Hashable, Sendable, CustomStringConvertible {
    /// The six bytes, the first in the highest position.
    public let value: UInt64

    public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// Reads "aa:bb:cc:dd:ee:ff" (or with '-'), in either letter case.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard let value = Self.parse(bytes, bytes.indices) else { return nil }
        self.value = value
    }

    /// "aa:bb:cc:dd:ee:ff".
    public var description: String {
        (0..<6).map { index in
            let byte = UInt8(truncatingIfNeeded: value >> (40 - 8 * UInt64(index)))
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined(separator: ":")
    }

    /// Six hex pairs separated by ':' or '-' (17 characters at `bytes[text]`), without allocating.
    static func parse(_ bytes: [UInt8], _ text: Range<Int>) -> UInt64? {
        guard text.count == 17 else { return nil }
        var value: UInt64 = 0
        for index in 0..<17 {
            let character = bytes[text.lowerBound + index]
            if index % 3 == 2 {
                guard character == UInt8(ascii: ":") || character == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let digit = hexDigit(character) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    private static func hexDigit(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// What a forwarder in front of lockr says about the device that asked, in the query's EDNS(0)
/// options: dnsmasq's `add-mac` (option 65001: the six bytes; `add-mac=base64` and `add-mac=text`:
/// option 65073, the address as 8 base64 characters or as 17 characters of text) and `add-subnet`
/// (option 8, client subnet, RFC 7871). Believe it only from a forwarder you trust: any client can
/// add these options itself.
public struct ForwardedClient: Sendable, Equatable {
    public var mac: MACAddress?
    public var subnet: ClientSubnet?

    /// EDNS(0) option codes read here.
    public enum OptionCode {
        public static let clientSubnet: UInt16 = 8
        /// dnsmasq `add-mac`: six bytes.
        public static let mac: UInt16 = 65001
        /// dnsmasq `add-mac=base64` and `add-mac=text` (Nominum's device id).
        public static let deviceID: UInt16 = 65073
    }

    /// Reads the options in `packet[options]` (an OPT record's RDATA, already checked to be a
    /// well-formed sequence of options). A malformed option is ignored (a well-formed one of the same
    /// kind still counts); nothing is allocated, in debug builds too (a test counts).
    static func read(_ packet: [UInt8], options: Range<Int>) -> ForwardedClient {
        var client = ForwardedClient()
        var cursor = options.lowerBound
        while cursor + 4 <= options.upperBound {
            let code = packet.u16(at: cursor)
            let length = Int(packet.u16(at: cursor + 2))
            let data = cursor + 4..<min(cursor + 4 + length, options.upperBound)
            switch code {
            case OptionCode.mac where data.count == 6:
                var value: UInt64 = 0
                for index in data { value = value << 8 | UInt64(packet[index]) }
                client.mac = MACAddress(value: value)
            case OptionCode.deviceID where data.count == 17:
                client.mac = MACAddress.parse(packet, data).map(MACAddress.init(value:)) ?? client.mac
            case OptionCode.deviceID where data.count == 8:
                client.mac = base64MAC(packet, data).map(MACAddress.init(value:)) ?? client.mac
            case OptionCode.clientSubnet:
                client.subnet = subnet(packet, data) ?? client.subnet
            default:
                break
            }
            cursor += 4 + length
        }
        return client
    }

    /// Six bytes from 8 base64 characters (standard or URL-safe alphabet, no padding needed).
    private static func base64MAC(_ packet: [UInt8], _ text: Range<Int>) -> UInt64? {
        var value: UInt64 = 0
        for index in text {
            let character = packet[index]
            let sextet: UInt8
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): sextet = character - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): sextet = character - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sextet = character - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): sextet = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): sextet = 63
            default: return nil
            }
            value = value << 6 | UInt64(sextet)
        }
        return value
    }

    /// FAMILY (1 IPv4, 2 IPv6), SOURCE PREFIX-LENGTH, SCOPE PREFIX-LENGTH, then just the bytes the
    /// prefix covers (RFC 7871 6); nil when they disagree.
    private static func subnet(_ packet: [UInt8], _ data: Range<Int>) -> ClientSubnet? {
        guard data.count >= 4 else { return nil }
        let start = data.lowerBound
        let family = packet.u16(at: start)
        let prefix = packet[start + 2]
        let width = family == 1 ? 4 : family == 2 ? 16 : 0
        guard width > 0, Int(prefix) <= width * 8, data.count - 4 == (Int(prefix) + 7) / 8 else { return nil }
        var address: UInt128 = 0
        for index in start + 4..<start + 4 + width {
            address = address << 8 | UInt128(index < data.upperBound ? packet[index] : 0)
        }
        if width == 4 { address |= 0xFFFF_0000_0000 }
        return ClientSubnet(address: address, prefixLength: prefix, isIPv4: width == 4)
    }
}

/// The client subnet of an EDNS(0) option: its address as a 128-bit number (IPv4 as IPv4-mapped
/// IPv6, like `IPNetwork`) and its source prefix length in bits of its own family.
public struct ClientSubnet: Sendable, Equatable {
    public let address: UInt128
    public let prefixLength: UInt8
    public let isIPv4: Bool
}

extension DNSQuery {
    /// What a forwarder said about the device that asked (see `ForwardedClient`); empty when the
    /// query has no OPT record or no such option.
    public func forwardedClient() -> ForwardedClient {
        guard let ednsOptions else { return ForwardedClient() }
        return ForwardedClient.read(packet, options: ednsOptions)
    }
}
