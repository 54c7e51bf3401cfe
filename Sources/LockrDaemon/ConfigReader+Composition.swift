import ConfigKit
import DNSFilter
import DNSProxy
import LockrAdapters
import LockrPolicy
import LockrRPZ
import NIOCore

/// Walks the config file's table, one known key at a time, collecting problems.
extension ConfigReader {
    /// The sections of the file and the keys each takes, from their declarations, and the backends'.
    static let sections: [String: Set<String>] = Dictionary(
        LockrConfiguration.configSections.filter { !$0.name.isEmpty }.map { ($0.name, $0.keys) },
        uniquingKeysWith: { $0.union($1) }
    ).merging(BackendKind.allCases.map { ($0.rawValue, $0.configKeys) }) { own, _ in own }
    /// Every key of the top level: its settings, the sections, and the tables of names.
    static let topLevel: Set<String> = LockrConfiguration.configSections[0].keys.union(sections.keys).union([
        "backends", "meter-from", "apps", "people", "schedules", "profiles", "forward",
    ])
    /// The sections a person's table may hold: the top level's policy sections.
    static let personSections = PolicySettings.configSections.map(\.name) + ["query-log"]
    /// The keys of a person's table besides those sections.
    static let personKeys: Set<String> = [
        "devices", "guard", "always-allow", "blocklists", "allowlists", "schedules", "profiles", "safe-search",
        "youtube",
    ]
    /// The keys of a person's sections, where they differ from the top level's.
    static let personSectionKeys: [String: Set<String>] = [
        "policy": PolicySettings.configSections[0].keys, "query-log": ["privacy"],
    ]

    mutating func apply(to config: inout LockrConfiguration) {
        let named = namedBackends(reserved: Self.topLevel)
        for key in table.keys where !Self.topLevel.contains(key) && named[key] == nil {
            if table[key]?.table?["kind"] != nil {
                problem(key, "is configured but not listed in backends")
            } else {
                unknownKey(key, among: Self.topLevel.union(named.keys), sections: Self.sections)
            }
        }
        var sections = Self.sections
        for case (let name, let kind?) in named {
            sections[name] = kind.configKeys.union(["kind"])
        }
        for (section, keys) in sections {
            guard let value = table[section] else { continue }
            guard let subtable = value.table else {
                problem(section, "expected a table ([\(section)])")
                continue
            }
            for key in subtable.keys where !keys.contains(key) { unknownKey(key, among: keys, in: section) }
        }

        for section in LockrConfiguration.configSections { read(&config, section) }
        readApps(into: &config.names)
        config.forwards = forwardRules()
        readBackends(
            answersDNS: &config.answersDNS, backends: &config.backends, meterFrom: &config.meterFrom,
            requestTimeout: config.adapterTiming.requestTimeout, reserved: Self.topLevel)
        for backend in config.backends {
            guard case .rpz(let settings) = backend.endpoint else { continue }
            do throws(RPZAddressProblems) {
                _ = try RPZEndpoints(settings)
            } catch {
                for wrong in error.problems { problem("\(backend.name).\(wrong.key)", wrong.text) }
            }
        }
        for found in config.policy.problems() { problem("policy", found) }
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
                    unknownKey(
                        entry, among: Self.personKeys.union(Self.personSections), in: key,
                        takes:
                            "a person takes devices, guard, always-allow, blocklists, allowlists, schedules, profiles, "
                            + "safe-search, youtube "
                            + "and the sections \(Self.personSections.joined(separator: ", "))")
                    continue
                }
                guard let subtable = section[entry]?.table else {
                    problem("\(key).\(entry)", "expected a table ([\(key).\(entry)])")
                    continue
                }
                let allowed = Self.personSectionKeys[entry] ?? Self.sections[entry] ?? []
                for subkey in subtable.keys where !allowed.contains(subkey) {
                    unknownKey(subkey, among: allowed, in: "\(key).\(entry)")
                }
            }
            var person = PersonSettings(name: name, policy: config.policy)
            for text in strings("\(key).devices") ?? [] {
                guard let device = DeviceSpec(text) else {
                    problem(
                        "\(key).devices",
                        "'\(text)' is not a MAC address (aa:bb:cc:dd:ee:ff), an address, a network or id:CLIENTID (letters, digits, hyphens)"
                    )
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
            person.safeSearch = bool("\(key).safe-search")
            person.youtube = choice("\(key).youtube", as: SafeSearch.YouTube.self)
            person.blocklists = listEntries("\(key).blocklists") ?? []
            person.allowlists = listEntries("\(key).allowlists") ?? []
            person.schedules = schedules(under: key + ".")
            person.profiles = profiles(under: key + ".")
            person.queryLogPrivacy = queryLogPrivacy("\(key).query-log.privacy")
            applyPolicy(to: &person.policy, prefix: key + ".")
            for found in person.policy.problems() { problem(key, found) }
            config.people.append(person)
        }
    }

    /// `key` of the table at `table` (the top level when nil) is none of `known`: said, with the
    /// known key it was probably meant to be, or else the `sections` it belongs in (`mode` at the
    /// top level), and what the table takes.
    private mutating func unknownKey(
        _ key: String, among known: some Collection<String>, in table: String? = nil, takes: String? = nil,
        sections: [String: Set<String>] = [:]
    ) {
        let homes = sections.keys.sorted().filter { sections[$0]?.contains(key) == true }
        let meant =
            NameSuggestion.closest(to: key, among: known).map { "did you mean '\($0)'?" }
            ?? (homes.isEmpty ? nil : "it belongs in " + homes.map { "[\($0)]" }.joined(separator: " or "))
        // "(did you mean 'guard'? A person takes ...)": the second sentence starts with a capital.
        let notes = [meant, meant == nil ? takes : takes.map { $0.prefix(1).uppercased() + $0.dropFirst() }]
        let said = notes.compactMap { $0 }.joined(separator: " ")
        problem(table.map { "\($0).\(key)" } ?? key, "unknown key" + (said.isEmpty ? "" : " (\(said))"))
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
                unknownKey(unknown, among: keys, in: entry, takes: "a \(what) takes \(keys.joined(separator: ", "))")
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

    /// `[apps]`: app id = [domain rules].
    private mutating func readApps(into names: inout NameRules) {
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
                    names.customApps[id] = domains
                }
            }
        }
    }

    /// The policy's sections under `prefix` ("" for the top level, "people.NAME." for a person)
    /// onto `policy`.
    private mutating func applyPolicy(to policy: inout PolicySettings, prefix: String = "") {
        for section in PolicySettings.configSections { read(&policy, section, under: prefix) }
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
