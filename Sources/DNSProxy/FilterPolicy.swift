import DNSFilter
import DNSWire
import Synchronization

/// How blocked names are answered.
public enum BlockAnswer: Sendable, Equatable, CustomStringConvertible {
    /// A 0.0.0.0, AAAA ::, NODATA for other types (the default).
    case null
    case nxdomain
    case refused
    /// A and/or AAAA pointing at a custom address; the other family and other types get NODATA.
    case address(ipv4: [UInt8]?, ipv6: [UInt8]?)

    /// Reads `null`, `nxdomain`, `refused` or an IP address.
    public init?(_ text: String) {
        switch text.lowercased() {
        case "null": self = .null
        case "nxdomain": self = .nxdomain
        case "refused": self = .refused
        default:
            guard let bytes = IPAddressBytes.parse(text) else { return nil }
            self = bytes.count == 4 ? .address(ipv4: bytes, ipv6: nil) : .address(ipv4: nil, ipv6: bytes)
        }
    }

    public var description: String {
        switch self {
        case .null: "null"
        case .nxdomain: "nxdomain"
        case .refused: "refused"
        case .address(let ipv4, let ipv6): IPAddressBytes.format(ipv4 ?? ipv6 ?? [])
        }
    }

    private static let nullAddresses = SynthesizedAnswer.address(
        ipv4: [0, 0, 0, 0], ipv6: [UInt8](repeating: 0, count: 16))

    var synthesized: SynthesizedAnswer {
        switch self {
        case .null: Self.nullAddresses
        case .nxdomain: .nameError
        case .refused: .refused
        case .address(let ipv4, let ipv6): .address(ipv4: ipv4, ipv6: ipv6)
        }
    }
}

/// Why a query is answered locally. Turned into text only for clients that can receive it (EDNS).
public enum BlockReason: Sendable, Equatable {
    /// A rule of the shared lists.
    case rule(RuleHit)
    /// A rule of the lists of the person who asked.
    case personRule(RuleHit)
    /// A rule of the entries and lists the person who asked was given while lockr runs.
    case entryRule(RuleHit)
    /// A name lockr answers itself: one that switches off a way around lockr, or the doctor's probe
    /// (the text says which).
    case antiBypass(String)
    /// An app's name, closed by the rationing policy.
    case guarded(PolicyBlock)
}

/// Why the rationing policy closed an app: the app, a stable code (`budget_spent`, `hour_used`,
/// `cooldown`, `locked`, `schedule`, `profile`) and the sentence that explains it.
public struct PolicyBlock: Sendable, Equatable {
    public let app: String
    public let code: String
    public let text: String

    public init(app: String, code: String, text: String) {
        self.app = app
        self.code = code
        self.text = text
    }
}

/// Why a query was blocked, as `FilterPolicy.explanation(for:client:)` gives it.
public enum BlockExplanation: Sendable, Equatable {
    /// In words.
    case text(String)
    /// A domain rule: "blocked by " + `prefix` + the listed name (the last `listedWireLength` bytes
    /// of the query's wire name) + "^" (unless the prefix is "*.") + " (" + `source` + ")".
    case domainRule(prefix: String, listedWireLength: Int, source: String)
}

/// The outcome of the policy stage for one query.
public enum FilterDecision: Sendable, Equatable {
    /// Resolve normally (cache, then upstream). The verdict holds for as long as this policy does.
    case resolve
    /// Resolve a name of `app`. The verdict may change at any moment, so it must be asked again on
    /// every query; a guarded app's answer may be cached by clients for at most `ttlCap` seconds.
    case resolveEachTime(ttlCap: UInt32?, app: String)
    /// Answer locally.
    case answer(SynthesizedAnswer, ttl: UInt32, reason: BlockReason)
    /// Answer with lockr's own address: the name of its web pages. No block.
    case pagesName(SynthesizedAnswer, ttl: UInt32)
}

/// The rationing policy's verdict on a query for an app's name.
public enum GuardAdmission: Sendable, Equatable {
    /// The app is not guarded.
    case notGuarded
    /// The app is open; clients may cache the answer for at most `ttl` seconds.
    case allow(ttl: UInt32)
    case block(PolicyBlock)
}

/// Decides queries for the names of guarded apps, by app id and the person who asked. Called on
/// the DNS hot path for every query of an app's name, so it must be quick; it also meters the app's
/// use.
public protocol GuardGate: Sendable {
    func admit(app: String, client: QueryClient) -> GuardAdmission
}

