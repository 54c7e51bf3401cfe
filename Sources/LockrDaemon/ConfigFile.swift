import ConfigKit
import DNSFilter
import DNSProxy
import DNSWire
import Foundation
import LockrAdapters
import LockrPolicy
import LockrPuzzles
import NIOCore

/// One thing wrong in a config file, located by line and key.
public struct ConfigIssue: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line, when known.
    public let line: Int?
    /// Dotted key ("cache.size"), when the problem belongs to one.
    public let key: String?
    public let message: String

    public var description: String {
        var parts: [String] = []
        if let line { parts.append("line \(line)") }
        if let key { parts.append("key '\(key)'") }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}

/// Every issue found in a config file.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let issues: [ConfigIssue]
    public var description: String { issues.map { "\(path): \($0)" }.joined(separator: "\n") }
}

/// Reads lockr's TOML config file onto a configuration, reporting every problem at once.
///
/// The keys, their types and defaults are documented in docs/configuration.md.
public enum ConfigFile {
    /// Applies the settings of `text` to `base`.
    public static func parse(
        _ text: String, path: String, onto base: LockrConfiguration = LockrConfiguration()
    )
        throws(ConfigErrors) -> LockrConfiguration
    {
        var reader = ConfigReader(table: try TOMLConfig.table(text, path: path))
        var config = base
        reader.apply(to: &config)
        guard reader.problems.isEmpty else {
            let lines = KeyLines(text: text)
            let issues = reader.problems.map {
                ConfigIssue(line: $0.key.flatMap(lines.line(of:)), key: $0.key, message: $0.message)
            }
            throw ConfigErrors(path: path, issues: issues.sorted { ($0.line ?? 0) < ($1.line ?? 0) })
        }
        return config
    }
}

extension ConfigFile {
    /// The `state-dir` a config file names, if any, without checking the rest of it (the CLI needs
    /// only this to find the daemon). Fails only when the file is not TOML or the key not a string.
    public static func stateDirectory(in text: String, path: String) throws(ConfigErrors) -> String? {
        guard let value = try TOMLConfig.table(text, path: path)["state-dir"] else { return nil }
        guard let directory = value.string else {
            throw ConfigErrors(
                path: path,
                issues: [
                    ConfigIssue(
                        line: KeyLines(text: text).line(of: "state-dir"), key: "state-dir", message: "expected a string"
                    )
                ])
        }
        return directory
    }

    /// Every key lockr reads, dotted ("cache.size"), tables excluded.
    static var knownKeys: [String] {
        ConfigReader.topLevel.filter {
            ConfigReader.sections[$0] == nil && !["apps", "people", "schedules", "profiles"].contains($0)
        }
            + ConfigReader.sections.flatMap { section, keys in keys.map { "\(section).\($0)" } }
    }
}

