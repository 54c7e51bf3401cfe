import DNSWire

/// Which app a query name belongs to, for the guard stage that rations apps.
///
/// Holds the rules of every app that may be guarded (the whole catalogue and the apps defined in the
/// configuration), so guarding another app at run time needs no rebuild, and the always-allowed
/// overrides. An override wins over an app's rule that is no more specific than it: allowing
/// `fbcdn.net` frees `x.fbcdn.net` from an app listing `fbcdn.net`, but not from one listing
/// `x.fbcdn.net` or matching it by a regular expression.
public final class GuardSet: Sendable {
    /// App ids, indexed by the numbers `app(forWireName:)` returns.
    public let appIDs: [String]
    private let apps: RuleSet
    private let overrides: RuleSet

    /// - Parameters:
    ///   - apps: the apps whose names are recognised.
    ///   - overrides: rules (any `RuleListParser` format) that apps never block, by source name.
    public init(apps: [App], overrides: [(source: String, ruleText: [UInt8])] = []) {
        var appRules = RuleSetBuilder()
        for app in apps {
            let source = appRules.addSource(app.id)
            _ = RuleListParser.parse(app.ruleText, role: .block, source: source, into: &appRules)
        }
        var overrideRules = RuleSetBuilder()
        for override in overrides {
            let source = overrideRules.addSource(override.source)
            _ = RuleListParser.parse(override.ruleText, role: .block, source: source, into: &overrideRules)
        }
        appIDs = apps.map(\.id)
        self.apps = appRules.build()
        self.overrides = overrideRules.build()
    }

    /// The index in `appIDs` of the app `wireName` belongs to, or nil. When several apps' rules
    /// match, the most specific rule decides, regular expressions included (Instagram's
    /// `instagram.*.fbcdn.net` beats Facebook's `fbcdn.net`); for the very same rule, the app listed
    /// first.
    public func app(forWireName wireName: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let hit = apps.mostSpecificBlock(wireName: wireName) else { return nil }
        if let override = overrides.mostSpecificBlock(wireName: wireName),
            overrides.specificity(of: override) >= apps.specificity(of: hit)
        {
            return nil
        }
        return apps.sourceIndex(of: hit)
    }

    /// `app(forWireName:)` for a name in presentation form; the app's id.
    public func app(forName name: String) -> String? {
        guard let wire = WireName.wire(fromPresentation: name) else { return nil }
        return wire.withUnsafeBufferPointer { app(forWireName: $0) }.map { appIDs[$0] }
    }
}
