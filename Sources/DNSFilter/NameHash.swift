import DNSWire

/// The hash of a domain name built label by label from the right, so that one pass over a query
/// name yields the hash of every suffix ("com", "example.com", "www.example.com").
/// Letter case does not change it.
enum NameHash {
    static let seed: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Hash of one label: FNV-1a over the lower-cased bytes, seeded with the length.
    @inline(__always)
    static func label(_ bytes: UnsafeBufferPointer<UInt8>, start: Int, length: Int) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ UInt64(length)
        for index in start..<start + length {
            hash = (hash ^ UInt64(asciiLower(bytes[index]))) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// Extends the hash of a suffix by the label to its left.
    @inline(__always)
    static func extend(_ suffixHash: UInt64, with labelHash: UInt64) -> UInt64 {
        var hash = (suffixHash ^ labelHash) &* 0xFF51_AFD7_ED55_8CCD
        hash ^= hash >> 32
        return hash
    }

    /// Hash of a whole wire name without its root byte: the value `DomainTable` files it under.
    static func name(_ bytes: UnsafeBufferPointer<UInt8>, start: Int, length: Int) -> UInt64 {
        // a name of at most 254 bytes has at most 127 labels
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 128) { labelStarts in
            var labels = 0
            var cursor = start
            while cursor < start + length {
                labelStarts[labels] = cursor
                labels += 1
                cursor += 1 + Int(bytes[cursor])
            }
            var hash = seed
            for index in stride(from: labels - 1, through: 0, by: -1) {
                let labelStart = labelStarts[index]
                hash = extend(hash, with: label(bytes, start: labelStart + 1, length: Int(bytes[labelStart])))
            }
            return hash
        }
    }
}
