import DNSFilter
import DNSProxy
import Foundation
import LockrAdapters
import LockrControl
import LockrLists
import LockrRPZ
import LockrSpeech
import LockrStore
import LockrWeb
import Logging
import NIOCore
import NIOPosix
import PlainText
import ServiceLifecycle
import UnixSignals

/// `lockr serve`: the configuration loaded, the policy restored, and the daemon's parts composed as
/// one swift-service-lifecycle `ServiceGroup`: the DNS server with its query log, the policy's
/// clock, the neighbour table, the adapter hub, the control API and the web pages, and reloads on
/// SIGHUP. Each service lets go of what it owns when the group stops it gracefully; SIGTERM and
/// SIGINT (or `stop()`) tell the service manager, then stop the group. `build` binds the listeners
/// and returns it ready to run, so that tests run the whole daemon in their own process.
public final class Daemon: Sendable {
    /// Produces the configuration anew (config file + command-line overrides) for start and reload.
    public typealias ConfigurationSource = @Sendable () throws -> LockrConfiguration

    /// Every part of the running daemon; a shutdown signal or `stop()` ends them all gracefully.
    public let services: ServiceGroup
    /// Where DNS is answered (the ports the system gave, for port 0); empty when lockr leaves DNS to
    /// its backends.
    public let dnsAddresses: [SocketAddress]
    private let stateDirectory: String
    private let lock: StateDirectoryLock
    /// SIGTERM and SIGINT, trapped before the daemon says it is ready.
    private let shutdownSignals: UnixSignalsSequence
    private let serviceManager: ServiceManagerNotifier?
    private let logger: Logger

    private init(
        services: ServiceGroup, dnsAddresses: [SocketAddress], stateDirectory: String, lock: StateDirectoryLock,
        shutdownSignals: UnixSignalsSequence, serviceManager: ServiceManagerNotifier?, logger: Logger
    ) {
        self.services = services
        self.dnsAddresses = dnsAddresses
        self.stateDirectory = stateDirectory
        self.lock = lock
        self.shutdownSignals = shutdownSignals
        self.serviceManager = serviceManager
        self.logger = logger
    }

    /// Loads the configuration, takes the state directory, restores everyone's policy and binds the
    /// DNS listeners. Throws `LoadError` saying what is wrong.
    /// - Parameter shutdownSignals: the signals that stop the daemon gracefully.
    public static func build(
        configuration configure: @escaping ConfigurationSource, logger: Logger,
        shutdownSignals: [UnixSignal] = [.sigterm, .sigint]
    ) async throws -> Daemon {
        FreedMemory.keepLargeBlocksApart()
        let config = try configure()
        for narrowed in try StateDirectory.prepare(config.stateDirectory) { logger.notice("\(narrowed)") }
        let lock = try StateDirectoryLock(directory: config.stateDirectory)
        do {
            return try await build(
                config: config, configure: configure, lock: lock, logger: logger, signals: shutdownSignals)
        } catch {
            lock.release()
            throw error
        }
    }

