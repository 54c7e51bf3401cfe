import DNSWire

/// What a rule list says about a name.
public enum RuleHit: Sendable, Equatable {
    case blockedByDomain(DomainMatch)
    case blockedByRegex(Int)
    case allowedByDomain(DomainMatch)
    case allowedByRegex(Int)

    public var isBlock: Bool {
        switch self {
        case .blockedByDomain, .blockedByRegex: true
        case .allowedByDomain, .allowedByRegex: false
        }
    }
}

/// Block and allow rules from any number of lists, compiled for lookups.
///
/// Precedence follows adblock and Pi-hole: an allow rule (`@@||x^`, an allowlist file, an allow
/// regex) beats every block rule; among block rules the most specific domain rule is reported, and
/// regular expressions are tried only when no domain rule matched.
public final class RuleSet: Sendable {
    let blockedDomains: DomainTable
    let allowedDomains: DomainTable
    let blockRegexes: [(regex: PosixRegex, source: Int)]
    let allowRegexes: [(regex: PosixRegex, source: Int)]
    /// Where rules came from ("ads.txt", "app:instagram"), indexed by the source numbers in rules.
    public let sources: [String]

    init(_ builder: consuming RuleSetBuilder) {
        sources = builder.sources
        blockRegexes = builder.blockRegexes
        allowRegexes = builder.allowRegexes
        blockedDomains = DomainTable(builder.blocked)
        allowedDomains = DomainTable(builder.allowed)
    }

    /// An empty rule set.
    public convenience init() { self.init(RuleSetBuilder()) }

    public var blockedDomainCount: Int { blockedDomains.count }
    public var allowedDomainCount: Int { allowedDomains.count }
    public var regexCount: Int { blockRegexes.count + allowRegexes.count }
    /// Whether any rule allows: when none does, this set can only block.
    public var hasAllowRules: Bool { allowedDomains.count > 0 || !allowRegexes.isEmpty }

    /// Bytes held by the domain tables.
    public var memoryFootprint: Int { blockedDomains.memoryFootprint + allowedDomains.memoryFootprint }

    /// The rule that decides `wireName` (labels and root byte, any case), or nil if none applies.
    public func hit(wireName: UnsafeBufferPointer<UInt8>) -> RuleHit? {
        if let match = allowedDomains.match(wireName: wireName) { return .allowedByDomain(match) }
        if let index = Self.firstMatch(allowRegexes, wireName) { return .allowedByRegex(index) }
        if let match = blockedDomains.match(wireName: wireName) { return .blockedByDomain(match) }
        if let index = Self.firstMatch(blockRegexes, wireName) {
            return .blockedByRegex(index)
        }
        return nil
    }

    /// The most specific block rule that matches `wireName`, allow rules aside: a regular expression
    /// if one matches (it names whole names, so it is more specific than any listed domain), else the
    /// longest listed domain. Tells which of several lists (apps) a name belongs to.
    public func mostSpecificBlock(wireName: UnsafeBufferPointer<UInt8>) -> RuleHit? {
        if let index = Self.firstMatch(blockRegexes, wireName) { return .blockedByRegex(index) }
        return blockedDomains.match(wireName: wireName).map(RuleHit.blockedByDomain)
    }

    /// `hit(wireName:)` for a name given in presentation form.
    public func hit(name: String) -> RuleHit? {
        guard let wire = WireName.wire(fromPresentation: name) else { return nil }
        return wire.withUnsafeBufferPointer { hit(wireName: $0) }
    }

    private static func firstMatch(
        _ regexes: [(regex: PosixRegex, source: Int)], _ wireName: UnsafeBufferPointer<UInt8>
    )
        -> Int?
    {
        guard !regexes.isEmpty else { return nil }
        let text = WireName.presentation(of: wireName)
        return text.withCString { cText in regexes.firstIndex { $0.regex.matches(cText) } }
    }

    /// The rule as a person would write it, and where it came from: `||example.com^ (ads.txt)`.
    /// `wireName` is the name the hit was found for (labels and root byte), which holds the
    /// listed name.
    public func describe(_ hit: RuleHit, wireName: some BidirectionalCollection<UInt8>) -> String {
        switch hit {
        case .blockedByDomain(let match): describe(match, in: blockedDomains, prefix: "", wireName: wireName)
        case .allowedByDomain(let match): describe(match, in: allowedDomains, prefix: "@@", wireName: wireName)
        case .blockedByRegex(let index):
            "/\(blockRegexes[index].regex.pattern)/ (\(sources[blockRegexes[index].source]))"
        case .allowedByRegex(let index):
            "@@/\(allowRegexes[index].regex.pattern)/ (\(sources[allowRegexes[index].source]))"
        }
    }