/// Walks the config file's table, one known key at a time, collecting problems.
extension ConfigReader {
    static let topLevel: Set<String> = [
        "listen", "upstreams", "state-dir", "blocklists", "allowlists", "catalogue", "log-level", "threads",
        "blocking", "cache", "upstream", "access", "tcp", "guard", "always-allow", "control", "web", "web-name", "apps",
        "policy", "time",
        "hourly", "extreme", "snooze", "extend", "emergency", "backends", "meter-from", "pihole6", "pihole5",
        "adguardhome", "nextdns", "webhook", "adapters", "people", "trusted-forwarders", "schedules", "profiles",
        "protection-off-after", "puzzles", "speech-model", "query-log", "notify",
    ]
    /// The sections a person's table may hold: the top level's policy sections.
    static let personSections = PolicySettings.configSections.map(\.name) + ["query-log"]
    /// The keys of a person's table besides those sections.
    static let personKeys: Set<String> = [
        "devices", "guard", "always-allow", "blocklists", "allowlists", "schedules", "profiles",
    ]
    static let sections: [String: Set<String>] = [
        "blocking": ["mode", "ttl", "anti-bypass"],
        "cache": CacheSettings.keys,
        "upstream": ForwardSettings.keys,
        "access": ["allow"],
        "tcp": TCPSettings.keys,
        "pihole6": ["url", "password-file", "password-env", "clients", "group"],
        "pihole5": ["url", "token-file", "token-env"],
        "adguardhome": ["url", "username", "password-file", "password-env", "clients"],
        "nextdns": ["url", "profile", "api-key-file", "api-key-env"],
        "webhook": ["url", "token-file", "token-env", "events", "events-url", "events-token-file", "events-token-env"],
        "adapters": ["reconcile-seconds", "retry-max-seconds", "log-seconds", "timeout-seconds"],
        "query-log": QueryLogSettings.keys,
        "notify": ["suggestions"],
    ].merging(PolicySettings.configSections.map { ($0.name, $0.keys) }) { _, policy in policy }
        .merging(["policy": PolicySettings.configSections[0].keys.union(["block-ttl"])]) { _, topLevel in topLevel }
    /// The keys of a person's sections, where they differ from the top level's.
    static let personSectionKeys: [String: Set<String>] = [
        "policy": sections["policy"]!.subtracting(["block-ttl"]), "query-log": ["privacy"],
    ]

    mutating func apply(to config: inout LockrConfiguration) {
        let named = namedBackends()
        for key in table.keys where !Self.topLevel.contains(key) && named[key] == nil {
            if table[key]?.table?["kind"] != nil {
                problem(key, "is configured but not listed in backends")
            } else {
                problem(key, "unknown key")
            }
        }
        var sections = Self.sections
        for case (let name, let kind?) in named {
            sections[name] = (Self.sections[kind.rawValue] ?? []).union(["kind"])
        }
        for (section, keys) in sections {
            guard let value = table[section] else { continue }
            guard let subtable = value.table else {
                problem(section, "expected a table ([\(section)])")
                continue
            }
            for key in subtable.keys where !keys.contains(key) { problem("\(section).\(key)", "unknown key") }
        }

        if let list = strings("listen") {
            config.listen = addresses(list, key: "listen", defaultPort: nil)
            if list.isEmpty { problem("listen", "needs at least one address") }
        }
        if let list = strings("upstreams") { config.upstreams = addresses(list, key: "upstreams", defaultPort: 53) }
        if let value = string("state-dir") { config.stateDirectory = value }
        if let list = strings("blocklists") { config.blocklists = list }
        if let list = strings("allowlists") { config.allowlists = list }
        if let value = string("catalogue") { config.catalogueDirectory = value }
        if let value = string("log-level") {
            if LockrConfiguration.logLevels.contains(value) {
                config.logLevel = value
            } else {
                problem("log-level", "expected \(LockrConfiguration.logLevelsText)")
            }
        }

        if let value = integer("threads", in: 1...256) { config.threads = value }

        if let value = string("blocking.mode") {
            if let answer = BlockAnswer(value) {
                config.blockAnswer = answer
            } else {
                problem("blocking.mode", "expected null, nxdomain, refused or an IP address, not '\(value)'")
            }
        }
        if let value = integer("blocking.ttl", in: 0...86_400) { config.blockTTL = UInt32(value) }
        if let value = bool("blocking.anti-bypass") { config.names.antiBypass = value }

        read(&config.cache, at: "cache")
        read(&config.forwarding, at: "upstream")

        if let list = strings("access.allow") {
            var networks: [IPNetwork] = []
            for entry in list {
                if let network = IPNetwork(entry) {
                    networks.append(network)
                } else {
                    problem("access.allow", "'\(entry)' is not a network (CIDR such as 192.168.0.0/16)")
                }
            }
            if !list.isEmpty { config.access = AccessControl(networks: networks) }
        }

        read(&config.tcp, at: "tcp")
        applyGuard(to: &config)
        applyBackends(to: &config)
        applyPolicy(to: &config.policy)
        if let value = integer("policy.block-ttl", in: 0...3600) { config.guardBlockTTL = UInt32(value) }
        for found in config.policy.problems() { problem("policy", found) }
        if let value = string("protection-off-after") {
            if let seconds = DurationText.seconds(value, plainUnit: nil), (60...7 * 86_400).contains(seconds) {
                config.protectionOffAfter = .seconds(seconds)
            } else {
                problem(
                    "protection-off-after", "expected a duration from 1 min to 7 days such as \"10m\", not '\(value)'")
            }
        }
        if let value = string("speech-model") { config.speechModel = value }
        read(&config.queryLog, at: "query-log")
        if let suggestions = strings("notify.suggestions") {
            if let long = suggestions.first(where: { $0.count > 200 }) {
                problem("notify.suggestions", "a suggestion is at most 200 characters, not \(long.count)")
            } else {
                config.suggestions = suggestions.filter { !$0.isEmpty }
            }
        }
        config.schedules = schedules(under: "") ?? []
        config.profiles = profiles(under: "")
        applyPeople(to: &config)
    }

