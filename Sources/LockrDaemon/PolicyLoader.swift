import DNSFilter
import DNSProxy
import DNSWire
import Foundation
import LockrPolicy
import NIOCore

/// A configuration that failed to load, with a message for people.
public struct LoadError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Everything the DNS engine needs that is read from files: rule lists, the app catalogue, upstreams.
public struct LoadedPolicy: Sendable {
    public let rules: RuleSet
    public let reports: [(path: String, report: ListReport)]
    public let catalogue: AppCatalogue
    public let catalogueDirectory: String?
    /// The names of every app that may be guarded (catalogue and configuration), with the overrides.
    public let guardSet: GuardSet
    /// Every app that may be guarded: id to display name.
    public let appNames: [String: String]
    /// Each app's group (social, video, ...; "custom" for `[apps]`).
    public let appGroups: [String: String]
    /// The configured guarded apps by their ids (the config may name them in any letter case).
    public let guarded: [String]
    /// Each app's block rules for other blockers, without those `always-allow` frees.
    public let appRules: [String: [DomainRule]]
    public let upstreams: [SocketAddress]
    /// Wall-clock seconds spent reading lists.
    public let listLoadSeconds: Double
}

/// Reads the files a configuration names.
public enum PolicyLoader {
    public static func load(_ config: LockrConfiguration) throws(LoadError) -> LoadedPolicy {
        let started = ContinuousClock.now
        var builder = RuleSetBuilder()
        var reports: [(String, ListReport)] = []
        for (paths, role) in [(config.blocklists, ListRole.block), (config.allowlists, ListRole.allow)] {
            for path in paths {
                let bytes: [UInt8]
                do { bytes = try readFileBytes(path) } catch { throw LoadError(error.description) }
                let source = builder.addSource((path as NSString).lastPathComponent)
                reports.append((path, RuleListParser.parse(bytes, role: role, source: source, into: &builder)))
            }
        }
        let rules = builder.build()
        let elapsed = ContinuousClock.now - started
        let (catalogue, directory) = try loadCatalogue(config)
        let apps = try guardableApps(config, catalogue)
        let guardSet = GuardSet(apps: apps, overrides: try overrides(config, catalogue))
        let names = Dictionary(apps.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        return LoadedPolicy(
            rules: rules, reports: reports, catalogue: catalogue, catalogueDirectory: directory,
            guardSet: guardSet, appNames: names,
            appGroups: Dictionary(apps.map { ($0.id, $0.group) }, uniquingKeysWith: { first, _ in first }),
            guarded: config.guarded.compactMap { AppNames.resolve($0, in: names) },
            appRules: Dictionary(
                apps.map { app in (app.id, app.domainRules.filter { Self.stillGuarded($0, of: app.id, in: guardSet) })
                },
                uniquingKeysWith: { first, _ in first }),
            upstreams: config.answersDNS ? try upstreams(config) : [],
            listLoadSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// The catalogue's apps and those the configuration defines; every guarded id must be one of them.
    static func guardableApps(_ config: LockrConfiguration, _ catalogue: AppCatalogue) throws(LoadError) -> [App] {
        var apps = catalogue.apps.values.sorted { $0.id < $1.id }
        for (id, domains) in config.extraApps.sorted(by: { $0.key < $1.key }) {
            guard catalogue.apps[id] == nil else {
                throw LoadError("[apps] \(id): the catalogue already has an app '\(id)'; pick another id")
            }
            do {
                apps.append(
                    try App(
                        id: id, name: id, group: "custom", ruleText: Array(domains.joined(separator: "\n").utf8),
                        path: "config [apps] \(id)"))
            } catch { throw LoadError("\(error)") }
        }
        let names = Dictionary(apps.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let unknown = config.guarded.filter { AppNames.resolve($0, in: names) == nil }
        guard unknown.isEmpty else {
            let listed = unknown.map { id in
                "'\(id)'" + (AppNames.suggestion(for: id, in: names).map { " (did you mean \($0)?)" } ?? "")
            }
            let place = catalogue.apps.isEmpty ? "the catalogue (none was found: set catalogue = \"DIR\")" : "the catalogue"
            throw LoadError("guard: no app \(listed.joined(separator: ", ")) in \(place) or [apps]; `lockr apps` lists them")
        }
        return apps
    }

    /// Whether `rule` still belongs to `app` once `always-allow` is applied (regexes always do).
    private static func stillGuarded(_ rule: DomainRule, of app: String, in guardSet: GuardSet) -> Bool {
        switch rule {
        case .domain(let name): guardSet.app(forName: name) == app
        case .subdomains(let name): guardSet.app(forName: "lockr-probe." + name) == app
        case .regex: true
        }
    }

    /// `always-allow` entries: a catalogue app's rules, or a domain rule.
    static func overrides(
        _ config: LockrConfiguration, _ catalogue: AppCatalogue
    ) throws(LoadError)
        -> [(source: String, ruleText: [UInt8])]
    {
        var overrides: [(source: String, ruleText: [UInt8])] = []
        for entry in config.alwaysAllow {
            if let app = catalogue.apps[entry] {
                overrides.append(("app:\(entry)", app.ruleText))
                continue
            }
            var builder = RuleSetBuilder()
            let report = RuleListParser.parse(
                Array(entry.utf8), role: .block, source: builder.addSource(entry), into: &builder)
            guard report.rules == 1, report.issues.isEmpty else {
                throw LoadError("always-allow: '\(entry)' is neither a catalogue app nor a domain rule")
            }
            overrides.append((entry, Array(entry.utf8)))
        }
        return overrides
    }

    /// The configured upstreams, or else the name servers of /etc/resolv.conf that are not lockr itself.
    static func upstreams(
        _ config: LockrConfiguration, resolvConf: String = "/etc/resolv.conf"
    ) throws(LoadError)
        -> [SocketAddress]
    {
        if !config.upstreams.isEmpty { return config.upstreams }
        let servers: [String]
        do { servers = try ResolvConf.nameservers(path: resolvConf) } catch {
            throw LoadError("no upstream configured and \(resolvConf) is unusable (\(error)); pass --upstream ADDR")
        }
        let found = servers.compactMap { AddressText.parse($0, defaultPort: 53) }.filter { !isSelf($0, config.listen) }
        guard !found.isEmpty else {
            throw LoadError("no upstream configured and \(resolvConf) names only lockr itself; pass --upstream ADDR")
        }
        return found
    }

    /// True when `server` is one of lockr's own listen addresses, or a loopback or interface
    /// address of this machine on the port of a wildcard listener (0.0.0.0, ::).
    static func isSelf(_ server: SocketAddress, _ listen: [SocketAddress]) -> Bool {
        listen.contains { own in
            guard own.port == server.port, let host = own.ipAddress else { return false }
            if host == server.ipAddress { return true }
            guard host == "0.0.0.0" || host == "::" else { return false }
            return localAddresses().contains(server.ipAddress ?? "")
        }
    }

    /// Loopback and interface addresses of this machine.
    private static func localAddresses() -> Set<String> {
        var addresses: Set<String> = ["127.0.0.1", "::1"]
        for device in (try? System.enumerateDevices()) ?? [] {
            if let ip = device.address?.ipAddress { addresses.insert(ip) }
        }
        return addresses
    }

    static func loadCatalogue(_ config: LockrConfiguration) throws(LoadError) -> (AppCatalogue, String?) {
        guard let directory = config.catalogueDirectory ?? defaultCatalogueDirectory() else {
            return (AppCatalogue(apps: []), nil)
        }
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw LoadError("cannot read the app catalogue directory \(directory)")
        }
        do { return (try AppCatalogue.load(directory: directory, fileNames: names), directory) } catch {
            throw LoadError("app catalogue: \(error)")
        }
    }

    /// `blocklists/` in a directory above the program (a source checkout), else the installed copy.
    static func defaultCatalogueDirectory() -> String? {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("blocklists")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("README.md").path) {
                return candidate.path
            }
            directory.deleteLastPathComponent()
        }
        return ["/usr/local/share/lockr/blocklists", "/usr/share/lockr/blocklists"].first {
            FileManager.default.fileExists(atPath: $0)
        }
    }
}
