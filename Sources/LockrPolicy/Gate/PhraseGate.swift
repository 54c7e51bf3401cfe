/// The sentence of the gate, typed or spoken.
///
/// Both the sentence and the attempt are normalised (lower case, letters and digits only), then
/// compared by Levenshtein distance within the strictness's allowance; a spoken attempt is compared
/// with the sentence as it is said (numbers in words). Wrong answers of every kind at the gate share
/// the misses and cooldowns kept here.
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

    /// Whether a recogniser's transcript `spoken` is `sentence` said aloud, under `strictness`: the
    /// sentence's numbers are compared as the words that say them ("15" as "fifteen").
    public static func accepts(spoken: String, sentence: String, strictness: Strictness) -> Bool {
        accepts(spoken, phrase: spokenForm(of: sentence), strictness: strictness)
    }

    /// `text` with each whole number up to 9999 written out in English words.
    public static func spokenForm(of text: String) -> String {
        var result = ""
        var digits = ""
        for character in text + " " {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            if !digits.isEmpty {
                result += Int(digits).flatMap { $0 < 10_000 ? words(for: $0) : nil } ?? digits
                digits = ""
            }
            result.append(character)
        }
        return String(result.dropLast())
    }

    private static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// 0-9999 in words: "fifteen", "forty five", "one hundred twenty".
    static func words(for number: Int) -> String {
        if number < 20 { return ones[number] }
        if number < 100 { return tens[number / 10] + (number % 10 == 0 ? "" : " " + ones[number % 10]) }
        if number < 1000 {
            return ones[number / 100] + " hundred" + (number % 100 == 0 ? "" : " " + words(for: number % 100))
        }
        return words(for: number / 1000) + " thousand" + (number % 1000 == 0 ? "" : " " + words(for: number % 1000))
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

    /// Wrong answers tolerated before cooldowns start.
    public static let freeMisses = 3
    /// Cooldowns after the 3rd, 4th and 5th wrong answer; every later one repeats the last.
    public static let cooldowns: [Duration] = [.seconds(15), .seconds(45), .seconds(120)]

    /// The wait imposed after `misses` wrong answers in a row today, or nil for none.
    public static func cooldown(afterMisses misses: Int) -> Duration? {
        guard misses >= freeMisses else { return nil }
        return cooldowns[min(misses - freeMisses, cooldowns.count - 1)]
    }
}
