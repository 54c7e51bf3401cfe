import Foundation

/// Arithmetic puzzles: operands grow and operations multiply with the difficulty.
///
/// easy: a sum or difference of two-digit numbers ("47 + 38"); medium: a product plus a number
/// ("23 × 7 + 48"); hard: a difference of two products of two-digit numbers ("37 × 24 − 18 × 13").
public enum Arithmetic {
    /// A question and its answer.
    public static func make(
        _ difficulty: Difficulty, using generator: inout some RandomNumberGenerator
    ) -> (
        prompt: String, answer: Int
    ) {
        func number(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
        switch difficulty {
        case .easy:
            let (a, b) = (number(12...98), number(11...89))
            return Bool.random(using: &generator) || a == b
                ? ("\(a) + \(b)", a + b) : ("\(max(a, b)) − \(min(a, b))", max(a, b) - min(a, b))
        case .medium:
            let (a, b, c) = (number(13...39), number(3...9), number(11...99))
            return ("\(a) × \(b) + \(c)", a * b + c)
        case .hard:
            let (a, b, c, d) = (number(21...79), number(12...49), number(11...39), number(11...29))
            return ("\(a) × \(b) − \(c) × \(d)", a * b - c * d)
        }
    }

    /// The number a typed answer gives ("1 234", "-12"), or nil when it is not one.
    static func read(_ text: String) -> Int? {
        let digits = text.filter { !$0.isWhitespace && $0 != "," && $0 != "_" }
            .replacing("−", with: "-")
        return Int(digits)
    }
}
