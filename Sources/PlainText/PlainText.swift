/// Text operations lockr needs, written without Foundation's internationalised parts: any use of
/// those (`trimmingCharacters(in:)`, `String(format:)`, `NSString`'s paths, ...) links all of
/// swift-corelibs-foundation and ICU's 30 MB of data into a statically linked program
/// (bench/README.md). Only the Swift standard library is used here.
public enum PlainText {
    /// `value` in decimal with exactly `decimals` digits after the point, rounded to the nearest
    /// (halves away from zero): `fixed(0.1234, decimals: 3)` is "0.123", as `%.3f` would print it.
    public static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value.magnitude * Double(scale)).rounded()
        guard scaled < 9.0e18 else { return String(value) }
        let units = UInt64(scaled)
        var text = String(units / scale)
        if decimals > 0 {
            let fraction = String(units % scale)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return value < 0 && units != 0 ? "-" + text : text
    }

    /// `value` in decimal, zeros after its sign to at least `width` characters: `padded(7, to: 2)`
    /// is "07", as `%02d` would print it.
    public static func padded(_ value: Int, to width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - sign.count - digits.count)) + digits
    }

    /// The bytes in lower-case hexadecimal, two digits each.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `text` with every byte of its UTF-8 but RFC 3986's unreserved characters (letters, digits,
    /// `-._~`) written as `%XX`: one segment of a URL's path, or a query's name or value.
    public static func percentEncoded(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// The directory of a file path ("/a/b.txt" gives "/a", "/a" gives "/", "b" gives ""), as
    /// `NSString.deletingLastPathComponent` gives it.
    public static func deletingLastPathComponent(_ path: String) -> String {
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        if end == path.startIndex { return path.isEmpty ? "" : "/" }
        guard var cut = path[..<end].lastIndex(of: "/") else { return "" }
        while cut > path.startIndex, path[path.index(before: cut)] == "/" { cut = path.index(before: cut) }
        return cut == path.startIndex ? "/" : String(path[..<cut])
    }

    /// The last component of a file path ("/a/b.txt" gives "b.txt", "/a/b/" gives "b", "/" stays
    /// "/"), as `NSString.lastPathComponent` gives it.
    public static func lastPathComponent(_ path: String) -> String {
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        if end == path.startIndex { return path.isEmpty ? "" : "/" }
        let start = path[..<end].lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return String(path[start..<end])
    }
}

extension StringProtocol {
    /// The text without white space (spaces, tabs, line ends: Unicode's White_Space) at either end.
    public var trimmed: String { trimming(while: \.isWhitespace) }

    /// The text as a column `width` characters wide: cut, or filled with spaces on the right (as
    /// `padding(toLength:withPad:startingAt:)` gives it with " ").
    public func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : String(self) + String(repeating: " ", count: width - count)
    }

    /// The text without the characters at either end for which `drops` holds.
    public func trimming(while drops: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drops($0) }), let last = lastIndex(where: { !drops($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
