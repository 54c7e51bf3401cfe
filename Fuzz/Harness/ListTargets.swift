import DNSFilter
import LockrDaemon

/// Files a household writes or downloads: rule lists and the configuration.
enum ListTargets {
    static let probes = ["example.com", "ads.example.com", "a.b.c.example.org", "com", "xn--bcher-kva.example"]

    /// Parses `bytes` as a block list and as an allow list, builds the set, matches names against it.
    static func ruleList(_ bytes: [UInt8]) {
        var builder = RuleSetBuilder()
        let blocked = builder.addSource("block.txt")
        let allowed = builder.addSource("allow.txt")
        _ = RuleListParser.parse(bytes, role: .block, source: blocked, into: &builder)
        _ = RuleListParser.parse(bytes, role: .allow, source: allowed, into: &builder)
        let rules = builder.build()
        for name in probes {
            if let hit = rules.hit(name: name) {
                _ = rules.describe(hit)
                _ = rules.domainBlockRule(hit)
            }
        }
    }

    /// Reads `bytes` as the TOML configuration file.
    static func config(_ bytes: [UInt8]) {
        _ = try? ConfigFile.parse(String(decoding: bytes, as: UTF8.self), path: "fuzz.toml")
    }
}
