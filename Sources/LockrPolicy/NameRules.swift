/// What the configuration says about how names are answered beyond the rule lists: the apps it
/// defines (`[apps]`), the names guards never block (`always-allow`), whether the names clients use
/// to go around lockr are answered (`blocking.anti-bypass`), safe search, and the person's own
/// filter entries made while lockr runs. Part of `Protection`, so that dropping an app's domain,
/// always-allowing a name, switching anti-bypass or safe search off, or freeing a name loosens like
/// any other setting.
public struct NameRules: Sendable, Equatable, Codable {
    /// The apps the configuration defines: id to domain rules, in the file's order.
    public var customApps: [String: [String]]
    /// App ids and domain rules that guards never block.
    public var alwaysAllow: [String]
    public var antiBypass: Bool
    public var safeSearch: SafeSearch
    /// Their own deny and allow entries and lists by URL, in the order they were added.
    public var filters: [FilterEntry]

    public init(
        customApps: [String: [String]] = [:], alwaysAllow: [String] = [], antiBypass: Bool = true,
        safeSearch: SafeSearch = SafeSearch(), filters: [FilterEntry] = []
    ) {
        self.customApps = customApps
        self.alwaysAllow = alwaysAllow
        self.antiBypass = antiBypass
        self.safeSearch = safeSearch
        self.filters = filters
    }

    private enum CodingKeys: String, CodingKey {
        case customApps, alwaysAllow, antiBypass, safeSearch, filters
    }

    /// Reads what the store kept; one an older lockr wrote has no safe search, which was off, and
    /// no filter entries.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        customApps = try container.decode([String: [String]].self, forKey: .customApps)
        alwaysAllow = try container.decode([String].self, forKey: .alwaysAllow)
        antiBypass = try container.decode(Bool.self, forKey: .antiBypass)
        safeSearch = try container.decodeIfPresent(SafeSearch.self, forKey: .safeSearch) ?? SafeSearch()
        filters = try container.decodeIfPresent([FilterEntry].self, forKey: .filters) ?? []
    }
}
