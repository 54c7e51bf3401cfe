import DNSFilter
import DNSProxy
import Foundation
import Hummingbird
import LockrAdapters
import LockrControl
import LockrStore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `lockr serve`: loads the configuration, restores the policy, runs the DNS engine and the control
/// API, reloads on SIGHUP, stops on SIGTERM.
public final class Daemon: Service {
    /// Produces the configuration anew (config file + command-line overrides) for start and reload.
    public typealias ConfigurationSource = @Sendable () throws -> LockrConfiguration

    private let configure: ConfigurationSource
    private let logger: Logger

    public init(configuration: @escaping ConfigurationSource, logger: Logger) {
        self.configure = configuration
        self.logger = logger
    }

    public func run() async throws {
        let config = try configure()
        if let narrowed = try StateDirectory.prepare(config.stateDirectory) { logger.notice("\(narrowed)") }
        let lock = try StateDirectoryLock(directory: config.stateDirectory)
        defer { lock.release() }
        let loaded = try PolicyLoader.load(config)
        report(loaded, config)
        let neighbours = NeighbourTable()
        let runtime: Household
        let token: String
        do {
            let store = try PolicyStore(path: config.stateDirectory + "/state.sqlite")
            runtime = try Household(
                config: config, loaded: loaded, store: store, logger: logger,
                publisher: Self.publisher(config, outbox: OutboxStore(sharing: store), logger: logger),
                neighbours: neighbours)
            token = try ControlFiles.token(in: config.stateDirectory)
        } catch {
            throw LoadError("\(error)")
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: config.threads)
        let cache = AnswerCache(settings: config.cache)
        var server: DNSServer?
        if config.answersDNS {
            do {
                server = try await DNSServer.start(
                    listeners: ListenerSettings(
                        addresses: listenAddresses(config), maxTCPConnections: config.maxTCPConnections,
                        tcpIdleTimeout: config.tcpIdleTimeout),
                    pipeline: PipelineKeeper.pipeline(config, lists: loaded.lists, cache: cache, runtime: runtime),
                    upstreams: UpstreamPool(servers: loaded.upstreams, logger: logger),
                    forwarding: config.forwarding,
                    group: group)
            } catch {
                try? await group.shutdownGracefully()
                throw LoadError("\(error)")
            }
        }
        let keeper = server.map {
            PipelineKeeper(server: $0, cache: cache, runtime: runtime, config: config, lists: loaded.lists)
        }
        do {
            try await serve(
                config: config, loaded: loaded, server: server, keeper: keeper, runtime: runtime,
                neighbours: neighbours, token: token)
        } catch {
            await server?.close()
            try? await group.shutdownGracefully()
            throw error
        }
        logger.notice("shutting down")
        await server?.close()
        try await group.shutdownGracefully()
        unlink(config.stateDirectory + "/" + ControlFiles.addressFile)
    }

