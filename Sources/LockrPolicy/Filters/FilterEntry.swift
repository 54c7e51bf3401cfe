/// One entry of a person's own filter, added while lockr runs (the web pages, `lockr filters`): a
/// name they are denied or allowed, or a list given by URL that blocks or allows for them. Part of
/// `NameRules`, so that dropping a deny entry or a block list, or adding an allow entry or an allow
/// list, loosens and waits like any other setting.
public struct FilterEntry: Sendable, Hashable, Codable {
    /// What an entry does.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A rule that blocks (`example.com`, `|example.com^`, `*.example.com`, `/regex/`).
        case deny
        /// A rule that allows, whatever blocks the name (a guarded app stays its policy's).
        case allow
        /// A list by URL whose rules block.
        case blocklist
        /// A list by URL whose rules allow.
        case allowlist

        /// Whether adding one frees names (allow, allowlist), rather than blocking them.
        public var frees: Bool { self == .allow || self == .allowlist }
        /// Whether its value is a list's URL rather than a rule.
        public var isList: Bool { self == .blocklist || self == .allowlist }
    }

    public var kind: Kind
    /// The rule as a list line, or the list's URL.
    public var value: String
    /// Why it is there, in the words of whoever added it.
    public var comment: String

    public init(_ kind: Kind, _ value: String, comment: String = "") {
        self.kind = kind
        self.value = value
        self.comment = comment
    }

    /// Whether `other` is the same entry (its comment aside).
    public func isSame(as other: FilterEntry) -> Bool { kind == other.kind && value == other.value }
}

/// A change to a person's own filter or safe search, as `PolicyAction.changeFilters` asks for it.
public enum FilterChange: Sendable, Equatable, Codable {
    /// Adds the entry, or replaces the comment of the same one.
    case add(FilterEntry)
    case remove(FilterEntry.Kind, value: String)
    case safeSearch(SafeSearch)
}
