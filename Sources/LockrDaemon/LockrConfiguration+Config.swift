import ConfigKit
import DNSProxy
import DNSWire
import LockrAdapters
import LockrPolicy
import NIOCore

/// The whole config file as sections over the daemon's configuration: the daemon's own keys (the
/// top level, `[blocking]`, `[access]`, `[notify]`) and the sections each module declares, placed
/// where they belong. Backends, `[apps]`, people, schedules and profiles are tables of names, read
/// by `ConfigFile`.
extension LockrConfiguration {
    /// Every section, the top level first, in the order the reference lists them.
    public static let configSections: [SectionDeclaration<LockrConfiguration>] =
        [
            SectionDeclaration("", topLevel), SectionDeclaration("blocking", blocking),
            SectionDeclaration("cache", \.cache), SectionDeclaration("upstream", \.forwarding),
            SectionDeclaration("access", access), SectionDeclaration("tcp", \.tcp),
            SectionDeclaration("query-log", \.queryLog), SectionDeclaration("notify", notify),
            SectionDeclaration("adapters", \.adapterTiming),
        ]
        + PolicySettings.configSections.map { $0.within(\.policy) }
        + [SectionDeclaration("policy", [guardBlockTTL])]

    static let topLevel: [Setting<LockrConfiguration>] = [
        addresses("listen", \.listen, defaultPort: nil, restartOnly: true, "addresses to answer on, UDP and TCP"),
        addresses("upstreams", \.upstreams, defaultPort: 53, "upstream resolvers (empty: /etc/resolv.conf's)"),
        Setting(
            "state-dir", \.stateDirectory, restartOnly: true, "where lockr keeps its state",
            read: { $0.string($1) }, write: quotedConfigString),
        strings("blocklists", \.blocklists, "block lists: paths or URLs"),
        strings("allowlists", \.allowlists, "allow lists: paths or URLs"),
        Setting(
            "catalogue", \.catalogueDirectory, "the app catalogue directory (unset: the one installed)",
            read: { $0.string($1) }, write: { $0.map(quotedConfigString) ?? "" }),
        Setting(
            "log-level", \.logLevel, restartOnly: true, "trace, debug, info, notice, warning, error or critical",
            read: { reader, key in
                guard let value = reader.string(key) else { return nil }
                guard LockrConfiguration.logLevels.contains(value) else {
                    reader.problem(key, "expected \(LockrConfiguration.logLevelsText)")
                    return nil
                }
                return value
            },
            write: quotedConfigString),
        .integer("threads", \.threads, in: 1...256, restartOnly: true, "threads answering queries"),
        strings("guard", \.guarded, "catalogue ids (or [apps] ids) of the guarded apps"),
        strings("always-allow", \.names.alwaysAllow, "catalogue ids or domain rules that guards never block"),
        Setting(
            "control", \.control, restartOnly: true, "where the control API listens (loopback)",
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
            "web", \.web, restartOnly: true, "where the web pages are served; off: none",
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
            "web-name", \.webName, "the name lockr answers with the web pages' address; off: none",
            read: { reader, key in
                guard let value = reader.string(key) else { return nil }
                if value == "off" { return .some(nil) }
                guard value.count <= 253, WireName.wire(fromPresentation: value) != nil, !value.contains(" ") else {
                    reader.problem(key, "'\(value)' is not a DNS name (such as lockr.lan) or off")
                    return nil
                }
                return value
            },
            write: { quotedConfigString($0 ?? "off") }),
        Setting(
            "trusted-forwarders", \.trustedForwarders,
            "forwarders whose word on the device that asked (add-mac, add-subnet) is believed",
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
            spokenRange: "1 min to 7 days", "a device that stops asking this long while on the network is flagged"),
        Setting(
            "speech-model", \.speechModel, restartOnly: true, "where PocketSphinx's en-us model is",
            read: { $0.string($1) }, write: quotedConfigString),
    ]

    static let blocking: [Setting<LockrConfiguration>] = [
        Setting(
            "mode", \.blockAnswer, "null, nxdomain, refused, or an IP address to answer with",
            read: { reader, key in
                guard let value = reader.string(key) else { return nil }
                guard let answer = BlockAnswer(value) else {
                    reader.problem(key, "expected null, nxdomain, refused or an IP address, not '\(value)'")
                    return nil
                }
                return answer
            },
            write: { quotedConfigString("\($0)") }),
        .integer("ttl", \.blockTTL, in: 0...86_400, "TTL of blocked answers, seconds"),
        .bool("anti-bypass", \.names.antiBypass, "answer the anti-bypass names"),
    ]

    static let access: [Setting<LockrConfiguration>] = [
        Setting(
            "allow", \.access, "networks allowed to query (CIDR); empty: the private ones",
            read: { reader, key in
                guard let list = reader.strings(key) else { return nil }
                let networks = list.compactMap { entry in
                    if let network = IPNetwork(entry) { return network }
                    reader.problem(key, "'\(entry)' is not a network (CIDR such as 192.168.0.0/16)")
                    return nil
                }
                return list.isEmpty ? AccessControl() : AccessControl(networks: networks)
            },
            write: {
                $0 == AccessControl()
                    ? "[]" : "[" + $0.networks.map { quotedConfigString("\($0)") }.joined(separator: ", ") + "]"
            })
    ]

    static let notify: [Setting<LockrConfiguration>] = [
        Setting(
            "suggestions", \.suggestions, "things to do instead, one per lock's live event, in turn",
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
        "block-ttl", \.guardBlockTTL, in: 0...3600, "TTL of a guarded app's blocked answers, seconds")

    private static func addresses(
        _ key: String, _ path: WritableKeyPath<LockrConfiguration, [SocketAddress]> & Sendable, defaultPort: Int?,
        restartOnly: Bool = false, _ summary: String
    ) -> Setting<LockrConfiguration> {
        Setting(
            key, path, restartOnly: restartOnly, summary,
            read: { reader, key in
                guard let list = reader.strings(key) else { return nil }
                if defaultPort == nil, list.isEmpty { reader.problem(key, "needs at least one address") }
                return list.compactMap { text in
                    if let address = AddressText.parse(text, defaultPort: defaultPort) { return address }
                    reader.problem(
                        key,
                        "'\(text)' is not an address (\(defaultPort == nil ? "ADDR:PORT or [V6]:PORT" : "ADDR[:PORT]"))"
                    )
                    return nil
                }
            },
            write: { "[" + $0.map { quotedConfigString(AddressText.format($0)) }.joined(separator: ", ") + "]" })
    }

    private static func strings(
        _ key: String, _ path: WritableKeyPath<LockrConfiguration, [String]> & Sendable, _ summary: String
    ) -> Setting<LockrConfiguration> {
        Setting(
            key, path, summary, read: { $0.strings($1) },
            write: { "[" + $0.map(quotedConfigString).joined(separator: ", ") + "]" })
    }
}
