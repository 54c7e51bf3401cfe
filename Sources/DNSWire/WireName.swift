/// Domain names in wire format: walking, skipping and converting them.
public enum WireName {
    /// The offset just past an uncompressed name starting at `offset`, or nil if the name is malformed:
    /// a compression pointer, a label over 63 bytes, a name over 255 bytes, or running off the packet.
    public static func uncompressedEnd(in packet: [UInt8], from offset: Int) -> Int? {
        var cursor = offset
        while cursor < packet.count {
            let length = Int(packet[cursor])
            if length == 0 {
                return cursor + 1 - offset <= DNSLimits.maxNameLength ? cursor + 1 : nil
            }
            guard length <= DNSLimits.maxLabelLength else { return nil }
            cursor += 1 + length
        }
        return nil
    }

    /// The offset just past a possibly compressed name at `offset`. Pointers are not followed (a name
    /// ends at its first pointer), so a compression loop cannot make this spin. Nil if malformed.
    static func end(in packet: [UInt8], from offset: Int) -> Int? {
        var cursor = offset
        while cursor < packet.count {
            let length = packet[cursor]
            if length == 0 { return cursor + 1 }
            if length & 0xC0 == 0xC0 { return cursor + 2 <= packet.count ? cursor + 2 : nil }
            guard length <= 63 else { return nil }  // 0x40 and 0x80 label types are obsolete
            cursor += 1 + Int(length)
            guard cursor - offset <= DNSLimits.maxNameLength else { return nil }
        }
        return nil
    }

    /// Lower-cased presentation form of an uncompressed wire name, without the trailing dot.
    /// Bytes outside printable ASCII and the dot inside a label are escaped as in RFC 4343 (`\DDD`).
    public static func presentation(of wire: some Collection<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(wire.count)
        var index = wire.startIndex
        while index != wire.endIndex {
            let length = Int(wire[index])
            if length == 0 { break }
            if !text.isEmpty { text.append(UInt8(ascii: ".")) }
            index = wire.index(after: index)
            for _ in 0..<length {
                guard index != wire.endIndex else { break }
                appendEscaped(asciiLower(wire[index]), to: &text)
                index = wire.index(after: index)
            }
        }
        return text.isEmpty ? "." : String(decoding: text, as: UTF8.self)
    }

    private static func appendEscaped(_ byte: UInt8, to text: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "\\"):
            text.append(UInt8(ascii: "\\"))
            text.append(byte)
        case 0x21...0x7E:
            text.append(byte)
        default:
            text.append(UInt8(ascii: "\\"))
            text.append(contentsOf: String(format3: byte).utf8)
        }
    }

    /// Wire form of a presentation name ("www.example.com" or with a final dot); nil if a label is
    /// empty or too long, or the whole is too long. Escapes are not interpreted.
    public static func wire(fromPresentation name: String) -> [UInt8]? {
        var wire: [UInt8] = []
        var label: [UInt8] = []
        for byte in name.utf8 {
            if byte == UInt8(ascii: ".") {
                guard !label.isEmpty, label.count <= DNSLimits.maxLabelLength else { return nil }
                wire.append(UInt8(label.count))
                wire.append(contentsOf: label)
                label.removeAll(keepingCapacity: true)
            } else {
                label.append(byte)
            }
        }
        if !label.isEmpty {
            guard label.count <= DNSLimits.maxLabelLength else { return nil }
            wire.append(UInt8(label.count))
            wire.append(contentsOf: label)
        }
        wire.append(0)
        return wire.count <= DNSLimits.maxNameLength ? wire : nil
    }

    /// Compares two uncompressed wire names ignoring ASCII case.
    @inlinable
    public static func equalIgnoringCase(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var left = lhs.startIndex
        var right = rhs.startIndex
        while left < lhs.endIndex {
            if asciiLower(lhs[left]) != asciiLower(rhs[right]) { return false }
            left += 1
            right += 1
        }
        return true
    }
}

extension String {
    /// Three decimal digits, zero padded.
    fileprivate init(format3 value: UInt8) {
        let digits = String(value)
        self = String(repeating: "0", count: 3 - digits.count) + digits
    }
}