/// Who decides the names of apps, and how long their blocked answers live.
public struct GuardStage: Sendable {
    public let gate: any GuardGate
    /// TTL of a guarded app's blocked answer: short, so that an unlock takes effect quickly.
    public let blockTTL: UInt32

    public init(gate: any GuardGate, blockTTL: UInt32 = 5) {
        self.gate = gate
        self.blockTTL = blockTTL
    }
}

/// What one person's queries are filtered with besides the shared rule lists: their own lists, the
/// entries and lists they were given while lockr runs, and the names in force for them (which names are apps' names, what they always allow, anti-bypass,
/// safe search).
public struct PersonFilter: Sendable {
    public let antiBypass: Bool
    /// Which names belong to apps, for the guard stage; nil recognises none.
    public let apps: GuardSet?
    /// Their own block and allow lists, on top of the shared ones; nil when they have none.
    public let lists: RuleSet?
    /// The search engines' and YouTube's names their safe search answers; nil when it is off.
    public let safeSearch: SafeSearchAnswers?
    /// Their deny and allow entries and lists by URL made while lockr runs; nil when they have none.
    public let entries: RuleSet?

    public init(
        antiBypass: Bool = true, apps: GuardSet? = nil, lists: RuleSet? = nil, safeSearch: SafeSearchAnswers? = nil,
        entries: RuleSet? = nil
    ) {
        self.antiBypass = antiBypass
        self.apps = apps
        self.lists = lists
        self.safeSearch = safeSearch
        self.entries = entries
    }

    /// Whether both filter alike (the same objects, not merely equal ones).
    func isSame(as other: PersonFilter) -> Bool {
        antiBypass == other.antiBypass && apps === other.apps && lists === other.lists
            && safeSearch === other.safeSearch && entries === other.entries
    }
}

/// The blocking stage that runs before the cache: anti-bypass names, the rule lists, then the guard
/// stage for the names of apps, each as the person who asked has them.
///
/// A person's own lists and entries add to the shared ones as Pi-hole's groups do: an allow rule of
/// any beats a block rule of any. No allow rule opens a guarded app; only its policy does.
///
/// Apart from app names, a policy's verdict depends on the name and the person's filter alone, so
/// the cache may remember that a name was allowed under a given stamp (`stamp(for:)`): one for each
/// distinct person filter of each policy made, so that what one person may resolve is never served
/// from the cache to another whose filter differs.
public struct FilterPolicy: Sendable {
    public let rules: RuleSet
    public let blockAnswer: BlockAnswer
    public let blockTTL: UInt32
    /// The distinct person filters; `filterOfPerson` maps a person's number to one.
    private let filters: [PersonFilter]
    private let filterOfPerson: [Int]
    public let guardStage: GuardStage?
    /// The name lockr answers with its web pages' address, if any.
    public let pagesName: PagesName?
    /// The names lockr answers itself to close ways around it.
    let localNames: LocalNames
    /// The first of the stamps this policy gives out (one per distinct filter).
    private let firstStamp: UInt64

    private static let stamps = Atomic<UInt64>(AnswerCache.alwaysCheck)

    /// - Parameter people: each person's filter by person number (`QueryClient.person`); a number
    ///   past the end is the default person's (0).
    public init(
        rules: RuleSet = RuleSet(), blockAnswer: BlockAnswer = .null, blockTTL: UInt32 = 60,
        people: [PersonFilter] = [PersonFilter()], guardStage: GuardStage? = nil, pagesName: PagesName? = nil,
        localNames: LocalNames = LocalNames()
    ) {
        self.pagesName = pagesName
        self.localNames = localNames
        self.rules = rules
        self.blockAnswer = blockAnswer
        self.blockTTL = blockTTL
        var filters: [PersonFilter] = []
        var filterOfPerson: [Int] = []
        for person in people.isEmpty ? [PersonFilter()] : people {
            if let index = filters.firstIndex(where: { $0.isSame(as: person) }) {
                filterOfPerson.append(index)
            } else {
                filterOfPerson.append(filters.count)
                filters.append(person)
            }
        }
        self.filters = filters
        self.filterOfPerson = filterOfPerson
        self.guardStage = guardStage
        firstStamp = Self.stamps.add(UInt64(filters.count), ordering: .relaxed).newValue - UInt64(filters.count) + 1
    }

    @inline(__always)
    private func filterIndex(_ client: QueryClient) -> Int {
        client.person < filterOfPerson.count ? filterOfPerson[client.person] : filterOfPerson[0]
    }