    private static func build(
        config: LockrConfiguration, configure: @escaping ConfigurationSource, lock: StateDirectoryLock, logger: Logger,
        signals: [UnixSignal]
    ) async throws -> Daemon {
        let loaded = try PolicyLoader.load(config)
        report(loaded, config, logger: logger)
        let descriptors = DescriptorBudget.claim(maxTCPConnections: config.tcp.maxConnections, logger: logger)
        let neighbours = NeighbourTable()
        let (store, parts, token) = try openState(config, loaded: loaded, neighbours: neighbours, logger: logger)
        let serviceManager = ServiceManagerNotifier()
        // Restored before DNS answers, so that the first queries' sightings add to it.
        let devices = deviceTable(parts: parts, store: store, logger: logger)
        let dns = try await dnsService(config, loaded: loaded, parts: parts, logger: logger)
        let keeper = dns.map {
            PipelineKeeper(server: $0.server, cache: $0.cache, parts: parts, config: config, lists: loaded.lists)
        }
        if let keeper { parts.explainer.use { keeper.dryRun() } }
        let lists = keeper.map { listSubscriptions(config, keeper: $0, household: parts.household, logger: logger) }
        if let lists {
            parts.lists.use(lists, config: config, runTime: parts.household.runTimeLists())
            parts.household.whenRunTimeListsChange { [household = parts.household, desk = parts.lists] _ in
                Task { await desk.follow(runTime: household.runTimeLists()) }
            }
            await parts.metrics.observe(lists)
        }
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        let reloads = ReloadService(hangups: hangups) {
            reload(configure: configure, keeper: keeper, lists: lists, parts: parts, running: config, logger: logger)
        }
        let speechModel = SpeechModel(directory: config.speechModel)
        let speech = SpeechService(pool: SpeechPool(model: speechModel))
        let speechProblem = speechModel.problem.map { "\($0)" }
        if let speechProblem {
            logger.notice("spoken sentences cannot be heard", metadata: ["reason": "\(speechProblem)"])
        }
        let dnsAddresses = dns?.server.boundAddresses ?? []
        parts.doctor.serve(
            dnsAddresses: dnsAddresses, upstreams: loaded.upstreams, unresolvedUpstreams: loaded.unresolvedUpstreams,
            upstreamTLS: loaded.upstreamTLS, forwards: config.forwards,
            answersDNS: config.answersDNS,
            installation: installation(loaded, config, speechProblem: speechProblem))
        let http = try httpServices(
            config, parts: parts, quotas: descriptors, token: token, speech: speech.pool, logger: logger
        ) { control in
            reportReady(
                config: config, loaded: loaded, parts: parts, dnsAddresses: dnsAddresses,
                encryptedAddresses: dns.map { ($0.server.boundTLSAddresses, $0.server.boundHTTPSAddresses) } ?? (
                    [], []
                ),
                control: control, logger: logger)
            serviceManager?.send("READY=1\nSTATUS=answering", patience: ServiceManagerNotifier.stateChangePatience)
        }
        // The group stops services in the reverse of this order: the HTTP services before the
        // speech threads they hear sentences with; the policy's clock and the watchdog before the
        // DNS loops they watch; the DNS server before the device table it reports sightings to.
        var services = [devices]
        if let dns { services.append(dns.service) }
        if let serving = dns?.serving { services.append(certificateRenewal(serving, logger: logger)) }
        services += upkeep(
            config, parts: parts, neighbours: neighbours, dnsLoops: dns?.loops ?? [], serviceManager: serviceManager,
            logger: logger)
        if let lists { services.append(RepeatingService(description: "lists") { await lists.keepUpToDate() }) }
        services += [reloads, speech] as [any Service]
        services += http
        services.append(await quotaWatch(descriptors, parts: parts, logger: logger))
        services += webhookNotifiers(config, parts: parts, logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
                logger: logger))
        return Daemon(
            services: group, dnsAddresses: dnsAddresses, stateDirectory: config.stateDirectory, lock: lock,
            shutdownSignals: await UnixSignalsSequence(trapping: signals), serviceManager: serviceManager,
            logger: logger)
    }

    /// Runs every service until a shutdown signal or `stop()`, then lets go of the state directory.
    public func run() async throws {
        defer {
            unlink(stateDirectory + "/" + ControlFiles.addressFile)
            lock.release()
        }
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask {
                var signals = self.shutdownSignals.makeAsyncIterator()
                if await signals.next() != nil { await self.stop() }
            }
            defer { tasks.cancelAll() }
            try await services.run()
        }
        logger.notice("stopped")
    }

    /// Stops every service gracefully: queries and requests under way are answered, state is saved.
    /// The service manager hears of it first.
    public func stop() async {
        _ = serviceManager?.send("STOPPING=1", patience: ServiceManagerNotifier.stateChangePatience)
        await services.triggerGracefulShutdown()
    }

    /// What `lockr doctor` says of the catalogue, the speech model and the time zones.
    private static func installation(
        _ loaded: LoadedPolicy, _ config: LockrConfiguration, speechProblem: String?
    ) -> Doctor.Installation {
        let gates = [config.policy.gate] + config.people.map { $0.policy.gate }
        let zones = [config.policy.calendar.zone] + config.people.map { $0.policy.calendar.zone }
        return Doctor.Installation(
            catalogue: loaded.catalogueDirectory.map { ($0, loaded.catalogue.apps.count) },
            speechProblem: speechProblem,
            voiceAsked: gates.contains { gate in
                let steps = gate.time + gate.hourly + gate.extreme
                return steps.contains(.voice) || (steps.contains(.phrase) && gate.input == .voice)
            },
            policyZones: zones.reduce(into: []) { if !$0.contains($1.identifier) { $0.append($1.identifier) } })
    }

    /// Says what runs, once every listener is bound.
    private static func reportReady(
        config: LockrConfiguration, loaded: LoadedPolicy, parts: PolicyParts, dnsAddresses: [SocketAddress],
        encryptedAddresses: (tls: [SocketAddress], https: [SocketAddress]), control: SocketAddress, logger: Logger
    ) {
        for address in dnsAddresses {
            logger.notice("listening", metadata: ["address": "\(AddressText.format(address))", "transport": "udp+tcp"])
        }
        for address in encryptedAddresses.tls {
            logger.notice("listening", metadata: ["address": "\(AddressText.format(address))", "transport": "tls"])
        }
        for address in encryptedAddresses.https {
            logger.notice(
                "listening",
                metadata: [
                    "address": "\(AddressText.format(address))", "transport": "https",
                    "url":
                        "https://\(config.tls.name ?? AddressText.format(address))\(address.port == 443 ? "" : ":\(address.port ?? 0)")\(DoHRequestReader.path)",
                ])
        }
        if !config.answersDNS { logger.notice("not answering DNS: backends enforce the policy") }
        for warning in config.warnings { logger.warning("\(warning)") }
        if loaded.catalogueDirectory == nil {
            logger.warning(
                "no app catalogue found (blocklists/ beside the program, share/lockr/blocklists under its prefix, /usr/local/share/lockr/blocklists, /usr/share/lockr/blocklists): no catalogue app can be guarded; set catalogue = \"DIR\""
            )
        }
        // A demo's clock is apart from the machine's on purpose.
        if !DemoClock.asked(by: config), let drift = parts.control.clockDrift() { logger.warning("\(drift)") }
        for backend in config.backends {
            logger.notice(
                "backend",
                metadata: [
                    "name": "\(backend.name)", "url": "\(backend.url.replacing(/\/\/[^\/@]*@/, with: "//"))",
                    "meters-usage": "\(config.meterFrom == backend.name)",
                ])
        }
        logger.notice(
            "control API",
            metadata: ["address": "\(AddressText.format(control))", "state-dir": "\(config.stateDirectory)"])
        for policy in parts.summary() {
            logger.notice(
                "policy",
                metadata: [
                    "person": "\(policy.person)", "mode": "\(policy.mode)",
                    "guarded": "\(policy.guarded.joined(separator: ","))", "open-windows": "\(policy.openWindows)",
                    "time-scale": "\(config.timeScale)",
                ])
        }
        logger.notice(
            "ready", metadata: ["upstreams": "\(loaded.upstreams.map(\.description).joined(separator: ","))"])
    }

    /// The configured addresses; on a machine without IPv6 the embedded default drops `[::1]`
    /// rather than failing to start.
    static func listenAddresses(_ config: LockrConfiguration, logger: Logger) -> [SocketAddress] {
        guard config.listen == LockrConfiguration().listen else { return config.listen }
        let hasIPv6Loopback = ((try? System.enumerateDevices()) ?? []).contains { $0.address?.ipAddress == "::1" }
        if hasIPv6Loopback { return config.listen }
        logger.warning("no IPv6 loopback on this machine; listening on 127.0.0.1 only")
        return config.listen.filter { $0.protocol == .inet }
    }

    private static func reload(
        configure: ConfigurationSource, keeper: PipelineKeeper?, lists: ListSubscriptions?, parts: PolicyParts,
        running: LockrConfiguration, logger: Logger
    ) {
        do {
            let config = try configure()
            let loaded = try PolicyLoader.load(config)
            let waiting = RestartOnlySettings.changed(from: running, to: config)
            if !waiting.isEmpty {
                logger.warning(
                    "changed settings that apply only when lockr restarts; still running with the previous ones",
                    metadata: ["settings": "\(waiting.joined(separator: ", "))"])
            }
            parts.reload(config: config, loaded: loaded)
            parts.doctor.serve(
                upstreams: loaded.upstreams, unresolvedUpstreams: loaded.unresolvedUpstreams,
                upstreamTLS: loaded.upstreamTLS, forwards: config.forwards, answersDNS: running.answersDNS,
                installation: installation(
                    loaded, config, speechProblem: SpeechModel(directory: running.speechModel).problem.map { "\($0)" }))
            keeper?.reload(
                config, lists: loaded.lists,
                upstreams: UpstreamPool(upstreams: loaded.upstreams, tls: loaded.upstreamTLS, logger: logger),
                routes: ForwardRoutes(config.forwards, logger: logger))
            if lists != nil { Task { await parts.lists.reconfigure(config) } }
            report(loaded, config, logger: logger)
            logger.notice("reloaded")
        } catch {
            logger.error("reload failed; still running the previous configuration", metadata: ["error": "\(error)"])
        }
    }

    /// The adapter layer for the configured backends, or nil when lockr only answers DNS.
    static func publisher(_ config: LockrConfiguration, outbox: OutboxStore, logger: Logger) -> BlockSetPublisher? {
        guard !config.backends.isEmpty else { return nil }
        let backends: [(any Backend, BackendKind)] = config.backends.map { settings in
            let (name, timeout) = (settings.name, settings.timeout)
            let backend: any Backend =
                switch settings.endpoint {
                case .pihole6(let own): PiHole6Backend(name: name, settings: own, timeout: timeout, memory: outbox)
                case .pihole5(let own): PiHole5Backend(name: name, settings: own, timeout: timeout)
                case .adguardhome(let own): AdGuardHomeBackend(name: name, settings: own, timeout: timeout)
                case .nextdns(let own): NextDNSBackend(name: name, settings: own, timeout: timeout, memory: outbox)
                case .webhook(let own): WebhookBackend(name: name, settings: own, timeout: timeout)
                case .rpz(let own):
                    RPZBackend(
                        name: name, settings: own, action: RPZAction(config.blockAnswer), memory: outbox,
                        group: MultiThreadedEventLoopGroup.singleton, logger: logger)
                }
            return (backend, settings.kind)
        }
        let hub = AdapterHub(
            backends: backends, outbox: outbox, timing: config.adapterTiming,
            metering: Set([config.meterFrom].compactMap { $0 }), logger: logger)
        return BlockSetPublisher(hub: hub, logger: logger)
    }

    private static func report(_ loaded: LoadedPolicy, _ config: LockrConfiguration, logger: Logger) {
        if config.upstreams.isEmpty, loaded.upstreams.contains(where: { $0.address.ipAddress == "127.0.0.53" }) {
            logger.warning("upstream 127.0.0.53 is systemd-resolved, which may ask lockr back: set --upstream")
        }
        for problem in loaded.unresolvedUpstreams {
            logger.warning("upstream left out: its address was not found", metadata: ["problem": "\(problem)"])
        }
        for (path, report) in loaded.reports {
            guard !loaded.unfetched.contains(path) else {
                logger.info("list not fetched yet; fetching it", metadata: ["path": "\(path)"])
                continue
            }
            logger.info(
                "list loaded",
                metadata: ["path": "\(path)", "rules": "\(report.rules)", "skipped": "\(report.issueCount)"])
            for issue in report.issues.prefix(5) {
                logger.warning("list line skipped", metadata: ["path": "\(path)", "issue": "\(issue)"])
            }
        }
        logger.info(
            "rules ready",
            metadata: [
                "blocked-domains": "\(loaded.lists.shared.blockedDomainCount)",
                "allowed-domains": "\(loaded.lists.shared.allowedDomainCount)",
                "regexes": "\(loaded.lists.shared.regexCount)",
                "seconds": "\(PlainText.fixed(loaded.listLoadSeconds, decimals: 3))",
                "apps": "\(loaded.catalogue.apps.count)", "catalogue": "\(loaded.catalogueDirectory ?? "none")",
                "block-mode": "\(config.blockAnswer)",
            ])
    }
}
