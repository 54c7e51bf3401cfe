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

    /// The fingerprint `DomainTable` files a name's hash under: the hash with its bits mixed
    /// throughout (MurmurHash3's finaliser), so that its top bits pick buckets evenly.
    @inline(__always)
    static func fingerprint(_ hash: UInt64) -> UInt64 {
        var mixed = hash
        mixed ^= mixed >> 33
        mixed &*= 0xFF51_AFD7_ED55_8CCD
        mixed ^= mixed >> 33
        mixed &*= 0xC4CE_B9FE_1A85_EC53
        mixed ^= mixed >> 33
        return mixed
    }
}