    /// What the cache remembers a name allowed for `client` under: the same for every person whose
    /// filter is the same, never `AnswerCache.alwaysCheck`.
    @inline(__always)
    public func stamp(for client: QueryClient) -> UInt64 { firstStamp + UInt64(filterIndex(client)) }

    public func decide(_ query: DNSQuery, client: QueryClient) -> FilterDecision {
        let person = filters[filterIndex(client)]
        return query.packet.withUnsafeBufferPointer { packet in
            let name = UnsafeBufferPointer(rebasing: packet[DNSLimits.headerSize..<query.nameEnd])
            if let pagesName, pagesName.matches(name) { return .pagesName(pagesName.answer, ttl: PagesName.ttl) }
            if let local = localNames.rule(for: name), local.always || person.antiBypass {
                return .answer(local.answer, ttl: blockTTL, reason: .antiBypass(local.reason))
            }
            let isServiceBinding = query.type == RecordType.https || query.type == RecordType.svcb
            let answer = isServiceBinding ? .noData : blockAnswer.synthesized
            if let reason = listed(name, person) {
                return .answer(answer, ttl: blockTTL, reason: reason)
            }
            guard let guardStage, let apps = person.apps, let app = apps.app(forWireName: name) else {
                return .resolve
            }
            let id = apps.appIDs[app]
            switch guardStage.gate.admit(app: id, client: client) {
            case .notGuarded: return .resolveEachTime(ttlCap: nil, app: id)
            case .allow(let ttl): return .resolveEachTime(ttlCap: ttl, app: id)
            case .block(let block): return .answer(answer, ttl: guardStage.blockTTL, reason: .guarded(block))
            }
        }
    }

    /// The safe-search answer for `query` of `client`, when their safe search covers its name.
    public func safeSearch(_ query: DNSQuery, client: QueryClient) -> SafeSearchAnswers.Entry? {
        guard let answers = filters[filterIndex(client)].safeSearch else { return nil }
        return query.packet.withUnsafeBufferPointer { packet in
            answers.entry(for: UnsafeBufferPointer(rebasing: packet[DNSLimits.headerSize..<query.nameEnd]))
        }
    }

    /// The setting of `client`'s safe search in words ("search engines, YouTube strict"), nil when off.
    public func safeSearchSetting(of client: QueryClient) -> String? {
        filters[filterIndex(client)].safeSearch?.setting
    }

    /// The block rule that decides `name` for `person`, or nil when none does or an allow rule of
    /// any of their rule sets overrides it.
    @inline(__always)
    private func listed(_ name: UnsafeBufferPointer<UInt8>, _ person: PersonFilter) -> BlockReason? {
        let shared = rules.hit(wireName: name)
        if let shared, !shared.isBlock { return nil }
        guard person.lists != nil || person.entries != nil else { return shared.map(BlockReason.rule) }
        var found = shared.map(BlockReason.rule)
        // A block found stands unless the person's allow rules might lift it.
        if let own = person.lists, found == nil || own.hasAllowRules, let hit = own.hit(wireName: name) {
            guard hit.isBlock else { return nil }
            if found == nil { found = .personRule(hit) }
        }
        if let entries = person.entries, found == nil || entries.hasAllowRules, let hit = entries.hit(wireName: name) {
            guard hit.isBlock else { return nil }
            if found == nil { found = .entryRule(hit) }
        }
        return found
    }

    /// Why `reason` blocked a query of `client` for `wireName` (labels and root byte), in parts a
    /// log can store cheaply: a domain rule without formatting it, anything else in the words of
    /// its Extended DNS Error.
    public func explanation(
        for reason: BlockReason, client: QueryClient, wireName: ArraySlice<UInt8>
    )
        -> BlockExplanation
    {
        let rule: (prefix: String, listedWireLength: Int, source: String)?
        switch reason {
        case .rule(let hit): rule = rules.domainBlockRule(hit)
        case .personRule(let hit): rule = filters[filterIndex(client)].lists?.domainBlockRule(hit)
        case .entryRule(let hit): rule = filters[filterIndex(client)].entries?.domainBlockRule(hit)
        case .guarded(let block): return .text(block.text)
        case .antiBypass(let text): return .text(text)
        }
        guard let rule else { return .text(extendedError(for: reason, client: client, wireName: wireName).text) }
        return .domainRule(prefix: rule.prefix, listedWireLength: rule.listedWireLength, source: rule.source)
    }

