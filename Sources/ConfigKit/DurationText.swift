/// Durations as people write them in the config file and on the command line: "90s", "45m",
/// "1h30m", "2d", or a plain number in a unit the caller chooses.
public enum DurationText {
    /// The longest duration accepted: ten years, in seconds.
    public static let limit = 10 * 366 * 86_400

    /// Seconds in `text`. A plain number ("30") counts in `plainUnit` seconds, and is refused when
    /// that is nil (except "0"). Nil for anything else, or beyond `limit`.
    public static func seconds(_ text: String, plainUnit: Int?) -> Int? {
        if let plain = Int(text) {
            if plain == 0 { return 0 }
            guard let plainUnit, plain > 0, plain <= limit / plainUnit else { return nil }
            return plain * plainUnit
        }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var total = 0
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            guard let unit = units[character], let number = Int(digits), number <= limit / unit else { return nil }
            total += number * unit
            guard total <= limit else { return nil }
            digits = ""
        }
        return digits.isEmpty && !text.isEmpty ? total : nil
    }
}

extension DurationText {
    /// `seconds` as the config file writes it, in its largest whole unit ("7d", "90m", "45s", "0").
    public static func written(seconds: Int) -> String {
        guard seconds != 0 else { return "0" }
        for (unit, size) in [("d", 86_400), ("h", 3600), ("m", 60)] where seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }
}
