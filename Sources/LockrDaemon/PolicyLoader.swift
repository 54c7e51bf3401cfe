import DNSFilter
import DNSProxy
import DNSWire
import Foundation
import LockrLists
import LockrPolicy
import NIOCore
import PlainText

/// A configuration that failed to load, with a message for people.
public struct LoadError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Everything the DNS engine needs that is read from files: rule lists, the app catalogue, upstreams.
public struct LoadedPolicy: Sendable {
    public let lists: RuleLists
    public let reports: [(path: String, report: ListReport)]
    /// The lists given by URL that have no copy kept yet (fetched once lockr runs), by name.
    public let unfetched: Set<String>
    public let catalogue: AppCatalogue
    public let catalogueDirectory: String?
    /// The default person and then each configured one, checked against the catalogue.
    let people: [LoadedPerson]
    public let upstreams: [Upstream]
    /// Upstreams written by name that could not be looked up, left out.
    public let unresolvedUpstreams: [UnresolvedUpstream]
    /// The TLS contexts of the `tls://` and `https://` upstreams; nil when there are none.
    public let upstreamTLS: UpstreamTLS?
    /// Wall-clock seconds spent reading lists.
    public let listLoadSeconds: Double
}

/// The block and allow lists: the shared ones, and each person's own on top.
public struct RuleLists: Sendable {
    public let shared: RuleSet
    /// The people who have lists of their own, by name (people with the same lists share one set).
    let own: [String: RuleSet]
    /// The names lockr answers itself, with the DNS-over-HTTPS services of the catalogue.
    let localNames: LocalNames
    /// The home's own names in the configuration: `[local] records` and the hosts files.
    let homeRecords: [LocalRecord]
    /// The safe-search providers of the catalogue (`safe-search/`).
    let safeSearch: [SafeSearchProvider]
}

/// One person as the configuration has them, checked against the catalogue.
struct LoadedPerson: Sendable {
    /// Their settings, resolved against the top level.
    let settings: PersonSettings
    /// Which names are apps' names for them, and what they always allow.
    let names: NameRules
    /// Those names, built (shared among the people whose names are the same).
    let naming: AppNaming
    /// Their guarded apps by id (the config may name them in any letter case).
    let guarded: [String]
}

