import ConfigKit
import DNSProxy
import DNSWire
import LockrAdapters
import LockrDnstap
import LockrLists
import LockrPolicy
import NIOCore

/// The whole config file as sections over the daemon's configuration: the daemon's own keys (the
/// top level, `[blocking]`, `[access]`, `[notify]`) and the sections each module declares, placed
/// where they belong. Backends, `[apps]`, people, schedules and profiles are tables of names, read
/// by `ConfigFile`.
extension LockrConfiguration {
    /// Every section, the top level first, in the order the reference lists them.
    public static let configSections: [SectionDeclaration<LockrConfiguration>] = {
        var policy = PolicySettings.configSections.map { $0.within(\LockrConfiguration.policy) }
        policy[0] = policy[0].adding([guardBlockTTL])
        return [
            SectionDeclaration("", topLevel), SectionDeclaration("blocking", blocking),
            SectionDeclaration("lists", \.lists),
            SectionDeclaration("cache", \.cache), SectionDeclaration("upstream", \.forwarding),
            SectionDeclaration("tls", \.tls),
            SectionDeclaration("local", \.local),
            SectionDeclaration("access", access), SectionDeclaration("tcp", \.tcp),
            SectionDeclaration("query-log", \.queryLog), SectionDeclaration("notify", notify),
        ] + policy + [SectionDeclaration("adapters", \.adapterTiming), SectionDeclaration("dnstap", \.dnstap)]
    }()

    /// The reference of docs/configuration.md: every section with its defaults, and the tables of
    /// names (backends, apps, people, schedules, profiles) as commented examples where they belong.
    public static var reference: String {
        var parts: [ConfigReference.Part<LockrConfiguration>] = []
        for section in configSections {
            if section.name == "adapters" { parts.append(.text(BackendKind.sectionExamples)) }
            parts.append(.section(section))
            if section.name.isEmpty { parts.append(.text(BackendKind.listReference)) }
            if section.name == "notify" { parts.append(.text(ConfigFile.tablesOfNames)) }
        }
        return ConfigReference.render(parts, defaults: LockrConfiguration())
    }

