import ConfigKit

/// The backends in the config file: `backends`, each backend's section (`[pihole6]`, or one of a
/// name of its own with a `kind`) and `meter-from`; `[adapters]`, the timing they all share.
extension BackendKind {
    /// The keys of its section.
    public var configKeys: Set<String> {
        switch self {
        case .pihole6: ["url", "password-file", "password-env", "clients", "group"]
        case .pihole5: ["url", "token-file", "token-env"]
        case .adguardhome: ["url", "username", "password-file", "password-env", "clients"]
        case .nextdns: ["url", "profile", "api-key-file", "api-key-env"]
        case .webhook:
            ["url", "token-file", "token-env", "events", "events-url", "events-token-file", "events-token-env"]
        case .rpz:
            [
                "listen", "zone-files", "zone-suffix", "secondaries", "allow-transfer", "ttl", "refresh", "retry",
                "expire",
                "tsig-key",
                "tsig-secret-file", "tsig-secret-env", "tsig-required",
            ]
        }
    }
}

extension BackendKind {
    /// The reference's `backends` and `meter-from`.
    public static let listReference = """
        # Who enforces the policy: "dns" (lockr answers DNS itself) and other blockers lockr drives,
        # "pihole6", "pihole5", "adguardhome", "nextdns", "webhook", "rpz" (each needs its section
        # below), or a name of your own whose section says its kind (see "Two of a kind" in backends.md).
        backends = ["dns"]
        # Meter time-mode usage from this backend's query log instead of the DNS lockr answers.
        meter-from = "dns"
        """

    /// The reference's commented example of each kind's section.
    public static let sectionExamples = """
        # [pihole6]
        # url = "http://pi.hole"
        # password-file = "/etc/lockr/pihole.password"   # or an app password; no password: none needed
        # password-env = "PIHOLE_PASSWORD"                # instead of password-file
        # clients = []                                    # addresses; [] = every client in Default
        # group = "lockr"
        #
        # [pihole5]
        # url = "http://pi.hole"
        # token-file = "/etc/lockr/pihole.token"          # required, or:
        # token-env = "PIHOLE_TOKEN"
        #
        # [adguardhome]
        # url = "http://192.168.1.2:3000"
        # username = "admin"
        # password-file = "/etc/lockr/adguard.password"   # or:
        # password-env = "ADGUARD_PASSWORD"
        # clients = []
        #
        # [nextdns]
        # url = "https://api.nextdns.io"
        # profile = "abc123"                              # required
        # api-key-file = "/etc/lockr/nextdns.key"         # required, or:
        # api-key-env = "NEXTDNS_API_KEY"
        #
        # [webhook]
        # url = "http://homeassistant.local:8123/api/webhook/lockr"
        # token-file = "/etc/lockr/webhook.token"         # optional, sent as Authorization: Bearer
        # token-env = "WEBHOOK_TOKEN"
        # events = "json"              # live events: json (every one), text (notifications, as ntfy takes them) or off
        # events-url = "https://ntfy.home.lan/lockr"       # where they go (default: url)
        # events-token-file = "/etc/lockr/ntfy.token"     # for events-url only; or:
        # events-token-env = "NTFY_TOKEN"
        #
        # [rpz]                                           # Response Policy Zones for resolvers (fleet.md)
        # listen = ["0.0.0.0:5300"]                       # where resolvers transfer the zones from
        # zone-files = "/run/lockr"                       # and/or: each zone written there (Knot Resolver)
        # zone-suffix = "rpz.lockr"                       # zones alice.rpz.lockr, ..., default.rpz.lockr
        # secondaries = ["192.168.1.3"]                   # NOTIFY on every change; may transfer
        # allow-transfer = ["192.168.1.0/24"]             # more sources that may transfer
        # ttl = "30s"                                     # how long resolvers may cache a block
        # refresh = "5m"                                  # how often they look when no NOTIFY came
        # retry = "1m"
        # expire = "7d"                                   # how long the last zones hold while lockr is away
        # tsig-key = "lockr-rpz"                          # TSIG (HMAC-SHA256) with the secondaries
        # tsig-secret-file = "/etc/lockr/rpz.secret"      # its base64 secret, or:
        # tsig-secret-env = "LOCKR_RPZ_SECRET"
        # tsig-required = true                            # false: unsigned requests too (unbound)
        """
}

extension AdapterTiming: ConfigSection {
    public static let settings: [Setting<AdapterTiming>] = [
        .duration(
            "reconcile-seconds", \.reconcileInterval, in: 1...86_400, unit: .seconds(1), restartOnly: true,
            "How often each backend is compared with what it should hold (drift repair), seconds."),
        .duration(
            "retry-max-seconds", \.maximumBackoff, in: 1...3600, unit: .seconds(1), restartOnly: true,
            "Retry delay after a failure doubles from 1 s up to this, seconds."),
        .duration(
            "log-seconds", \.logInterval, in: 1...3600, unit: .seconds(1), restartOnly: true,
            "How often query logs are read for meter-from, seconds."),
        .duration(
            "timeout-seconds", \.requestTimeout, in: 1...300, unit: .seconds(1), restartOnly: true,
            "How long one request may take, seconds."),
    ]
}