    /// The Extended DNS Error that explains `reason`, given to `client` for `wireName` (labels and
    /// root byte), the name that was blocked: a domain rule's listed name is its last labels.
    public func extendedError(
        for reason: BlockReason, client: QueryClient, wireName: ArraySlice<UInt8>
    )
        -> ExtendedError
    {
        switch reason {
        case .rule(let hit):
            ExtendedError(code: .blocked, text: "blocked by \(rules.describe(hit, wireName: wireName))")
        case .personRule(let hit):
            ExtendedError(
                code: .blocked,
                text:
                    "blocked by \(filters[filterIndex(client)].lists?.describe(hit, wireName: wireName) ?? "a list of theirs")"
            )
        case .entryRule(let hit):
            ExtendedError(
                code: .blocked,
                text:
                    "blocked by \(filters[filterIndex(client)].entries?.describe(hit, wireName: wireName) ?? "an entry of theirs")"
            )
        case .antiBypass(let text): ExtendedError(code: .blocked, text: text)
        case .guarded(let block): ExtendedError(code: .blocked, text: block.text)
        }
    }
}

/// Names lockr answers itself: those that switch off protections clients would otherwise use to
/// go around lockr (unless anti-bypass is off), and the probe `lockr doctor` asks through the
/// system's resolver to see that it reaches lockr.
public enum LocalAnswers {
    struct Rule {
        let answer: SynthesizedAnswer
        let reason: String
        /// Answered even with anti-bypass off.
        var always = false
    }

    /// Every name under it is answered with `probeAddress` (A; AAAA gets no data).
    public static let probeDomain = "lockr-probe.internal"
    /// 127.76.75.82: "LKR" on the loopback network, which nothing else answers.
    public static let probeAddress: [UInt8] = [127, 76, 75, 82]

    /// Whether `answer` (a whole DNS message) is lockr's answer to its probe: NOERROR with
    /// `probeAddress` in it.
    public static func isProbeAnswer(_ answer: [UInt8]) -> Bool {
        guard answer.count >= 16, answer[3] & 0x0F == 0, answer[6] != 0 || answer[7] != 0 else { return false }
        return (12...(answer.count - 4)).contains { answer[$0..<($0 + 4)].elementsEqual(probeAddress) }
    }

    static let fixed: [String: Rule] = [
        probeDomain: Rule(
            answer: .address(ipv4: probeAddress, ipv6: nil), reason: "lockr doctor's probe", always: true),
        // NXDOMAIN tells Firefox not to turn on DNS over HTTPS by itself.
        "use-application-dns.net": Rule(answer: .nameError, reason: "anti-bypass: Firefox DNS-over-HTTPS canary"),
        // NXDOMAIN turns iCloud Private Relay off.
        "mask.icloud.com": Rule(answer: .nameError, reason: "anti-bypass: iCloud Private Relay"),
        "mask-h2.icloud.com": Rule(answer: .nameError, reason: "anti-bypass: iCloud Private Relay"),
        // NODATA: clients find no designated encrypted resolver to upgrade to (RFC 9462).
        "resolver.arpa": Rule(answer: .noData, reason: "anti-bypass: no designated resolver"),
    ]
}

/// The names one filter answers itself: `LocalAnswers`' own, and the DNS-over-HTTPS services'
/// names (the catalogue's `anti-bypass/doh.txt`), answered NXDOMAIN so that a device of a guarded
/// person cannot find a resolver that goes around lockr.
public struct LocalNames: Sendable {
    private let rules: [String: LocalAnswers.Rule]
    private let table: RuleSet

    /// `LocalAnswers`' names, and `dnsOverHTTPS` (each with its subdomains).
    public init(dnsOverHTTPS: [String] = []) {
        var rules = LocalAnswers.fixed
        for name in dnsOverHTTPS where rules[name] == nil {
            rules[name] = LocalAnswers.Rule(answer: .nameError, reason: "anti-bypass: DNS-over-HTTPS service \(name)")
        }
        // Each name is its own source, so a hit's source names its rule.
        var builder = RuleSetBuilder()
        for name in rules.keys.sorted() {
            let source = builder.addSource(name)
            _ = RuleListParser.parse(Array(name.utf8), role: .block, source: source, into: &builder)
        }
        self.rules = rules
        table = builder.build()
    }

    @inline(__always)
    func rule(for name: UnsafeBufferPointer<UInt8>) -> LocalAnswers.Rule? {
        guard let hit = table.hit(wireName: name) else { return nil }
        return rules[table.source(of: hit)]
    }
}