    /// `[people.NAME]` tables, each on top of the top level's policy, and `trusted-forwarders`.
    private mutating func applyPeople(to config: inout LockrConfiguration) {
        if let list = strings("trusted-forwarders") {
            config.trustedForwarders = list.compactMap { entry in
                if let network = IPNetwork(entry) { return network }
                problem(
                    "trusted-forwarders", "'\(entry)' is not an address or network (such as 127.0.0.1 or 192.168.1.1)")
                return nil
            }
        }
        guard let value = table["people"] else { return }
        guard let people = value.table else {
            problem("people", "expected a table per person ([people.NAME])")
            return
        }
        var owners: [String: String] = [:]
        for name in people.keys {
            let key = "people.\(name)"
            if let found = People.problem(with: name) {
                problem(key, found)
                continue
            }
            guard name != People.defaultName else {
                problem(
                    key, "'\(name)' is every other device's person, whose policy is the top level; pick another name")
                continue
            }
            guard let section = people[name]?.table else {
                problem(key, "expected a table ([\(key)])")
                continue
            }
            for entry in section.keys where !Self.personKeys.contains(entry) {
                guard Self.personSections.contains(entry) else {
                    problem(
                        "\(key).\(entry)",
                        "unknown key (a person takes devices, guard, always-allow, blocklists, allowlists, schedules, profiles and the sections \(Self.personSections.joined(separator: ", ")))"
                    )
                    continue
                }
                guard let subtable = section[entry]?.table else {
                    problem("\(key).\(entry)", "expected a table ([\(key).\(entry)])")
                    continue
                }
                let allowed = Self.personSectionKeys[entry] ?? Self.sections[entry] ?? []
                for subkey in subtable.keys where !allowed.contains(subkey) {
                    problem("\(key).\(entry).\(subkey)", "unknown key")
                }
            }
            var person = PersonSettings(name: name, policy: config.policy)
            for text in strings("\(key).devices") ?? [] {
                guard let device = DeviceSpec(text) else {
                    problem(
                        "\(key).devices", "'\(text)' is not a MAC address (aa:bb:cc:dd:ee:ff), an address or a network")
                    continue
                }
                if let owner = owners[device.description] {
                    problem("\(key).devices", "\(device) is already a device of \(owner)")
                    continue
                }
                owners[device.description] = name
                person.devices.append(device)
            }
            person.guarded = strings("\(key).guard")
            person.alwaysAllow = strings("\(key).always-allow")
            person.blocklists = strings("\(key).blocklists") ?? []
            person.allowlists = strings("\(key).allowlists") ?? []
            person.schedules = schedules(under: key + ".")
            person.profiles = profiles(under: key + ".")
            person.queryLogPrivacy = queryLogPrivacy("\(key).query-log.privacy")
            applyPolicy(to: &person.policy, prefix: key + ".")
            for found in person.policy.problems() { problem(key, found) }
            config.people.append(person)
        }
    }