    static let topLevel: [Setting<LockrConfiguration>] = [
        .addresses(
            "listen", \.listen, defaultPort: nil, restartOnly: true,
            "Addresses to answer on, UDP and TCP. \"ADDR:PORT\" or \"[V6]:PORT\"."),
        .addresses(
            "listen-tls", \.listenTLS, defaultPort: 853, restartOnly: true,
            "Addresses to answer DNS over TLS on (Android's Private DNS), port 853 unless given; needs [tls]. See \"Serving encrypted DNS\" in dns.md."
        ),
        .addresses(
            "listen-https", \.listenHTTPS, defaultPort: 443, restartOnly: true,
            "Addresses to answer DNS over HTTPS on (browsers, iOS, Windows), port 443 unless given, at https://NAME/dns-query; needs [tls]."
        ),
        Setting(
            "upstreams", \.upstreams,
            "Upstream resolvers: \"ADDR\" (plain DNS, port 53) or \"ADDR:PORT\"; \"tls://ADDR[:PORT]@NAME\" or \"tls://NAME\" (DNS over TLS, port 853; the certificate must name NAME); \"https://HOST/dns-query\" or \"https://ADDR@HOST/dns-query\" (DNS over HTTPS; ADDR, one or more separated by commas, are where HOST is; without them lockr looks HOST up through [upstream] bootstrap when it starts and reloads). Either encrypted form may end in \"#pin-sha256=BASE64\". See \"Encrypted upstreams\" in dns.md. Empty: the nameservers of /etc/resolv.conf, skipping lockr's own addresses.",
            read: { reader, key in
                guard let list = reader.strings(key) else { return nil }
                var upstreams: [UpstreamEntry] = []
                for text in list {
                    do { upstreams += try UpstreamEntry.parse(text) } catch { reader.problem(key, "\(error)") }
                }
                return upstreams
            },
            write: { upstreams in
                "[" + upstreams.map { quotedConfigString($0.description) }.joined(separator: ", ") + "]"
            }),
        Setting(
            "state-dir", \.stateDirectory, restartOnly: true,
            "Where lockr keeps its state: /var/lib/lockr as root, else $XDG_STATE_HOME/lockr (~/.local/state/lockr; with HOME unset, the home directory from the user database). Created (mode 0700) at start; an unusable or unsafe path (see \"The state directory\" in operations.md) stops lockr with a clear error. The modes and unlock windows keep their state here.",
            read: { $0.string($1) }, write: quotedConfigString
        ).shown(as: "\"/var/lib/lockr\""),
        lists(
            "blocklists", \.blocklists,
            "Block lists: files, or http:// and https:// URLs fetched and kept up to date ([lists]); formats: \"Rule lists\" in dns.md."
        ),
        lists("allowlists", \.allowlists, "Allow lists, in the same formats, files or URLs."),
        Setting(
            "catalogue", \.catalogueDirectory,
            "The app catalogue directory. Unset: blocklists/ above the lockr binary, else the installed copy.",
            read: { $0.string($1) }, write: { $0.map(quotedConfigString) ?? "" }
        ).shown(as: "\"/usr/share/lockr/blocklists\""),
        Setting(
            "log-level", \.logLevel, restartOnly: true, "trace, debug, info, notice, warning, error or critical.",
            read: { reader, key in
                guard let value = reader.string(key) else { return nil }
                guard LockrConfiguration.logLevels.contains(value) else {
                    reader.problem(key, "expected \(LockrConfiguration.logLevelsText)")
                    return nil
                }
                return value
            },
            write: quotedConfigString),
        .integer(
            "threads", \.threads, in: 1...256, restartOnly: true,
            "Threads answering queries ({range}). Default: half the cores, at least one. One thread answers well over 100k queries a second; more only help a busy network."
        ).shown(as: "1"),
        strings("guard", \.guarded, "Catalogue ids (or [apps] ids) of the guarded apps."),
        strings(
            "always-allow", \.names.alwaysAllow,
            "Catalogue ids or domain rules that guards never block (a new one loosens, so it waits)."),
        .bool(
            "safe-search", \.names.safeSearch.searchEngines,
            "Answer the search engines' names with their strict modes' hosts (Google, Bing, DuckDuckGo, Brave, Ecosia, Yandex, Pixabay: blocklists/safe-search/). Switching it off loosens, so it waits."
        ),
        Setting(
            "youtube", \.names.safeSearch.youtube,
            "YouTube's restricted mode: strict, moderate or off. Unset: moderate while safe-search is on, else off. A milder level loosens, so it waits.",
            read: { $0.choice($1, as: SafeSearch.YouTube.self) }, write: { $0.map { "\"\($0.rawValue)\"" } ?? "" }
        ).shown(as: "\"moderate\""),
        Setting(
            "control", \.control, restartOnly: true, "Where the control API listens (loopback).",
            read: { reader, key in
                guard let value = reader.string(key) else { return nil }
                guard let address = AddressText.parse(value, defaultPort: nil) else {
                    reader.problem(key, "'\(value)' is not ADDR:PORT or [V6]:PORT")
                    return nil
                }
                guard AddressText.isLoopback(address) else {
                    reader.problem(key, "must be a loopback address (127.0.0.1 or [::1]): the API has no TLS")
                    return nil
                }
                return address
            },
            write: { quotedConfigString(AddressText.format($0)) }),
        Setting(
            "web", \.web, restartOnly: true,
            "Where the web pages are served (see \"Web pages\" in web.md): a LAN address lets phones open them; \"off\": none.",
            read: { reader, key in
                guard let value = reader.string(key) else { return nil }
                if value == "off" { return .some(nil) }
                guard let address = AddressText.parse(value, defaultPort: nil) else {
                    reader.problem(key, "'\(value)' is not ADDR:PORT, [V6]:PORT or off")
                    return nil
                }
                return address
            },
            write: { quotedConfigString($0.map(AddressText.format) ?? "off") }),
        Setting(
            "web-name", \.webName,
            "The name lockr answers with the web pages' address (not when they listen on every address); \"off\": none.",
            read: { reader, key in
                guard let value = reader.string(key) else { return nil }
                if value == "off" { return .some(nil) }
                guard value.count <= 253, WireName.wire(fromPresentation: value) != nil,
                    !value.contains(" " as Character)
                else {
                    reader.problem(key, "'\(value)' is not a DNS name (such as lockr.lan) or off")
                    return nil
                }
                return value
            },
            write: { quotedConfigString($0 ?? "off") }),
        Setting(
            "trusted-forwarders", \.trustedForwarders,
            "Forwarders whose word on the device that asked is believed: the MAC address of dnsmasq's add-mac and the client subnet of add-subnet (see \"A household\" in household.md). Those options from any other source are ignored.",
            read: { reader, key in
                reader.strings(key)?.compactMap { entry in
                    if let network = IPNetwork(entry) { return network }
                    reader.problem(
                        key, "'\(entry)' is not an address or network (such as 127.0.0.1 or 192.168.1.1)")
                    return nil
                }
            },
            write: { "[" + $0.map { quotedConfigString("\($0)") }.joined(separator: ", ") + "]" }),
        .durationText(
            "protection-off-after", \.protectionOffAfter, seconds: 60...7 * 86_400, example: "10m",
            spokenRange: "1 min to 7 days",
            "A device that stops asking lockr this long ({range}) while still on the network is \"protection off\"."),
        Setting(
            "speech-model", \.speechModel, restartOnly: true,
            "Where PocketSphinx's en-us model is, for the spoken sentence (Debian: pocketsphinx-en-us).",
            read: { $0.string($1) }, write: quotedConfigString),
    ]