    /// A domain block rule in parts, for a log that stores many without formatting each: its
    /// prefix ("||", "|" or "*."), the length of the listed name in wire form with its root byte
    /// (the last that many bytes of the query's wire name), and its list. Nil for other hits.
    public func domainBlockRule(_ hit: RuleHit) -> (prefix: String, listedWireLength: Int, source: String)? {
        guard case .blockedByDomain(let match) = hit else { return nil }
        let prefix: String
        switch blockedDomains.coverage(of: match) {
        case .subdomains: prefix = "*."
        case .name: prefix = "|"
        default: prefix = "||"
        }
        return (prefix, Int(match.wireLength) + 1, sources[blockedDomains.source(of: match)])
    }

    /// The source number (as `RuleSetBuilder.addSource` returned it) of the rule behind a hit.
    public func sourceIndex(of hit: RuleHit) -> Int {
        switch hit {
        case .blockedByDomain(let match): blockedDomains.source(of: match)
        case .allowedByDomain(let match): allowedDomains.source(of: match)
        case .blockedByRegex(let index): blockRegexes[index].source
        case .allowedByRegex(let index): allowRegexes[index].source
        }
    }

    /// How specific the rule behind a hit is: the wire length of the listed name it matched, so
    /// `a.b.example.com` beats `example.com`. A regular expression matches whole names and counts as
    /// more specific than any listed name.
    public func specificity(of hit: RuleHit) -> Int {
        switch hit {
        case .blockedByDomain(let match), .allowedByDomain(let match): Int(match.wireLength)
        case .blockedByRegex, .allowedByRegex: Int.max
        }
    }

    /// The source name ("ads.txt") of the rule behind a hit.
    public func source(of hit: RuleHit) -> String {
        sources[sourceIndex(of: hit)]
    }

    private func describe(
        _ match: DomainMatch, in table: DomainTable, prefix: String, wireName: some BidirectionalCollection<UInt8>
    ) -> String {
        let name = match.listedName(in: wireName)
        let rule: String
        switch table.coverage(of: match) {
        case .subdomains: rule = "*.\(name)"
        case .name: rule = "|\(name)^"
        default: rule = "||\(name)^"
        }
        return "\(prefix)\(rule) (\(sources[table.source(of: match)]))"
    }
}

/// Gathers the rules of several lists before they are compiled into a `RuleSet`.
public struct RuleSetBuilder: Sendable {
    var blocked = DomainTableBuilder()
    var allowed = DomainTableBuilder()
    var blockRegexes: [(regex: PosixRegex, source: Int)] = []
    var allowRegexes: [(regex: PosixRegex, source: Int)] = []
    /// The states of the regular expressions taken so far, all lists together.
    var regexStates = 0
    var sources: [String] = []
    /// Block rules as written, kept only when `keepsBlockRules` is set (for app lists, which other
    /// blockers are given; large lists are not kept).
    public var keepsBlockRules = false
    public private(set) var keptBlockRules: [DomainRule] = []

    /// The most states the regular expressions of all lists together may take (about 40 MB): some
    /// 100,000 everyday expressions of a few dozen states, or 64 as large as `[a-z]{1,253}`. Every
    /// query is matched against each, so a list of millions would cost memory and time alike.
    public static let regexStateBudget = 4_194_304

    public init() {}

    /// Keeps `rule` when `keepsBlockRules` is set; otherwise does not even make it (a large list
    /// would pay a string per rule).
    mutating func keep(_ rule: @autoclosure () -> DomainRule) {
        if keepsBlockRules { keptBlockRules.append(rule()) }
    }

    /// Registers a list by the name reasons will show, and returns its source number.
    public mutating func addSource(_ name: String) -> Int {
        sources.append(name)
        return sources.count - 1
    }

    /// Compiles the gathered rules.
    public consuming func build() -> RuleSet { RuleSet(self) }
}

/// One block rule in a form other blockers understand (Pi-hole, AdGuard Home, NextDNS).
public enum DomainRule: Sendable, Hashable, Codable {
    /// The name and every subdomain (`example.com`, `||example.com^`, hosts lines).
    case domain(String)
    /// Subdomains only (`*.example.com`).
    case subdomains(String)
    /// A POSIX extended regex over the lower-case name without the final dot.
    case regex(String)
}

extension DomainRule {
    /// The rule for `name` with `coverage`; the name alone is a regex to other blockers.
    init(name: UnsafeBufferPointer<UInt8>, coverage: Coverage) {
        var text = String(decoding: name, as: UTF8.self).lowercased()
        if text.hasSuffix(".") { text.removeLast() }
        switch coverage {
        case .name: self = .regex("^" + text.replacing(".", with: "\\.") + "$")
        case .subdomains: self = .subdomains(text)
        default: self = .domain(text)
        }
    }
}