extension ConfigReader {
    /// Backends listed by a name of their own (`backends = ["upstairs"]` with `[upstairs]` and
    /// `kind = "pihole6"`, for a second blocker of one kind), with their kind when it is valid.
    /// Nothing is reported here: `backendKind(named:)` does that.
    public func namedBackends(reserved: Set<String>) -> [String: BackendKind?] {
        var named: [String: BackendKind?] = [:]
        for name in (table["backends"]?.array ?? []).compactMap(\.string)
        where BackendKind(rawValue: name) == nil && !reserved.contains(name) {
            guard let section = table[name]?.table else { continue }
            named.updateValue(section["kind"]?.string.flatMap(BackendKind.init(rawValue:)), forKey: name)
        }
        return named
    }

    /// `backends`, each listed backend's section and `meter-from`, each backend's requests taking
    /// `requestTimeout` (`[adapters]`, read with the other sections); `reserved` are the
    /// file's own top-level keys, which no backend may be named.
    public mutating func readBackends(
        answersDNS: inout Bool, backends: inout [BackendSettings], meterFrom: inout String?,
        requestTimeout: Duration, reserved: Set<String>
    ) {
        var listed: Set<String> = []
        if let list = strings("backends") {
            var answers = false
            var listedBackends: [BackendSettings] = []
            for name in list where !listed.contains(name) {
                listed.insert(name)
                if name == "dns" {
                    answers = true
                } else if let kind = backendKind(named: name, reserved: reserved),
                    let settings = backend(kind, section: name)
                {
                    listedBackends.append(settings)
                }
            }
            if list.isEmpty { problem("backends", "needs at least one backend") }
            answersDNS = answers
            backends = listedBackends
        }
        for kind in BackendKind.allCases where table[kind.rawValue] != nil && !listed.contains(kind.rawValue) {
            problem(kind.rawValue, "is configured but not listed in backends")
        }
        if let value = string("meter-from") {
            if value == "dns" {
                meterFrom = nil
            } else if let backend = backends.first(where: { $0.name == value }),
                ![.webhook, .rpz].contains(backend.kind)
            {
                meterFrom = backend.name
            } else {
                problem("meter-from", "expected dns or a backend with a query log listed in backends, not '\(value)'")
            }
        }
        for index in backends.indices { backends[index].timeout = requestTimeout }
    }

