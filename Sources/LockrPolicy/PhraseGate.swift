/// The extreme mode gate: the user must type the set sentence.
///
/// Both the sentence and the attempt are normalised (lower case, letters and digits only), then
/// compared by Levenshtein distance within the strictness's allowance.
public enum PhraseGate {
    /// Lower-cased letters and digits of `text`; spaces and punctuation are dropped.
    public static func normalize(_ text: String) -> [Character] {
        text.lowercased().filter { $0.isLetter || $0.isNumber }.map { $0 }
    }

    /// Whether `attempt` passes for `phrase` under `strictness`.
    public static func accepts(_ attempt: String, phrase: String, strictness: Strictness) -> Bool {
        let expected = normalize(phrase)
        let typed = normalize(attempt)
        let allowed = strictness.allowedEdits(forLength: expected.count)
        return distance(typed, expected, limit: allowed) <= allowed
    }

    /// Levenshtein distance of `a` and `b` (insertions, deletions, substitutions), or a value above
    /// `limit` as soon as the distance is known to exceed it.
    public static func distance(_ a: [Character], _ b: [Character], limit: Int = .max) -> Int {
        if abs(a.count - b.count) > limit { return limit == .max ? limit : limit + 1 }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return limit + 1 }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// A playful refusal; which one depends on how many misses there have been.
    public static func denial(afterMisses misses: Int) -> String {
        let lines = [
            "Not quite. The sentence has to be typed, not approximated.",
            "Nope. Your future self thanks you for the typo.",
            "Still no. Maybe that is a sign?",
            "Wrong again. The apps will still be there in an hour.",
            "Denied. Consider a glass of water instead.",
        ]
        return lines[(max(misses, 1) - 1) % lines.count]
    }

    /// Wrong phrases tolerated before cooldowns start.
    public static let freeMisses = 3
    /// Cooldowns after the 3rd, 4th and 5th wrong phrase; every later one repeats the last.
    public static let cooldowns: [Duration] = [.seconds(15), .seconds(45), .seconds(120)]

    /// The wait imposed after `misses` wrong phrases in a row today, or nil for none.
    public static func cooldown(afterMisses misses: Int) -> Duration? {
        guard misses >= freeMisses else { return nil }
        return cooldowns[min(misses - freeMisses, cooldowns.count - 1)]
    }
}
