import Foundation

/// SplitMix64 (Steele, Lea and Flood): a fast, seedable generator, so that a test's random input
/// can be replayed.
public struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}

extension SplitMix64 {
    /// A generator for a test's random input, seeded from `LOCKR_TEST_SEED` when it is set (to
    /// replay a failure), else afresh; the seed is printed with `test`'s name, so that every run
    /// can be replayed.
    public static func forTest(_ test: String = #function) -> SplitMix64 {
        let given = ProcessInfo.processInfo.environment["LOCKR_TEST_SEED"].flatMap { UInt64($0) }
        let seed = given ?? UInt64.random(in: .min ... .max)
        print("\(test): random input from seed \(seed) (LOCKR_TEST_SEED=\(seed) replays it)")
        return SplitMix64(seed: seed)
    }
}