    /// The tables `[PREFIXKEY.NAME]` in file order, each checked to hold only `keys`.
    private mutating func namedTables(_ key: String, keys: [String], what: String) -> [(name: String, key: String)]? {
        guard let raw = value(key) else { return nil }
        guard let tables = raw.table else {
            problem(key, "expected a table per \(what) ([\(key).NAME])")
            return []
        }
        return tables.keys.compactMap { name in
            let entry = "\(key).\(name)"
            guard let section = tables[name]?.table else {
                problem(entry, "expected a table ([\(entry)])")
                return nil
            }
            for unknown in section.keys.sorted() where !keys.contains(unknown) {
                problem("\(entry).\(unknown)", "unknown key (a \(what) takes \(keys.joined(separator: ", ")))")
            }
            return (name, entry)
        }
    }

    /// `[PREFIXschedules.NAME]`: days, from, to and block; nil when there is no such table.
    private mutating func schedules(under prefix: String) -> [Schedule]? {
        namedTables(prefix + "schedules", keys: ["days", "from", "to", "block"], what: "schedule")?.compactMap {
            name, key in
            let daysText = string("\(key).days") ?? "daily"
            guard let days = Weekdays(daysText) else {
                problem("\(key).days", "expected days such as \"mon-fri\", \"sat,sun\" or \"daily\", not '\(daysText)'")
                return nil
            }
            var times: [Int] = []
            for end in ["from", "to"] {
                guard let text = string("\(key).\(end)"), let minutes = Schedule.minutes(text) else {
                    problem("\(key).\(end)", "expected a time \"HH:MM\" (00:00 to 24:00)")
                    return nil
                }
                times.append(minutes)
            }
            let schedule = Schedule(
                name: name, days: days, from: times[0], to: times[1], block: strings("\(key).block") ?? [])
            if let found = schedule.problem {
                problem(key, found)
                return nil
            }
            return schedule
        }
    }

    /// `[PREFIXprofiles.NAME]`: block.
    private mutating func profiles(under prefix: String) -> [Profile] {
        (namedTables(prefix + "profiles", keys: ["block"], what: "profile") ?? []).compactMap { name, key in
            let profile = Profile(name: name, block: strings("\(key).block") ?? [])
            if let found = profile.problem {
                problem(key, found)
                return nil
            }
            return profile
        }
    }