    /// Runs the control API and the policy's clock beside the DNS server until shutdown.
    private func serve(
        config: LockrConfiguration, loaded: LoadedPolicy, server: DNSServer?, keeper: PipelineKeeper?,
        runtime: Household, neighbours: NeighbourTable, token: String
    ) async throws {
        let controlText = AddressText.format(config.control)
        let (bound, boundSink) = AsyncStream.makeStream(of: SocketAddress?.self)
        let control = Application(
            router: ControlRouter.build(policy: runtime, token: token),
            configuration: .init(
                address: .hostname(config.control.ipAddress ?? "127.0.0.1", port: config.control.port ?? 0)),
            onServerRunning: { channel in boundSink.yield(channel.localAddress) },
            logger: logger)
        let stopping = StopFlag()
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask {
                defer { boundSink.finish() }
                do { try await control.run() } catch {
                    if stopping.isSet { return }
                    throw LoadError(
                        "cannot serve the control API on \(controlText): \(ListenError.reason(error))"
                            + " (another lockr, or another program, holds it? set control = \"127.0.0.1:PORT\")")
                }
            }
            var addresses = bound.makeAsyncIterator()
            guard let address = await addresses.next(), let address else { return }
            do { try ControlFiles.writeAddress(AddressText.format(address), in: config.stateDirectory) } catch {
                throw LoadError("\(error)")
            }
            // Each task ends on graceful shutdown by itself (the control API finishes its requests),
            // so that nothing is cancelled mid-way and logged as an error.
            tasks.addTask { await cancelWhenGracefulShutdown { await runtime.run() } }
            let logger = logger
            tasks.addTask {
                await cancelWhenGracefulShutdown {
                    await neighbours.keepFresh(every: .seconds(5)) { failure in
                        if let failure {
                            logger.warning(
                                "cannot read the neighbour table; devices are told apart by address and forwarders only",
                                metadata: ["error": "\(failure)"])
                        } else {
                            logger.notice("neighbour table readable again")
                        }
                    }
                }
            }
            if let hub = runtime.publisher?.hub {
                runtime.publish()
                tasks.addTask {
                    await cancelWhenGracefulShutdown {
                        await hub.run(observe: { backend, queries in runtime.observe(queries, from: backend) })
                    }
                }
            }
            // Trap SIGHUP before saying ready, so that a reload asked for right away is never fatal.
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            for address in server?.boundAddresses ?? [] {
                logger.notice(
                    "listening", metadata: ["address": "\(AddressText.format(address))", "transport": "udp+tcp"])
            }
            if server == nil { logger.notice("not answering DNS: backends enforce the policy") }
            for warning in config.warnings { logger.warning("\(warning)") }
            if loaded.catalogueDirectory == nil {
                logger.warning(
                    "no app catalogue found (blocklists/ beside the program, /usr/local/share/lockr/blocklists, /usr/share/lockr/blocklists): no catalogue app can be guarded; set catalogue = \"DIR\""
                )
            }
            if let drift = runtime.clockDrift() {
                logger.warning("\(drift)")
            }
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
                metadata: ["address": "\(AddressText.format(address))", "state-dir": "\(config.stateDirectory)"])
            for policy in runtime.summary() {
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

            await cancelWhenGracefulShutdown {
                for await _ in hangups {
                    self.reload(keeper: keeper, runtime: runtime, running: config)
                }
            }
            stopping.set()
        }
    }

    /// The configured addresses; on a machine without IPv6 the embedded default drops `[::1]`
    /// rather than failing to start.
    private func listenAddresses(_ config: LockrConfiguration) -> [SocketAddress] {
        guard config.listen == LockrConfiguration().listen else { return config.listen }
        let hasIPv6Loopback = ((try? System.enumerateDevices()) ?? []).contains { $0.address?.ipAddress == "::1" }
        if hasIPv6Loopback { return config.listen }
        logger.warning("no IPv6 loopback on this machine; listening on 127.0.0.1 only")
        return config.listen.filter { $0.protocol == .inet }
    }

    private func reload(keeper: PipelineKeeper?, runtime: Household, running: LockrConfiguration) {
        do {
            let config = try configure()
            let loaded = try PolicyLoader.load(config)
            if config.listen != running.listen || config.cache.capacity != running.cache.capacity
                || config.cache.staleSeconds != running.cache.staleSeconds
                || config.maxTCPConnections != running.maxTCPConnections
                || config.tcpIdleTimeout != running.tcpIdleTimeout || config.threads != running.threads
                || config.control != running.control || config.stateDirectory != running.stateDirectory
                || config.timeScale != running.timeScale || config.startAt != running.startAt
                || config.answersDNS != running.answersDNS || config.backends != running.backends
                || config.meterFrom != running.meterFrom || config.adapterTiming != running.adapterTiming
            {
                logger.warning(
                    "listen and control addresses, state directory, threads, cache size, serve-stale, tcp settings, the time scale and backends change only on restart"
                )
            }
            runtime.reload(config: config, loaded: loaded)
            keeper?.reload(config, lists: loaded.lists, upstreams: UpstreamPool(servers: loaded.upstreams, logger: logger))
            report(loaded, config)
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

    private func report(_ loaded: LoadedPolicy, _ config: LockrConfiguration) {
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
                "regexes": "\(loaded.lists.shared.regexCount)", "seconds": "\(String(format: "%.3f", loaded.listLoadSeconds))",
                "apps": "\(loaded.catalogue.apps.count)", "catalogue": "\(loaded.catalogueDirectory ?? "none")",
                "block-mode": "\(config.blockAnswer)",
            ])
    }
}

/// Keeps the DNS server's pipeline built from the latest configuration and rule lists and the app
/// names in force: a reload and a change of the names in force (a loosening change applying) each
/// build a new one, one at a time, from what is latest then, so the latest always wins.
final class PipelineKeeper: Sendable {
    private let server: DNSServer
    private let cache: AnswerCache
    private let runtime: Household
    private let inputs: Mutex<(config: LockrConfiguration, lists: RuleLists)>

    init(server: DNSServer, cache: AnswerCache, runtime: Household, config: LockrConfiguration, lists: RuleLists) {
        self.server = server
        self.cache = cache
        self.runtime = runtime
        inputs = Mutex((config, lists))
        runtime.whenNamingChanges { [weak self] in self?.namingChanged() }
    }

    /// Takes a reloaded configuration, its rule lists and upstreams.
    func reload(_ config: LockrConfiguration, lists: RuleLists, upstreams: UpstreamPool) {
        inputs.withLock { inputs in
            inputs = (config, lists)
            server.update(
                pipeline: Self.pipeline(config, lists: lists, cache: cache, runtime: runtime), upstreams: upstreams,
                forwarding: config.forwarding)
        }
    }

    private func namingChanged() {
        inputs.withLock { inputs in
            server.update(pipeline: Self.pipeline(inputs.config, lists: inputs.lists, cache: cache, runtime: runtime))
        }
    }

    /// The pipeline for `config` and `lists` around the household's people and their app names in
    /// force.
    static func pipeline(
        _ config: LockrConfiguration, lists: RuleLists, cache: AnswerCache, runtime: Household
    ) -> QueryPipeline {
        QueryPipeline(
            policy: FilterPolicy(
                rules: lists.shared, blockAnswer: config.blockAnswer, blockTTL: config.blockTTL,
                people: runtime.filters(ownLists: lists.own),
                guardStage: GuardStage(gate: runtime, blockTTL: config.guardBlockTTL)),
            access: config.access, devices: runtime.deviceDirectory(), cacheSettings: config.cache, cache: cache,
            sightings: runtime.watch.sightings)
    }
}

/// Set once shutdown has begun, so that tasks ending because of it are not taken for failures.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}
