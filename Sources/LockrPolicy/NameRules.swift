/// What the configuration says about which names count as guarded apps' names: the apps it defines
/// (`[apps]`), the names guards never block (`always-allow`), and whether the names clients use to
/// go around lockr are answered (`blocking.anti-bypass`). Part of `Protection`, so that dropping an
/// app's domain, always-allowing a name or switching anti-bypass off loosens like any other setting.
public struct NameRules: Sendable, Equatable, Codable {
    /// The apps the configuration defines: id to domain rules, in the file's order.
    public var customApps: [String: [String]]
    /// App ids and domain rules that guards never block.
    public var alwaysAllow: [String]
    public var antiBypass: Bool

    public init(customApps: [String: [String]] = [:], alwaysAllow: [String] = [], antiBypass: Bool = true) {
        self.customApps = customApps
        self.alwaysAllow = alwaysAllow
        self.antiBypass = antiBypass
    }
}
