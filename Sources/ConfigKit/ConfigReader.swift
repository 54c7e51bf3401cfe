/// Reads a config file's table one key at a time, each getter checking its type (and range) and
/// noting what is wrong instead of stopping, so that every problem of a file is said at once.
public struct ConfigReader: Sendable {
    public let table: ConfigTable
    public private(set) var problems: [ConfigProblem] = []

    public init(table: ConfigTable) { self.table = table }

    public mutating func problem(_ key: String?, _ message: String) {
        problems.append(ConfigProblem(key: key, message))
    }

    public func value(_ key: String) -> ConfigValue? { table.value(at: key) }

    public mutating func string(_ key: String) -> String? {
        guard let raw = value(key) else { return nil }
        guard case .string(let text) = raw else {
            problem(key, "expected a string")
            return nil
        }
        return text
    }

    public mutating func bool(_ key: String) -> Bool? {
        guard let raw = value(key) else { return nil }
        guard case .bool(let flag) = raw else {
            problem(key, "expected true or false")
            return nil
        }
        return flag
    }

    public mutating func integer(_ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let raw = value(key) else { return nil }
        guard case .integer(let number) = raw else {
            problem(key, "expected an integer")
            return nil
        }
        guard range.contains(number) else {
            problem(key, "must be between \(range.lowerBound) and \(range.upperBound)")
            return nil
        }
        return number
    }

    public mutating func strings(_ key: String) -> [String]? {
        guard let raw = value(key) else { return nil }
        guard case .array(let array) = raw else {
            problem(key, "expected an array of strings")
            return nil
        }
        var result: [String] = []
        for element in array {
            guard case .string(let text) = element else {
                problem(key, "expected an array of strings")
                return nil
            }
            result.append(text)
        }
        return result
    }

    /// One of `Choice`'s values, by its word.
    public mutating func choice<Choice: RawRepresentable & CaseIterable>(_ key: String, as: Choice.Type) -> Choice?
    where Choice.RawValue == String {
        guard let word = string(key) else { return nil }
        guard let choice = Choice(rawValue: word) else {
            problem(key, "expected \(Choice.allCases.map(\.rawValue).spokenAlternatives), not '\(word)'")
            return nil
        }
        return choice
    }

    /// A list of words, each one of `Choice`'s values, none twice.
    public mutating func choices<Choice: RawRepresentable & CaseIterable>(_ key: String, as: Choice.Type) -> [Choice]?
    where Choice.RawValue == String {
        guard let words = strings(key) else { return nil }
        var result: [Choice] = []
        for word in words {
            guard let choice = Choice(rawValue: word) else {
                let known = Choice.allCases.map(\.rawValue).joined(separator: ", ")
                problem(key, "'\(word)' is not one of \(known)")
                return nil
            }
            guard !result.contains(where: { $0.rawValue == word }) else {
                problem(key, "names '\(word)' twice")
                return nil
            }
            result.append(choice)
        }
        return result
    }

    /// A duration written as people do ("90s", "7d"; see `DurationText`), in whole seconds within
    /// `range`; `example` and `spokenRange` word the problem ("\"7d\"", "1 hour to 366 days").
    public mutating func duration(
        _ key: String, seconds range: ClosedRange<Int>, example: String, spokenRange: String
    ) -> Int? {
        guard let text = string(key) else { return nil }
        guard let seconds = DurationText.seconds(text, plainUnit: nil), range.contains(seconds) else {
            problem(key, "expected a duration from \(spokenRange) such as \"\(example)\", not '\(text)'")
            return nil
        }
        return seconds
    }

    /// A size written as people do ("256MB"; see `ByteSizeText`), in bytes within `range`.
    public mutating func byteSize(
        _ key: String, in range: ClosedRange<Int>, example: String, spokenRange: String
    ) -> Int? {
        guard let text = string(key) else { return nil }
        guard let bytes = ByteSizeText.bytes(text), range.contains(bytes) else {
            problem(key, "expected a size from \(spokenRange) such as \"\(example)\", not '\(text)'")
            return nil
        }
        return bytes
    }
}

extension Array where Element == String {
    /// "a, b or c".
    public var spokenAlternatives: String {
        count < 2 ? joined() : dropLast().joined(separator: ", ") + " or " + last!
    }
}