/// Reads the files a configuration names.
public enum PolicyLoader {
    public static func load(_ config: LockrConfiguration) throws(LoadError) -> LoadedPolicy {
        let started = ContinuousClock.now
        let (shared, own, reports, unfetched) = try ruleSets(config)
        let elapsed = ContinuousClock.now - started
        let (catalogue, directory) = try loadCatalogue(config)
        // People whose names are alike share one build (and so one cache stamp in the pipeline).
        var namings = [try AppNaming(catalogue: catalogue, rules: config.names)]
        var people: [LoadedPerson] = []
        for person in config.household {
            let names = person.names(config.names)
            let place = person.name == People.defaultName ? "" : "[people.\(person.name)] "
            do throws(LoadError) {
                let naming: AppNaming
                if let same = namings.first(where: { $0.rules == names }) {
                    naming = same
                } else {
                    naming = try AppNaming(catalogue: catalogue, rules: names)
                    namings.append(naming)
                }
                try checkSelections(of: person, naming)
                people.append(
                    LoadedPerson(
                        settings: person, names: names, naming: naming,
                        guarded: try guarded(person.guarded ?? [], naming.names, catalogue: catalogue)))
            } catch {
                throw LoadError(place + error.description)
            }
        }
        let (upstreams, unresolved) = config.answersDNS ? try upstreams(config) : ([], [])
        return LoadedPolicy(
            lists: RuleLists(
                shared: shared, own: own, localNames: LocalNames(dnsOverHTTPS: try dnsOverHTTPSNames(in: directory)),
                homeRecords: try localRecords(config.local), safeSearch: try safeSearchProviders(in: directory)),
            reports: reports, unfetched: unfetched, catalogue: catalogue, catalogueDirectory: directory, people: people,
            upstreams: upstreams, unresolvedUpstreams: unresolved,
            upstreamTLS: try upstreamTLS(for: upstreams, caFile: config.forwarding.caFile),
            listLoadSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// The block and allow lists of `config` read again (a list given by URL from the copy kept),
    /// with the app catalogue's names of `running`: what a list fetched anew is swapped in with.
    public static func ruleLists(_ config: LockrConfiguration, running: RuleLists) throws(LoadError) -> RuleLists {
        let (shared, own, _, _) = try ruleSets(config)
        return RuleLists(
            shared: shared, own: own, localNames: running.localNames, homeRecords: running.homeRecords,
            safeSearch: running.safeSearch)
    }

    /// The records of `[local]`: those written out, and each hosts file's. An unreadable file, a
    /// line that is no address and names, and a CNAME to a name none of them defines are errors.
    static func localRecords(_ settings: LocalSettings) throws(LoadError) -> [LocalRecord] {
        var records = settings.parsedRecords
        for path in settings.hostsFiles {
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw LoadError("cannot read the hosts file \(path): \(error)")
            }
            let read = HostsFile.records(in: text)
            if let problem = read.problems.first {
                throw LoadError("hosts file \(path), line \(problem.line): \(problem.message)")
            }
            records += read.records
        }
        if let problem = LocalRecords.problems(records).first { throw LoadError("[local] \(problem)") }
        return records
    }

    /// The shared rule set, each person's own (people with the same lists share one), each
    /// list's report, and the lists given by URL with no copy kept yet.
    private static func ruleSets(
        _ config: LockrConfiguration
    ) throws(LoadError) -> (
        shared: RuleSet, own: [String: RuleSet], reports: [(String, ListReport)], unfetched: Set<String>
    ) {
        let copies = ListCopies(stateDirectory: config.stateDirectory)
        var reports: [(String, ListReport)] = []
        let shared = try rules(
            blocklists: config.blocklists, allowlists: config.allowlists, copies: copies, reports: &reports)
        var own: [String: RuleSet] = [:]
        var built: [(blocklists: [String], allowlists: [String], rules: RuleSet)] = []
        for person in config.people where !person.blocklists.isEmpty || !person.allowlists.isEmpty {
            if let same = built.first(where: {
                $0.blocklists == person.blocklists && $0.allowlists == person.allowlists
            }) {
                own[person.name] = same.rules
                continue
            }
            do throws(LoadError) {
                let rules = try rules(
                    blocklists: person.blocklists, allowlists: person.allowlists, copies: copies, reports: &reports)
                built.append((person.blocklists, person.allowlists, rules))
                own[person.name] = rules
            } catch {
                throw LoadError("[people.\(person.name)] \(error.description)")
            }
        }
        let unfetched = subscriptions(config).filter { !copies.hasCopy(of: $0) }.map(\.displayName)
        return (shared, own, reports, Set(unfetched))
    }

    /// The rules of the lists `blocklists` and `allowlists` name, each list's report added to
    /// `reports` unless it is there already. A list given by URL is read from the copy kept; one
    /// never fetched yet adds nothing (its report says so).
    private static func rules(
        blocklists: [String], allowlists: [String], copies: ListCopies, reports: inout [(String, ListReport)]
    ) throws(LoadError) -> RuleSet {
        var builder = RuleSetBuilder()
        for (entries, role) in [(blocklists, ListRole.block), (allowlists, ListRole.allow)] {
            for entry in entries {
                let list: ListSource
                do { list = try ListSource(entry: entry) } catch { throw LoadError(error.description) }
                let bytes: [UInt8]
                switch list {
                case .file(let path):
                    do { bytes = try readFileBytes(path) } catch { throw LoadError(error.description) }
                case .url:
                    bytes = copies.copy(of: list) ?? []
                }
                let source = builder.addSource(list.sourceName)
                let report = RuleListParser.parse(bytes, role: role, source: source, into: &builder)
                if !reports.contains(where: { $0.0 == list.displayName }) { reports.append((list.displayName, report)) }
            }
        }
        return builder.build()
    }

    /// Every list given by URL in `config`, the shared ones and each person's.
    public static func subscriptions(_ config: LockrConfiguration) -> [ListSource] {
        let entries = config.blocklists + config.allowlists + config.people.flatMap { $0.blocklists + $0.allowlists }
        return entries.compactMap { entry in
            guard let list = try? ListSource(entry: entry), case .url = list else { return nil }
            return list
        }
    }

    /// Every entry a schedule or profile blocks must name an app, a group or `guarded`.
    static func checkSelections(of person: PersonSettings, _ naming: AppNaming) throws(LoadError) {
        let named =
            (person.schedules ?? []).map { ("schedules.\($0.name)", $0.block) }
            + person.profiles.map { ("profiles.\($0.name)", $0.block) }
        for (key, block) in named {
            if let problem = AppSelection.problem(block, apps: naming.names, groups: naming.groups) {
                throw LoadError("\(key).\(problem)")
            }
        }
    }

    /// The guarded apps by their ids; every one must be an app of `names`.
    static func guarded(
        _ guarded: [String], _ names: [String: String], catalogue: AppCatalogue
    ) throws(LoadError) -> [String] {
        let unknown = guarded.filter { AppNames.resolve($0, in: names) == nil }
        guard unknown.isEmpty else {
            let listed = unknown.map { id in
                "'\(id)'" + (AppNames.suggestion(for: id, in: names).map { " (did you mean \($0)?)" } ?? "")
            }
            let place =
                catalogue.apps.isEmpty ? "the catalogue (none was found: set catalogue = \"DIR\")" : "the catalogue"
            throw LoadError(
                "guard: no app \(listed.joined(separator: ", ")) in \(place) or [apps]; `lockr apps` lists them")
        }
        return guarded.compactMap { AppNames.resolve($0, in: names) }
    }

    /// The TLS contexts that encrypted `upstreams` need, made once; nil when all are plain.
    static func upstreamTLS(for upstreams: [Upstream], caFile: String?) throws(LoadError) -> UpstreamTLS? {
        guard upstreams.contains(where: \.isEncrypted) else { return nil }
        do { return try UpstreamTLS(caFile: caFile) } catch { throw LoadError("[upstream] \(error)") }
    }

    /// The upstreams lockr forwards to, the ones written by name looked up; and why any of those
    /// was left out. Without any configured: the nameservers of `resolvConf`.
    static func upstreams(
        _ config: LockrConfiguration, resolvConf: String = "/etc/resolv.conf"
    ) throws(LoadError) -> (upstreams: [Upstream], unresolved: [UnresolvedUpstream]) {
        guard !config.upstreams.isEmpty else {
            return (
                try systemNameservers(config, resolvConf: resolvConf, for: "no upstream configured").map(
                    Upstream.plain), []
            )
        }
        var upstreams: [Upstream] = []
        var unresolved: [UnresolvedUpstream] = []
        var bootstrap: [SocketAddress]?
        for entry in config.upstreams {
            switch entry {
            case .at(let upstream): upstreams.append(upstream)
            case .named(let named):
                if bootstrap == nil { bootstrap = try bootstrapServers(config, resolvConf: resolvConf) }
                do {
                    upstreams += named.at(try BootstrapLookup.addresses(of: named.host, servers: bootstrap ?? []))
                } catch {
                    unresolved.append(UnresolvedUpstream(upstream: "\(named)", reason: "\(error)"))
                }
            }
        }
        guard !upstreams.isEmpty else {
            throw LoadError(
                "upstreams: no address found for \(unresolved.map(\.description).joined(separator: "; ")); write the addresses (https://ADDR@HOST/PATH, tls://ADDR@NAME) or set [upstream] bootstrap"
            )
        }
        return (upstreams, unresolved)
    }

    /// Whom to ask where an upstream written by name is: `[upstream] bootstrap`, else the plain
    /// upstreams, else the nameservers of `resolvConf`.
    private static func bootstrapServers(
        _ config: LockrConfiguration, resolvConf: String
    ) throws(LoadError) -> [SocketAddress] {
        if !config.forwarding.bootstrap.isEmpty { return config.forwarding.bootstrap }
        let plain = config.upstreams.compactMap { entry -> SocketAddress? in
            guard case .at(let upstream) = entry, !upstream.isEncrypted else { return nil }
            return upstream.address
        }
        if !plain.isEmpty { return plain }
        return try systemNameservers(config, resolvConf: resolvConf, for: "an upstream is written by name")
    }

    /// The nameservers of `resolvConf` other than lockr itself.
    private static func systemNameservers(
        _ config: LockrConfiguration, resolvConf: String, for reason: String
    ) throws(LoadError) -> [SocketAddress] {
        let servers: [String]
        do { servers = try ResolvConf.nameservers(path: resolvConf) } catch {
            throw LoadError(
                "\(reason) and \(resolvConf) is unusable (\(error)); pass --upstream ADDR or set [upstream] bootstrap")
        }
        let found = servers.compactMap { AddressText.parse($0, defaultPort: 53) }.filter { !isSelf($0, config.listen) }
        guard !found.isEmpty else {
            throw LoadError(
                "\(reason) and \(resolvConf) names only lockr itself; pass --upstream ADDR or set [upstream] bootstrap")
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

    /// The DNS-over-HTTPS services' names of the catalogue (`anti-bypass/doh.txt`: one name a line,
    /// `#` comments); none without a catalogue or that file.
    static func dnsOverHTTPSNames(in catalogue: String?) throws(LoadError) -> [String] {
        guard let catalogue else { return [] }
        let path = catalogue + "/anti-bypass/doh.txt"
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw LoadError("cannot read \(path)")
        }
        var names: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let name = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmed.lowercased()
            guard !name.isEmpty else { continue }
            guard WireName.wire(fromPresentation: name) != nil, !name.contains(" " as Character) else {
                throw LoadError("\(path): line \(number + 1): '\(name)' is not a domain name")
            }
            names.append(name)
        }
        return names
    }

    /// The safe-search providers of the catalogue (`safe-search/*.txt`, one provider a file), in
    /// the order of their file names; none without a catalogue or that directory.
    static func safeSearchProviders(in catalogue: String?) throws(LoadError) -> [SafeSearchProvider] {
        guard let catalogue else { return [] }
        let directory = catalogue + "/safe-search"
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var providers: [SafeSearchProvider] = []
        for file in files.sorted() where file.hasSuffix(".txt") {
            let path = directory + "/" + file
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw LoadError("cannot read \(path)")
            }
            do { providers.append(try SafeSearchProvider(text: text)) } catch { throw LoadError("\(path): \(error)") }
        }
        return providers
    }

    /// `blocklists/` in a directory above the program (a source checkout), else the installed copy:
    /// `share/lockr/blocklists` under the program's prefix (`PREFIX/bin/lockr`), then the usual
    /// prefixes'.
    static func defaultCatalogueDirectory() -> String? {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let installed = directory.deletingLastPathComponent().appendingPathComponent("share/lockr/blocklists").path
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("blocklists")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("README.md").path) {
                return candidate.path
            }
            directory.deleteLastPathComponent()
        }
        return [installed, "/usr/local/share/lockr/blocklists", "/usr/share/lockr/blocklists"].first {
            FileManager.default.fileExists(atPath: $0)
        }
    }
}

/// An upstream written by name whose address was not found, and so left out until a reload.
public struct UnresolvedUpstream: Sendable, CustomStringConvertible {
    /// The upstream as written ("https://dns.quad9.net/dns-query").
    public let upstream: String
    /// Why its address was not found, in words.
    public let reason: String

    public var description: String { "\(upstream): \(reason)" }
}
