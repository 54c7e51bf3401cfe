import DNSFilter
import DNSProxy
import Foundation
import LockrAdapters
import LockrControl
import LockrSpeech
import LockrStore
import LockrWeb
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// `lockr serve`: the configuration loaded, the policy restored, and the daemon's parts composed as
/// one swift-service-lifecycle `ServiceGroup`: the DNS server, the policy's clock, the neighbour
/// table, the adapter hub, the control API and reloads on SIGHUP. `build` binds the listeners and
/// returns it ready to run, so that tests run the whole daemon in their own process.
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
    private let logger: Logger

    private init(
        services: ServiceGroup, dnsAddresses: [SocketAddress], stateDirectory: String, lock: StateDirectoryLock,
        logger: Logger
    ) {
        self.services = services
        self.dnsAddresses = dnsAddresses
        self.stateDirectory = stateDirectory
        self.lock = lock
        self.logger = logger
    }

    /// Loads the configuration, takes the state directory, restores everyone's policy and binds the
    /// DNS listeners. Throws `LoadError` saying what is wrong.
    /// - Parameter shutdownSignals: the signals that stop the daemon gracefully.
    public static func build(
        configuration configure: @escaping ConfigurationSource, logger: Logger,
        shutdownSignals: [UnixSignal] = [.sigterm, .sigint]
    ) async throws -> Daemon {
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
        let descriptors = DescriptorBudget.claim(maxTCPConnections: config.maxTCPConnections, logger: logger)
        let neighbours = NeighbourTable()
        let parts: PolicyParts
        let token: String
        let store: PolicyStore
        do {
            store = try PolicyStore(path: config.stateDirectory + "/state.sqlite")
            try DemoClock.admit(config, store: store)
            parts = try PolicyParts(
                config: config, loaded: loaded, store: store, logger: logger,
                publisher: publisher(config, outbox: OutboxStore(sharing: store), logger: logger),
                neighbours: neighbours, queryLog: try QueryLog(config: config))
            token = try ControlFiles.token(in: config.stateDirectory)
        } catch {
            throw LoadError("\(error)")
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        func add(_ service: some Service) {
            services.append(.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let queryLog = parts.queryLog {
            // Before the DNS server: services stop in reverse order, so the log writes what the
            // DNS server handed over last.
            let writer = QueryLogWriter(
                journal: queryLog.journal, store: queryLog.store, retention: queryLog.retention,
                maximumBytes: queryLog.maximumBytes, logger: logger)
            add(RepeatingService(description: "query log") { await writer.run() })
        }
        let devices = DeviceTableKeeper(
            watch: parts.watch, store: DeviceStore(sharing: store), household: parts.household, logger: logger)
        devices.restore()
        add(RepeatingService(description: "device table") { await devices.run() })
        let cache = AnswerCache(settings: config.cache)
        let serviceManager = ServiceManagerNotifier()
        var server: DNSServer?
        var dnsLoops: [any EventLoop] = []
        if config.answersDNS {
            let loops = MultiThreadedEventLoopGroup(numberOfThreads: config.threads)
            do {
                let started = try await DNSServer.start(
                    listeners: ListenerSettings(
                        addresses: listenAddresses(config, logger: logger), maxTCPConnections: config.maxTCPConnections,
                        tcpIdleTimeout: config.tcpIdleTimeout),
                    pipeline: PipelineKeeper.pipeline(
                        config, lists: loaded.lists, cache: cache, parts: parts),
                    upstreams: UpstreamPool(servers: loaded.upstreams, logger: logger),
                    forwarding: config.forwarding,
                    group: loops, journal: parts.queryLog?.journal)
                server = started
                dnsLoops = Array(loops.makeIterator())
                await parts.metrics.observe(started, cache: cache)
                add(DNSService(server: started, loops: loops))
            } catch {
                try? await loops.shutdownGracefully()
                throw LoadError("\(error)")
            }
        }
        let keeper = server.map {
            PipelineKeeper(server: $0, cache: cache, parts: parts, config: config, lists: loaded.lists)
        }
        if let keeper { parts.control.explainer.use { keeper.dryRunFilter() } }
        add(RepeatingService(description: "policy clock") { await parts.ticker.run() })
        if let watchdog = Watchdog(
            notifier: serviceManager, loops: dnsLoops, lastTick: { parts.ticker.lastTicked }, logger: logger)
        {
            add(RepeatingService(description: "watchdog") { await watchdog.run() })
        }
        if let stall = config.testStallDNSAfter { add(Watchdog.stalling(dnsLoops, after: stall, logger: logger)) }
        add(
            RepeatingService(description: "neighbour table") {
                await neighbours.keepFresh(every: .seconds(5)) { failure in
                    if let failure {
                        logger.warning(
                            "cannot read the neighbour table; devices are told apart by address and forwarders only",
                            metadata: ["error": "\(failure)"])
                    } else {
                        logger.notice("neighbour table readable again")
                    }
                }
            })
        if let hub = parts.propagation.publisher?.hub {
            parts.propagation.publish()
            add(
                RepeatingService(description: "adapters") {
                    await hub.run(observe: { backend, queries in parts.meter.observe(queries, from: backend) })
                })
        }
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        add(
            ReloadService(hangups: hangups) {
                reload(configure: configure, keeper: keeper, parts: parts, running: config, logger: logger)
            })
        let speech = SpeechPool(model: SpeechModel(directory: config.speechModel))
        let speechProblem = SpeechModel(directory: config.speechModel).problem.map { "\($0)" }
        if let speechProblem {
            logger.notice("spoken sentences cannot be heard", metadata: ["reason": "\(speechProblem)"])
        }
        add(
            RepeatingService(description: "speech") {
                try? await gracefulShutdown()
                try? await speech.shutdown()
            })
        let dnsAddresses = server?.boundAddresses ?? []
        parts.doctor.serve(
            dnsAddresses: dnsAddresses, upstreams: loaded.upstreams, answersDNS: config.answersDNS,
            installation: installation(loaded, config, speechProblem: speechProblem))
        add(
            ControlService.make(
                router: ControlRouter.build(policy: parts.control, token: token, speech: speech),
                address: config.control, quota: descriptors.control,
                stateDirectory: config.stateDirectory, logger: logger
            ) { address in
                reportReady(
                    config: config, loaded: loaded, parts: parts, dnsAddresses: dnsAddresses, control: address,
                    logger: logger)
                serviceManager?.send("READY=1\nSTATUS=answering")
            })
        if let web = config.web {
            add(
                WebService.make(
                    router: try WebRouter.build(policy: parts.control, speech: speech), address: web,
                    quota: descriptors.web, logger: logger))
        }
        let quotas = [
            WatchedQuota(label: "web", description: "connections to the web pages", quota: descriptors.web),
            WatchedQuota(label: "control", description: "connections to the control API", quota: descriptors.control),
            WatchedQuota(label: "events", description: "event streams", quota: parts.liveEvents.streams),
        ]
        add(
            RepeatingService(description: "connection quotas") {
                await QuotaWatch(quotas: quotas, logger: logger).run()
            })
        await parts.metrics.observe(quotas)
        // After the control API, so that it stops first: open event streams end, and with them the
        // requests the control API waits for before it stops.
        add(
            RepeatingService(description: "live events") {
                try? await gracefulShutdown()
                parts.liveEvents.close()
            })
        // After the live events' end, so that they stop first: a stream that ends before its reader
        // is cancelled would end that service unasked, which the group takes for a failure.
        for backend in config.backends where backend.kind == .webhook && backend.events != .off {
            let notifier = WebhookNotifier(settings: backend)
            let notices = parts.liveEvents.listen(after: nil).map { event in
                WebhookNotices.notice(event, calendar: parts.control.view(of: event.person).calendar)
            }
            add(
                RepeatingService(description: "live events to \(backend.name)") {
                    await notifier.run(notices, logger: logger)
                })
        }
        if let serviceManager {
            // Last, so that it hears of the shutdown first and says so before anything stops.
            add(
                RepeatingService(description: "service manager") {
                    try? await gracefulShutdown()
                    serviceManager.send("STOPPING=1")
                })
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services, gracefulShutdownSignals: signals, logger: logger))
        return Daemon(
            services: group, dnsAddresses: dnsAddresses, stateDirectory: config.stateDirectory, lock: lock,
            logger: logger)
    }

    /// Runs every service until a shutdown signal or `stop()`, then lets go of the state directory.
    public func run() async throws {
        defer {
            unlink(stateDirectory + "/" + ControlFiles.addressFile)
            lock.release()
        }
        try await services.run()
        logger.notice("stopped")
    }

    /// Stops every service gracefully: queries and requests under way are answered, state is saved.
    public func stop() async {
        await services.triggerGracefulShutdown()
    }

    /// What `lockr doctor` says of the catalogue and the speech model.
    private static func installation(
        _ loaded: LoadedPolicy, _ config: LockrConfiguration, speechProblem: String?
    ) -> Doctor.Installation {
        let gates = [config.policy.gate] + config.people.map { $0.policy.gate }
        return Doctor.Installation(
            catalogue: loaded.catalogueDirectory.map { ($0, loaded.catalogue.apps.count) },
            speechProblem: speechProblem,
            voiceAsked: gates.contains { gate in
                let steps = gate.time + gate.hourly + gate.extreme
                return steps.contains(.voice) || (steps.contains(.phrase) && gate.input == .voice)
            })
    }

    /// Says what runs, once every listener is bound.
    private static func reportReady(
        config: LockrConfiguration, loaded: LoadedPolicy, parts: PolicyParts, dnsAddresses: [SocketAddress],
        control: SocketAddress, logger: Logger
    ) {
        for address in dnsAddresses {
            logger.notice("listening", metadata: ["address": "\(AddressText.format(address))", "transport": "udp+tcp"])
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
            "ready", metadata: ["upstreams": "\(loaded.upstreams.map(AddressText.format).joined(separator: ","))"])
    }

    /// The configured addresses; on a machine without IPv6 the embedded default drops `[::1]`
    /// rather than failing to start.
    private static func listenAddresses(_ config: LockrConfiguration, logger: Logger) -> [SocketAddress] {
        guard config.listen == LockrConfiguration().listen else { return config.listen }
        let hasIPv6Loopback = ((try? System.enumerateDevices()) ?? []).contains { $0.address?.ipAddress == "::1" }
        if hasIPv6Loopback { return config.listen }
        logger.warning("no IPv6 loopback on this machine; listening on 127.0.0.1 only")
        return config.listen.filter { $0.protocol == .inet }
    }

    private static func reload(
        configure: ConfigurationSource, keeper: PipelineKeeper?, parts: PolicyParts, running: LockrConfiguration,
        logger: Logger
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
                upstreams: loaded.upstreams, answersDNS: running.answersDNS,
                installation: installation(
                    loaded, config, speechProblem: SpeechModel(directory: running.speechModel).problem.map { "\($0)" }))
            keeper?.reload(
                config, lists: loaded.lists, upstreams: UpstreamPool(servers: loaded.upstreams, logger: logger))
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
            switch settings.kind {
            case .pihole6: (PiHole6Backend(settings: settings, memory: outbox), settings.kind)
            case .pihole5: (PiHole5Backend(settings: settings), settings.kind)
            case .adguardhome: (AdGuardHomeBackend(settings: settings), settings.kind)
            case .nextdns: (NextDNSBackend(settings: settings, memory: outbox), settings.kind)
            case .webhook: (WebhookBackend(settings: settings), settings.kind)
            }
        }
        let hub = AdapterHub(
            backends: backends, outbox: outbox, timing: config.adapterTiming,
            metering: Set([config.meterFrom].compactMap { $0 }), logger: logger)
        return BlockSetPublisher(hub: hub, logger: logger)
    }

    private static func report(_ loaded: LoadedPolicy, _ config: LockrConfiguration, logger: Logger) {
        if config.upstreams.isEmpty, loaded.upstreams.contains(where: { $0.ipAddress == "127.0.0.53" }) {
            logger.warning("upstream 127.0.0.53 is systemd-resolved, which may ask lockr back: set --upstream")
        }
        for (path, report) in loaded.reports {
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
                "seconds": "\(String(format: "%.3f", loaded.listLoadSeconds))",
                "apps": "\(loaded.catalogue.apps.count)", "catalogue": "\(loaded.catalogueDirectory ?? "none")",
                "block-mode": "\(config.blockAnswer)",
            ])
    }
}