    private mutating func applyGuard(to config: inout LockrConfiguration) {
        if let list = strings("guard") { config.guarded = list }
        if let list = strings("always-allow") { config.names.alwaysAllow = list }
        if let value = string("control") {
            if let address = AddressText.parse(value, defaultPort: nil) {
                if AddressText.isLoopback(address) {
                    config.control = address
                } else {
                    problem("control", "must be a loopback address (127.0.0.1 or [::1]): the API has no TLS")
                }
            } else {
                problem("control", "'\(value)' is not ADDR:PORT or [V6]:PORT")
            }
        }
        if let value = string("web") {
            if value == "off" {
                config.web = nil
            } else if let address = AddressText.parse(value, defaultPort: nil) {
                config.web = address
            } else {
                problem("web", "'\(value)' is not ADDR:PORT, [V6]:PORT or off")
            }
        }
        if let value = string("web-name") {
            if value == "off" {
                config.webName = nil
            } else if value.count <= 253, WireName.wire(fromPresentation: value) != nil, !value.contains(" ") {
                config.webName = value
            } else {
                problem("web-name", "'\(value)' is not a DNS name (such as lockr.lan) or off")
            }
        }
        if let value = table["apps"] {
            guard let apps = value.table else {
                problem("apps", "expected a table ([apps]) of app id = [domains]")
                return
            }
            for id in apps.keys.sorted() {
                guard id.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" }), id.first?.isLetter == true else {
                    problem("apps.\(id)", "an app id is lower-case letters, digits and '-'")
                    continue
                }
                if let domains = strings("apps.\(id)") {
                    if domains.isEmpty { problem("apps.\(id)", "needs at least one domain") }
                    for domain in domains {
                        var builder = RuleSetBuilder()
                        let report = RuleListParser.parse(
                            Array(domain.utf8), role: .block, source: builder.addSource(id), into: &builder)
                        if let found = report.issues.first {
                            problem("apps.\(id)", "'\(domain)' is not a domain rule: \(found.reason)")
                        } else if report.rules != 1 {
                            problem("apps.\(id)", "'\(domain)' is not one domain rule")
                        }
                    }
                    config.names.customApps[id] = domains
                }
            }
        }
    }

    /// Backends listed by a name of their own (`backends = ["upstairs"]` with `[upstairs]` and
    /// `kind = "pihole6"`, for a second blocker of one kind), with their kind when it is valid.
    /// Nothing is reported here: `backendKind(named:)` does that.
    private func namedBackends() -> [String: BackendKind?] {
        var named: [String: BackendKind?] = [:]
        for name in (table["backends"]?.array ?? []).compactMap(\.string)
        where BackendKind(rawValue: name) == nil && !Self.topLevel.contains(name) {
            guard let section = table[name]?.table else { continue }
            named.updateValue(section["kind"]?.string.flatMap(BackendKind.init(rawValue:)), forKey: name)
        }
        return named
    }

    /// `backends`, each backend's section, `meter-from` and `[adapters]`.
    private mutating func applyBackends(to config: inout LockrConfiguration) {
        var listed: Set<String> = []
        if let list = strings("backends") {
            var answersDNS = false
            var backends: [BackendSettings] = []
            for name in list where !listed.contains(name) {
                listed.insert(name)
                if name == "dns" {
                    answersDNS = true
                } else if let kind = backendKind(named: name), let settings = backend(kind, section: name) {
                    backends.append(settings)
                }
            }
            if list.isEmpty { problem("backends", "needs at least one backend") }
            config.answersDNS = answersDNS
            config.backends = backends
        }
        for kind in BackendKind.allCases where table[kind.rawValue] != nil && !listed.contains(kind.rawValue) {
            problem(kind.rawValue, "is configured but not listed in backends")
        }
        if let value = string("meter-from") {
            if value == "dns" {
                config.meterFrom = nil
            } else if let backend = config.backends.first(where: { $0.name == value }), backend.kind != .webhook {
                config.meterFrom = backend.name
            } else {
                problem("meter-from", "expected dns or a backend with a query log listed in backends, not '\(value)'")
            }
        }
        if let value = integer("adapters.reconcile-seconds", in: 1...86_400) {
            config.adapterTiming.reconcileInterval = .seconds(value)
        }
        if let value = integer("adapters.retry-max-seconds", in: 1...3600) {
            config.adapterTiming.maximumBackoff = .seconds(value)
        }
        if let value = integer("adapters.log-seconds", in: 1...3600) {
            config.adapterTiming.logInterval = .seconds(value)
        }
        if let value = integer("adapters.timeout-seconds", in: 1...300) {
            for index in config.backends.indices { config.backends[index].timeout = .seconds(value) }
        }
    }

    /// The kind of the backend listed as `name`: the name itself, or the `kind` of its section.
    private mutating func backendKind(named name: String) -> BackendKind? {
        if let kind = BackendKind(rawValue: name) { return kind }
        let kinds = BackendKind.allCases.map(\.rawValue).joined(separator: ", ")
        guard !Self.topLevel.contains(name) else {
            problem("backends", "'\(name)' is one of lockr's own sections; give the backend another name")
            return nil
        }
        guard table[name]?.table != nil else {
            problem("backends", "unknown backend '\(name)' (dns, \(kinds), or the name of a section with a kind)")
            return nil
        }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            problem("backends", "backend name '\(name)' may hold only letters, digits, - and _")
            return nil
        }
        guard let kindName = string("\(name).kind") else {
            problem(name, "[\(name)] needs kind (\(kinds))")
            return nil
        }
        guard let kind = BackendKind(rawValue: kindName) else {
            problem("\(name).kind", "expected \(kinds), not '\(kindName)'")
            return nil
        }
        return kind
    }

    /// One backend's section (`[pihole6]`, or a named one).
    private mutating func backend(_ kind: BackendKind, section: String) -> BackendSettings? {
        let secretName: String
        switch kind {
        case .pihole6, .adguardhome: secretName = "password"
        case .pihole5, .webhook: secretName = "token"
        case .nextdns: secretName = "api-key"
        }
        let url = string("\(section).url") ?? (kind == .nextdns ? "https://api.nextdns.io" : nil)
        guard let url else {
            problem(section, "[\(section)] needs url")
            return nil
        }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            problem("\(section).url", "expected an http:// or https:// URL, not '\(url)'")
            return nil
        }
        var settings = BackendSettings(name: section, kind: kind, url: url)
        let file = string("\(section).\(secretName)-file")
        let environment = string("\(section).\(secretName)-env")
        switch (file, environment) {
        case (let file?, nil): settings.secret = .file(file)
        case (nil, let name?): settings.secret = .environment(name)
        case (_?, _?): problem("\(section).\(secretName)-file", "set \(secretName)-file or \(secretName)-env, not both")
        case (nil, nil):
            if [.pihole5, .nextdns].contains(kind) {
                problem(
                    section,
                    "needs \(secretName)-file or \(secretName)-env (secrets are never given on the command line)")
            }
        }
        if kind == .nextdns {
            guard let profile = string("\(section).profile"), !profile.isEmpty else {
                problem(section, "needs profile (the NextDNS configuration id)")
                return nil
            }
            settings.profile = profile
        }
        if let clients = strings("\(section).clients") { settings.clients = clients }
        if let group = string("\(section).group") { settings.group = group }
        if let username = string("\(section).username") { settings.username = username }
        if let value = string("\(section).events") {
            if let events = WebhookEvents(rawValue: value) {
                settings.events = events
            } else {
                problem(
                    "\(section).events",
                    "expected json (every live event), text (notifications, as ntfy takes them) or off, not '\(value)'")
            }
        }
        if let value = string("\(section).events-url") {
            if value.hasPrefix("http://") || value.hasPrefix("https://") {
                settings.eventsURL = value
            } else {
                problem("\(section).events-url", "expected an http:// or https:// URL, not '\(value)'")
            }
        }
        switch (string("\(section).events-token-file"), string("\(section).events-token-env")) {
        case (let file?, nil): settings.eventsSecret = .file(file)
        case (nil, let name?): settings.eventsSecret = .environment(name)
        case (_?, _?): problem("\(section).events-token-file", "set events-token-file or events-token-env, not both")
        case (nil, nil): break
        }
        if settings.eventsSecret != nil, settings.eventsURL == nil {
            problem(
                "\(section).events-token-file",
                "an events token goes with events-url (without it, events use token-file)")
        }
        return settings
    }

    /// The policy's sections under `prefix` ("" for the top level, "people.NAME." for a person)
    /// onto `policy`.
    private mutating func applyPolicy(to policy: inout PolicySettings, prefix: String = "") {
        for section in PolicySettings.configSections { read(&policy, section.settings, at: prefix + section.name) }
    }

    private mutating func addresses(_ list: [String], key: String, defaultPort: Int?) -> [SocketAddress] {
        list.compactMap { text in
            if let address = AddressText.parse(text, defaultPort: defaultPort) { return address }
            problem(
                key, "'\(text)' is not an address (\(defaultPort == nil ? "ADDR:PORT or [V6]:PORT" : "ADDR[:PORT]"))")
            return nil
        }
    }
}
