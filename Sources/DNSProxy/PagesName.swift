import DNSWire
import NIOCore

/// The name lockr answers itself with the address of its web pages (`lockr.lan`), so that a phone
/// on the LAN opens them by name. Its A or AAAA query gets that address; the other type gets no
/// data; nothing goes upstream, and no Extended DNS Error is added: it is no block.
public struct PagesName: Sendable, Equatable {
    /// The name in wire format, in lower case.
    let wireName: [UInt8]
    let answer: SynthesizedAnswer
    /// How long clients may keep the answer: a minute, as the address can change with a reload.
    static let ttl: UInt32 = 60

    /// `name` answered with `address` (4 or 16 bytes); nil when either cannot be used.
    public init?(_ name: String, address: [UInt8]) {
        guard let wire = WireName.wire(fromPresentation: name), wire.count > 1 else { return nil }
        switch address.count {
        case 4: answer = .address(ipv4: address, ipv6: nil)
        case 16: answer = .address(ipv4: nil, ipv6: address)
        default: return nil
        }
        wireName = wire.map { (65...90).contains($0) ? $0 | 0x20 : $0 }
    }

    /// `name` answered with the address the web pages listen on; nil when they listen on every
    /// address (0.0.0.0 or ::), which names no one address to give.
    public init?(_ name: String, serving web: SocketAddress) {
        guard let bytes = IPAddressBytes.of(web), bytes.contains(where: { $0 != 0 }) else { return nil }
        self.init(name, address: bytes)
    }

    /// Whether `name` (a question's name in wire format) is this one, in any case.
    @inline(__always)
    func matches(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard name.count == wireName.count else { return false }
        for index in 0..<name.count {
            let byte = name[index]
            if ((65...90).contains(byte) ? byte | 0x20 : byte) != wireName[index] { return false }
        }
        return true
    }
}
