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

extension ByteSizeText {
    /// `bytes` in its largest whole unit ("256MB", "1GB", "512B").
    public static func written(_ bytes: Int) -> String {
        for (unit, shift) in [("TB", 40), ("GB", 30), ("MB", 20), ("KB", 10)]
        where bytes != 0 && bytes % (1 << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return "\(bytes)B"
    }
}
