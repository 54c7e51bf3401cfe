import DNSProxy
import DNSWire
import Foundation
import LockrAdapters
import LockrDnstap
import LockrLists
import LockrPolicy
import Logging
import NIOCore

/// Everything `lockr serve` runs with. Defaults are the embedded configuration.
public struct LockrConfiguration: Sendable, Equatable {
    /// Addresses to answer on (UDP and TCP).
    public var listen: [SocketAddress] = [
        try! SocketAddress(ipAddress: "127.0.0.1", port: 5335), try! SocketAddress(ipAddress: "::1", port: 5335),
    ]
    /// Addresses to answer DNS over TLS and DNS over HTTPS on (`[tls]` gives the certificate).
    public var listenTLS: [SocketAddress] = []
    public var listenHTTPS: [SocketAddress] = []
    /// lockr's certificate and name for DNS over TLS and HTTPS.
    public var tls = ServingTLSSettings.defaults
    /// Upstream resolvers; empty means the name servers of /etc/resolv.conf.
    public var upstreams: [UpstreamEntry] = []
    /// Domains whose names go to other servers than the upstreams (`[[forward]]` tables).
    public var forwards: [ForwardRule] = []
    /// The home's own names (`[local]`).
    public var local = LocalSettings.defaults
    public var stateDirectory: String = LockrConfiguration.defaultStateDirectory()
    /// Block and allow lists: files, or URLs kept up to date as `lists` says.
    public var blocklists: [String] = []
    public var allowlists: [String] = []
    public var lists = ListSettings.defaults
    /// The app catalogue directory; nil means the `blocklists/` found next to the program.
    public var catalogueDirectory: String?
    /// One of `logLevels`.
    public var logLevel: String = "info"
    /// swift-log's levels, by name: what `log-level` and `--log-level` take.
    public static let logLevels = Logger.Level.allCases.map(\.rawValue)
    /// "trace, debug, ... or critical".
    public static var logLevelsText: String { logLevels.dropLast().joined(separator: ", ") + " or " + logLevels.last! }

    public var blockAnswer: BlockAnswer = .null
    public var blockTTL: UInt32 = 60

    public var cache = CacheSettings.defaults
    public var forwarding = ForwardSettings.defaults
    public var access = AccessControl()

    /// Event-loop threads answering queries: half the cores, at least one. One thread answers well
    /// over 100k queries a second, far beyond a household; more only help a busy network.
    public var threads = max(1, System.coreCount / 2)

    public var tcp = TCPSettings.defaults

    /// Catalogue ids of the guarded apps.
    public var guarded: [String] = []
    /// The apps the configuration defines (`[apps]`), what guards never block (`always-allow`), and
    /// whether anti-bypass names are answered.
    public var names = NameRules()
    /// Modes, budgets, windows, gates and the day's calendar.
    public var policy = PolicySettings.defaults
    /// The default person's schedules, and every person's who has none of their own.
    public var schedules: [Schedule] = []
    /// Profiles every person may switch on for themselves.
    public var profiles: [Profile] = []
    /// The household's people besides the default person (whose policy is the top level), in file
    /// order.
    public var people: [PersonSettings] = []
    /// How long a device that has been seen may ask nothing, while still on the network and its
    /// person has guarded apps, before it is flagged "protection off" (policy time).
    public var protectionOffAfter: Duration = .seconds(600)
    /// Where PocketSphinx's en-us model is (acoustic model, language model, dictionary).
    public var speechModel = "/usr/share/pocketsphinx/model/en-us"
    /// Forwarders whose word on the device that asked (dnsmasq `add-mac`, `add-subnet`) is believed.
    public var trustedForwarders: [IPNetwork] = []
    /// TTL of a guarded app's blocked answer: short, so that an unlock takes effect quickly.
    public var guardBlockTTL: UInt32 = 5
    /// Where the control API listens.
    public var control = try! SocketAddress(ipAddress: "127.0.0.1", port: 5380)
    /// Where the web pages are served; nil: not served.
    public var web: SocketAddress? = try! SocketAddress(ipAddress: "127.0.0.1", port: 8080)
    /// The name lockr answers with the web pages' address (`web-name`); nil: none.
    public var webName: String? = "lockr.lan"

    /// The web pages' name as the DNS pipeline answers it; nil when there are no pages, no name, or
    /// the pages listen on every address.
    /// lockr's encrypted endpoints for devices that look for them (DDR): where it serves DNS over TLS
    /// or HTTPS under `[tls] name` on a port it was given (not 0).
    var designatedResolver: DesignatedResolver? {
        guard let name = tls.name else { return nil }
        return DesignatedResolver(
            name: name, tlsPort: listenTLS.first { $0.port != 0 }?.port,
            httpsPort: listenHTTPS.first { $0.port != 0 }?.port)
    }

