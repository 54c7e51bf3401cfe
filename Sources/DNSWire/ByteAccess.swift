extension Array where Element == UInt8 {
    @inline(__always)
    func u16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    @inline(__always)
    func u32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16 | UInt32(self[offset + 2]) << 8
            | UInt32(self[offset + 3])
    }

    @inline(__always)
    mutating func setU16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always)
    mutating func setU32(_ value: UInt32, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 24)
        self[offset + 1] = UInt8(truncatingIfNeeded: value >> 16)
        self[offset + 2] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 3] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always)
    mutating func appendU16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    mutating func appendU32(_ value: UInt32) {
        appendU16(UInt16(truncatingIfNeeded: value >> 16))
        appendU16(UInt16(truncatingIfNeeded: value))
    }
}

/// ASCII lower-casing of one byte, as DNS name comparison wants (RFC 4343).
@inlinable @inline(__always)
public func asciiLower(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
}
