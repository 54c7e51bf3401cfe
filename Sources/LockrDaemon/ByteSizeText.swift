/// Sizes as people write them in the config file: "512KB", "256MB", "2GB" (powers of 1024, with
/// or without a space and the B), or a plain number of bytes.
public enum ByteSizeText {
    /// Bytes in `text`, or nil when it is no size.
    public static func bytes(_ text: String) -> Int? {
        let trimmed = text.uppercased().filter { $0 != " " }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        guard let number = Int(digits) else { return nil }
        let unit = trimmed.dropFirst(digits.count)
        let shifts: [String: Int] = [
            "": 0, "B": 0, "K": 10, "KB": 10, "M": 20, "MB": 20, "G": 30, "GB": 30, "T": 40, "TB": 40,
        ]
        guard let shift = shifts[String(unit)], number <= Int.max >> shift else { return nil }
        return number << shift
    }
}