    var pagesName: PagesName? {
        guard let web, let webName else { return nil }
        return PagesName(webName, serving: web)
    }
    /// Tests only: every DNS event loop is blocked this long after start, so that the watchdog's
    /// silence can be seen.
    public var testStallDNSAfter: Duration?
    /// How much faster than real time policy time runs (demos and tests).
    public var timeScale = 1.0
    /// Where policy time starts instead of the wall clock (demos and tests).
    public var startAt: Instant?
    /// Whether lockr answers DNS itself (`dns` in `backends`; the default).
    public var answersDNS = true
    /// Other blockers lockr drives.
    public var backends: [BackendSettings] = []
    /// The backend whose query log meters usage, or nil when lockr meters the DNS it answers.
    public var meterFrom: String?
    public var adapterTiming = AdapterTiming()
    /// Where resolvers lockr does not stand in front of send their dnstap, to meter use.
    public var dnstap = DnstapSettings()
    /// The query log: whether it is kept, for how long, and how much of the default person's queries
    /// (a person's `[people.NAME.query-log] privacy` overrides the level).
    public var queryLog = QueryLogSettings()
    /// Things to do instead, one of which each lock's live event carries (`[notify] suggestions`).
    public var suggestions = ["Read a few pages of a book.", "Go for a short walk.", "Stand up and stretch."]

    public init() {}

    /// Settings that are valid but almost certainly not what was meant; logged at start and printed
    /// by `check-config`.
    public var warnings: [String] {
        var warnings = people.filter(\.devices.isEmpty).map { person in
            "person \(person.name) has no devices: no query is theirs until `devices` lists some"
        }
        guard !answersDNS, meterFrom == nil, !dnstap.enabled else { return warnings }
        let logs = backends.filter { ![.webhook, .rpz].contains($0.kind) }.map(\.name)
        warnings.append(
            "nothing meters use: lockr answers no DNS (no \"dns\" in backends) and meter-from is \"dns\", "
                + "so time mode never spends a budget and open-on-first-query never opens a window"
                + (logs.isEmpty
                    ? "; resolvers lockr does not answer for can send it dnstap ([dnstap])"
                    : "; set meter-from = \"\(logs[0])\" to meter from its query log"))
        return warnings
    }

    /// The default person and then every configured one, each with their policy, guarded apps and
    /// app names resolved against the top level.
    public var household: [PersonSettings] {
        [
            PersonSettings(
                name: People.defaultName, policy: policy, guarded: guarded, alwaysAllow: names.alwaysAllow,
                schedules: schedules, profiles: profiles, queryLogPrivacy: queryLog.privacy)
        ]
            + people.map { person in
                var resolved = person
                resolved.guarded = person.guarded ?? guarded
                resolved.alwaysAllow = person.alwaysAllow ?? names.alwaysAllow
                resolved.schedules = person.schedules ?? schedules
                resolved.queryLogPrivacy = person.queryLogPrivacy ?? queryLog.privacy
                resolved.profiles =
                    profiles.filter { shared in !person.profiles.contains { $0.name == shared.name } }
                    + person.profiles
                return resolved
            }
    }

    /// /var/lib/lockr for root, else $XDG_STATE_HOME/lockr (or ~/.local/state/lockr, the home
    /// directory taken from the user database when HOME is unset; never a shared directory such as
    /// /tmp).
    public static func defaultStateDirectory(
        environment: [String: String] = ProcessEnvironment.current,
        isRoot: Bool = ProcessEnvironment.isRoot,
        home: () -> String? = ProcessEnvironment.homeDirectory
    ) -> String {
        if isRoot { return "/var/lib/lockr" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/lockr" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.local/state/lockr" }
        return (home() ?? "/var/lib") + (home() == nil ? "/lockr" : "/.local/state/lockr")
    }
}

/// One person of the household: their devices and their policy.
public struct PersonSettings: Sendable, Equatable {
    public var name: String
    /// MAC addresses, addresses and networks.
    public var devices: [DeviceSpec] = []
    /// The top level's policy with the person's own keys on top.
    public var policy: PolicySettings
    /// Their own `guard`, or nil for the top level's.
    public var guarded: [String]?
    /// Their own `always-allow`, or nil for the top level's.
    public var alwaysAllow: [String]?
    /// Their own `safe-search` and `youtube`, or nil for the top level's.
    public var safeSearch: Bool?
    public var youtube: SafeSearch.YouTube?
    /// Block and allow lists of their own, on top of the top level's.
    public var blocklists: [String] = []
    public var allowlists: [String] = []
    /// Their own schedules, or nil for the top level's.
    public var schedules: [Schedule]?
    /// Their own profiles (resolved: the household's with theirs on top).
    public var profiles: [Profile] = []
    /// How much of their queries the query log keeps, or nil for the top level's level.
    public var queryLogPrivacy: QueryLogPrivacy?

    /// The names in force for this person: the configuration's, with their own `always-allow`,
    /// `safe-search` and `youtube`.
    func names(_ shared: NameRules) -> NameRules {
        var names = shared
        names.alwaysAllow = alwaysAllow ?? shared.alwaysAllow
        if let safeSearch { names.safeSearch.searchEngines = safeSearch }
        if let youtube { names.safeSearch.youtube = youtube }
        return names
    }
}