    /// The kind of the backend listed as `name`: the name itself, or the `kind` of its section.
    private mutating func backendKind(named name: String, reserved: Set<String>) -> BackendKind? {
        if let kind = BackendKind(rawValue: name) { return kind }
        let kinds = BackendKind.allCases.map(\.rawValue).joined(separator: ", ")
        guard !reserved.contains(name) else {
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

    /// One backend's section (`[pihole6]`, or a named one), read by its kind.
    private mutating func backend(_ kind: BackendKind, section: String) -> BackendSettings? {
        let endpoint: BackendSettings.Endpoint?
        switch kind {
        case .pihole6: endpoint = pihole6(section).map { .pihole6($0) }
        case .pihole5: endpoint = pihole5(section).map { .pihole5($0) }
        case .adguardhome: endpoint = adGuardHome(section).map { .adguardhome($0) }
        case .nextdns: endpoint = nextDNS(section).map { .nextdns($0) }
        case .webhook: endpoint = webhook(section).map { .webhook($0) }
        case .rpz: endpoint = rpz(section).map { .rpz($0) }
        }
        return endpoint.map { BackendSettings(name: section, endpoint: $0) }
    }

    private mutating func pihole6(_ section: String) -> PiHole6Settings? {
        guard let url = url(section) else { return nil }
        var settings = PiHole6Settings(url: url)
        guard let password = secret(section, "password", required: false) else { return nil }
        settings.password = password
        if let clients = strings("\(section).clients") { settings.clients = clients }
        if let group = string("\(section).group") { settings.group = group }
        return settings
    }

    private mutating func pihole5(_ section: String) -> PiHole5Settings? {
        guard let url = url(section), let token = secret(section, "token", required: true) ?? nil else { return nil }
        return PiHole5Settings(url: url, token: token)
    }

    private mutating func adGuardHome(_ section: String) -> AdGuardHomeSettings? {
        guard let url = url(section), let password = secret(section, "password", required: false) else { return nil }
        var settings = AdGuardHomeSettings(url: url, username: string("\(section).username"), password: password)
        if let clients = strings("\(section).clients") { settings.clients = clients }
        return settings
    }

    private mutating func nextDNS(_ section: String) -> NextDNSSettings? {
        guard let url = url(section, default: "https://api.nextdns.io") else { return nil }
        let apiKey = secret(section, "api-key", required: true) ?? nil
        guard let profile = string("\(section).profile"), !profile.isEmpty else {
            problem(section, "needs profile (the NextDNS configuration id)")
            return nil
        }
        guard let apiKey else { return nil }
        return NextDNSSettings(url: url, profile: profile, apiKey: apiKey)
    }

    private mutating func webhook(_ section: String) -> WebhookSettings? {
        guard let url = url(section), let token = secret(section, "token", required: false) else { return nil }
        var settings = WebhookSettings(url: url, token: token)
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
        guard let eventsToken = secret(section, "events-token", required: false) else { return nil }
        settings.eventsToken = eventsToken
        if eventsToken != nil, settings.eventsURL == nil {
            problem(
                "\(section).events-token-file",
                "an events token goes with events-url (without it, events use token-file)")
        }
        return settings
    }

    /// `[rpz]`: its addresses as written (the daemon, which knows addresses, checks them) and the
    /// zones' timers.
    private mutating func rpz(_ section: String) -> RPZSettings? {
        let listen = strings("\(section).listen") ?? []
        let zoneFiles = string("\(section).zone-files")
        guard !listen.isEmpty || zoneFiles != nil else {
            problem(
                section,
                "[\(section)] needs listen, where resolvers transfer the zones from (\"0.0.0.0:5300\"), or zone-files, "
                    + "a directory to write them into (for Knot Resolver)")
            return nil
        }
        var settings = RPZSettings(listen: listen)
        if let zoneFiles {
            if zoneFiles.hasPrefix("/") {
                settings.zoneFiles = zoneFiles
            } else {
                problem(
                    "\(section).zone-files", "expected an absolute directory such as /run/lockr, not '\(zoneFiles)'")
            }
        }
        if let written = string("\(section).zone-suffix") {
            var suffix = written.lowercased()
            if suffix.hasSuffix(".") { suffix.removeLast() }
            let labels = suffix.split(separator: ".", omittingEmptySubsequences: false)
            let nameBytes: (Character) -> Bool = {
                $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_")
            }
            if suffix.isEmpty || suffix.count > 180
                || labels.contains(where: { $0.isEmpty || $0.count > 63 || !$0.allSatisfy(nameBytes) })
            {
                problem("\(section).zone-suffix", "expected a domain name such as \"rpz.lockr\", not '\(written)'")
            } else {
                settings.zoneSuffix = suffix
            }
        }
        if let secondaries = strings("\(section).secondaries") { settings.secondaries = secondaries }
        if let sources = strings("\(section).allow-transfer") { settings.allowTransfer = sources }
        let timers: [(String, WritableKeyPath<RPZSettings, Int>, ClosedRange<Int>, String, String)] = [
            ("ttl", \.ttl, 0...86_400, "30s", "0 seconds to 1 day"),
            ("refresh", \.refresh, 10...86_400, "5m", "10 seconds to 1 day"),
            ("retry", \.retry, 10...86_400, "1m", "10 seconds to 1 day"),
            ("expire", \.expire, 3600...(365 * 86_400), "7d", "1 hour to 365 days"),
        ]
        for (key, path, range, example, spoken) in timers {
            if let seconds = duration("\(section).\(key)", seconds: range, example: example, spokenRange: spoken) {
                settings[keyPath: path] = seconds
            }
        }
        guard let secret = secret(section, "tsig-secret", required: false) else { return nil }
        settings.tsigKey = string("\(section).tsig-key")
        settings.tsigSecret = secret
        if let required = bool("\(section).tsig-required") { settings.tsigRequired = required }
        if (settings.tsigKey == nil) != (secret == nil) {
            problem(section, "tsig-key and tsig-secret-file (or tsig-secret-env) go together")
        }
        return settings
    }

    /// A section's `url`, an http:// or https:// one (`fallback` when it has none).
    private mutating func url(_ section: String, default fallback: String? = nil) -> String? {
        guard let url = string("\(section).url") ?? fallback else {
            problem(section, "[\(section)] needs url")
            return nil
        }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            problem("\(section).url", "expected an http:// or https:// URL, not '\(url)'")
            return nil
        }
        return url
    }

    /// The secret `NAME-file` or `NAME-env` of a section names: `.some(nil)` when it names none
    /// and none is `required`, nil when it is wrong (noted).
    private mutating func secret(_ section: String, _ name: String, required: Bool) -> SecretSource?? {
        switch (string("\(section).\(name)-file"), string("\(section).\(name)-env")) {
        case (let file?, nil): return .file(file)
        case (nil, let variable?): return .environment(variable)
        case (_?, _?):
            problem("\(section).\(name)-file", "set \(name)-file or \(name)-env, not both")
            return nil
        case (nil, nil):
            guard required else { return .some(nil) }
            problem(section, "needs \(name)-file or \(name)-env (secrets are never given on the command line)")
            return nil
        }
    }
}