    static let blocking: [Setting<LockrConfiguration>] = [
        Setting(
            "mode", \.blockAnswer, "null, nxdomain, refused, or an IP address to answer with.",
            read: { reader, key in
                guard let value = reader.string(key) else { return nil }
                guard let answer = BlockAnswer(value) else {
                    reader.problem(key, "expected null, nxdomain, refused or an IP address, not '\(value)'")
                    return nil
                }
                return answer
            },
            write: { quotedConfigString("\($0)") }),
        .integer("ttl", \.blockTTL, in: 0...86_400, "TTL of blocked answers, seconds ({range})."),
        .bool(
            "anti-bypass", \.names.antiBypass,
            "Answer the anti-bypass names (Firefox DoH canary, iCloud Private Relay, resolver.arpa, the DNS-over-HTTPS services of blocklists/anti-bypass/doh.txt). Switching it off loosens, so it waits."
        ),
    ]

    static let access: [Setting<LockrConfiguration>] = [
        .networks(
            "allow", \.access, whenEmpty: AccessControl(),
            "Networks allowed to query (CIDR). Empty: loopback, 10/8, 172.16/12, 192.168/16, 100.64/10, 169.254/16, fc00::/7, fe80::/10."
        )
    ]

    static let notify: [Setting<LockrConfiguration>] = [
        Setting(
            "suggestions", \.suggestions,
            "Things to do instead: each lock's live event carries one of them, in turn, to lockr watch, lockr notify and the webhook (see \"Live events and notifications\" in observing.md). [] suggests nothing.",
            read: { reader, key in
                guard let suggestions = reader.strings(key) else { return nil }
                if let long = suggestions.first(where: { $0.count > 200 }) {
                    reader.problem(key, "a suggestion is at most 200 characters, not \(long.count)")
                    return nil
                }
                return suggestions.filter { !$0.isEmpty }
            },
            write: { "[" + $0.map(quotedConfigString).joined(separator: ", ") + "]" })
    ]

    static let guardBlockTTL = Setting<LockrConfiguration>.integer(
        "block-ttl", \.guardBlockTTL, in: 0...3600, "TTL of a guarded app's blocked answers, seconds ({range}).")

    /// Block or allow lists: files, or URLs lockr can fetch.
    private static func lists(
        _ key: String, _ path: WritableKeyPath<LockrConfiguration, [String]> & Sendable, _ summary: String
    ) -> Setting<LockrConfiguration> {
        strings(key, path, summary, read: { $0.listEntries($1) })
    }

    private static func strings(
        _ key: String, _ path: WritableKeyPath<LockrConfiguration, [String]> & Sendable, _ summary: String,
        read: @escaping @Sendable (inout ConfigReader, String) -> [String]? = { $0.strings($1) }
    ) -> Setting<LockrConfiguration> {
        Setting(
            key, path, summary, read: read, write: { "[" + $0.map(quotedConfigString).joined(separator: ", ") + "]" })
    }
}

extension ConfigReader {
    /// Block or allow lists: files' paths, or URLs lockr can fetch (http:// and https://).
    mutating func listEntries(_ key: String) -> [String]? {
        guard let entries = strings(key) else { return nil }
        for entry in entries {
            do throws(ListSourceProblem) { _ = try ListSource(entry: entry) } catch { problem(key, error.description) }
        }
        return entries
    }
}
