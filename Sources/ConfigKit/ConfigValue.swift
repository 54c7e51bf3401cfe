/// A value of lockr's config file as its sections read it, whatever syntax the file is in (the
/// daemon reads TOML into these): the types lockr's settings use, and the name of any other.
public enum ConfigValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case bool(Bool)
    case array([ConfigValue])
    case table(ConfigTable)
    /// A value of a type no setting takes (a float, a date).
    case other

    public var string: String? { if case .string(let text) = self { text } else { nil } }
    public var table: ConfigTable? { if case .table(let table) = self { table } else { nil } }
    public var array: [ConfigValue]? { if case .array(let array) = self { array } else { nil } }
}

/// A table of the config file: its keys in the order the file has them, and their values.
public struct ConfigTable: Sendable, Equatable {
    /// In file order (people and named tables keep it).
    public let keys: [String]
    private let entries: [String: ConfigValue]

    /// `entries` in the order of `keys` (each key of `entries` once).
    public init(_ entries: [String: ConfigValue], order keys: [String]) {
        self.entries = entries
        self.keys = keys
    }

    public subscript(key: String) -> ConfigValue? { entries[key] }

    /// The value at a dotted key ("cache.size", "people.alice.time.budget-minutes").
    public func value(at dottedKey: String) -> ConfigValue? {
        let parts = dottedKey.split(separator: ".").map(String.init)
        var current: ConfigTable? = self
        for part in parts.dropLast() { current = current?[part]?.table }
        return current?[parts.last!]
    }
}

/// One thing wrong in a config file: the dotted key it belongs to (nil: the file as a whole) and
/// what is wrong, in words. The file's reader adds the line.
public struct ConfigProblem: Sendable, Equatable {
    public let key: String?
    public let message: String

    public init(key: String?, _ message: String) {
        self.key = key
        self.message = message
    }
}
