import DNSFilter
import LockrLists
import LockrPolicy

/// Which app each name belongs to: the catalogue's apps and those `NameRules` define, less what it
/// always allows; and the person's own entries and lists made while lockr runs, built into rules.
/// Built for the configuration when it loads (which checks it) and for the names in force whenever
/// they change (a loosening change applying, a tightening one at once) or a list of theirs is
/// fetched anew.
struct AppNaming: Sendable {
    let rules: NameRules
    /// What the DNS guard stage and query-log metering look names up in.
    let guardSet: GuardSet
    /// Every app that may be guarded: id to display name.
    let names: [String: String]
    /// Each app's group (social, video, ...; "custom" for `[apps]`).
    let groups: [String: String]
    /// Each app's block rules for other blockers, without those `always-allow` frees.
    let blockRules: [String: [DomainRule]]
    /// The own entries' rules (`NameRules.filters`), lists by URL read from `copies`; nil for none.
    let entries: RuleSet?

    /// - Parameter copies: where the lists by URL are kept; without it, the entries' lists add nothing.
    init(catalogue: AppCatalogue, rules: NameRules, copies: ListCopies? = nil) throws(LoadError) {
        let apps = try Self.apps(catalogue, rules.customApps)
        let guardSet = GuardSet(apps: apps, overrides: try Self.overrides(catalogue, rules.alwaysAllow))
        self.rules = rules
        self.guardSet = guardSet
        names = Dictionary(apps.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        groups = Dictionary(apps.map { ($0.id, $0.group) }, uniquingKeysWith: { first, _ in first })
        blockRules = Dictionary(
            apps.map { app in (app.id, app.domainRules.filter { Self.stillGuarded($0, of: app.id, in: guardSet) }) },
            uniquingKeysWith: { first, _ in first })
        entries = Self.entryRules(rules.filters, copies: copies)
    }

    /// Whether its entries read a list by URL (which a fetch may change).
    var readsLists: Bool { rules.filters.contains { $0.kind.isList } }

    /// The deny and allow entries and the lists by URL as one rule set (a list not fetched yet adds
    /// nothing); nil when there are none.
    static func entryRules(_ filters: [FilterEntry], copies: ListCopies?) -> RuleSet? {
        guard !filters.isEmpty else { return nil }
        var builder = RuleSetBuilder()
        let own = builder.addSource("own entries")
        for entry in filters {
            // What blocks never frees a name: its exceptions are skipped (an allow list frees, and waits).
            let role: ListRole = entry.kind.frees ? .allow : .blockOnly
            guard entry.kind.isList else {
                _ = RuleListParser.parse(Array(entry.value.utf8), role: role, source: own, into: &builder)
                continue
            }
            guard let list = try? ListSource(entry: entry.value), let bytes = copies?.copy(of: list) else { continue }
            _ = RuleListParser.parse(bytes, role: role, source: builder.addSource(list.sourceName), into: &builder)
        }
        return builder.build()
    }

    /// The catalogue's apps and those the configuration defines.
    static func apps(_ catalogue: AppCatalogue, _ customApps: [String: [String]]) throws(LoadError) -> [App] {
        var apps = catalogue.apps.values.sorted { $0.id < $1.id }
        for (id, domains) in customApps.sorted(by: { $0.key < $1.key }) {
            guard catalogue.apps[id] == nil else {
                throw LoadError("[apps] \(id): the catalogue already has an app '\(id)'; pick another id")
            }
            do {
                apps.append(
                    try App(
                        id: id, name: id, group: "custom", ruleText: Array(domains.joined(separator: "\n").utf8),
                        path: "config [apps] \(id)"))
            } catch { throw LoadError("\(error)") }
        }
        return apps
    }

    /// `always-allow` entries: a catalogue app's rules, or a domain rule.
    static func overrides(
        _ catalogue: AppCatalogue, _ alwaysAllow: [String]
    ) throws(LoadError) -> [(source: String, ruleText: [UInt8])] {
        var overrides: [(source: String, ruleText: [UInt8])] = []
        for entry in alwaysAllow {
            if let app = catalogue.apps[entry] {
                overrides.append(("app:\(entry)", app.ruleText))
                continue
            }
            var builder = RuleSetBuilder()
            let report = RuleListParser.parse(
                Array(entry.utf8), role: .block, source: builder.addSource(entry), into: &builder)
            guard report.rules == 1, report.issues.isEmpty else {
                throw LoadError("always-allow: '\(entry)' is neither a catalogue app nor a domain rule")
            }
            overrides.append((entry, Array(entry.utf8)))
        }
        return overrides
    }

    /// Whether `rule` still belongs to `app` once `always-allow` is applied (regexes always do).
    private static func stillGuarded(_ rule: DomainRule, of app: String, in guardSet: GuardSet) -> Bool {
        switch rule {
        case .domain(let name): guardSet.app(forName: name) == app
        case .subdomains(let name): guardSet.app(forName: "lockr-probe." + name) == app
        case .regex: true
        }
    }
}
