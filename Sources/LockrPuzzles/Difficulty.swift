import ConfigKit

/// How hard a puzzle is.
public enum Difficulty: String, Sendable, Codable, CaseIterable, Comparable, ChoiceOfWords {
    case easy
    case medium
    case hard

    /// The level `steps` above this one, capped at hard.
    public func raised(by steps: Int) -> Difficulty {
        let all = Self.allCases
        return all[min(all.count - 1, all.firstIndex(of: self)! + max(0, steps))]
    }

    /// The difficulty of the next puzzle: `base`, one level up for more than 3 opens of the app
    /// today, one for a late hour (after 22:00), one for each failure in a row; capped at hard.
    public static func rising(from base: Difficulty, opensToday: Int, late: Bool, failuresInARow: Int) -> Difficulty {
        base.raised(by: (opensToday > 3 ? 1 : 0) + (late ? 1 : 0) + failuresInARow)
    }

    public static func < (a: Difficulty, b: Difficulty) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A small, fast generator seeded by a number (SplitMix64): the same seed gives the same puzzles.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
