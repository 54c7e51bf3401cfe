import DNSFilter
import DNSProxy
import Foundation
import LockrAdapters
import LockrControl
import LockrLists
import LockrSpeech
import LockrStore
import LockrWeb
import Logging
import NIOCore
import NIOPosix
import PlainText
import ServiceLifecycle

/// The daemon's parts, each built from what it needs (Hummingbird's `buildApplication` shape):
/// `Daemon.build` composes them in order.
extension Daemon {
    /// The state database, everyone's policy restored from it, and the control API's token.
    static func openState(
        _ config: LockrConfiguration, loaded: LoadedPolicy, neighbours: NeighbourTable, logger: Logger
    ) throws -> (store: PolicyStore, parts: PolicyParts, token: String) {
        do {
            let store = try PolicyStore(path: config.stateDirectory + "/state.sqlite")
            try DemoClock.admit(config, store: store)
            let parts = try PolicyParts(
                config: config, loaded: loaded, store: store, logger: logger,
                publisher: publisher(config, outbox: OutboxStore(sharing: store), logger: logger),
                neighbours: neighbours, queryLog: try QueryLog(config: config))
            return (store, parts, try ControlFiles.token(in: config.stateDirectory))
        } catch {
            throw LoadError("\(error)")
        }
    }

    /// The DNS server bound on the configured addresses, with its cache and its query log's
    /// writer; nil when lockr leaves DNS to its backends.
    static func dnsService(
        _ config: LockrConfiguration, loaded: LoadedPolicy, parts: PolicyParts, logger: Logger
    ) async throws -> (
        service: DNSService, server: DNSServer, cache: AnswerCache, loops: [any EventLoop], serving: EncryptedServing?
    )? {
        guard config.answersDNS else { return nil }
        let serving = try encryptedServing(config)
        let cache = AnswerCache(settings: config.cache)
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: config.threads)
        do {
            let server = try await DNSServer.start(
                listeners: ListenerSettings(
                    addresses: listenAddresses(config, logger: logger), tlsAddresses: config.listenTLS,
                    httpsAddresses: config.listenHTTPS, tcp: config.tcp),
                pipeline: PipelineKeeper.pipeline(config, lists: loaded.lists, cache: cache, parts: parts),
                upstreams: UpstreamPool(upstreams: loaded.upstreams, tls: loaded.upstreamTLS, logger: logger),
                routes: ForwardRoutes(config.forwards, logger: logger), forwarding: config.forwarding,
                serving: serving, group: loops, journal: parts.queryLog?.journal)
            await parts.metrics.observe(server, cache: cache)
            let writer = parts.queryLog.map { queryLog in
                QueryLogWriter(
                    journal: queryLog.journal, store: queryLog.store, retention: queryLog.retention,
                    maximumBytes: queryLog.maximumBytes, logger: logger)
            }
            return (
                DNSService(server: server, loops: loops, queryLog: writer), server, cache, Array(loops.makeIterator()),
                serving
            )
        } catch {
            try? await loops.shutdownGracefully()
            throw LoadError("\(error)")
        }
    }

    /// Reads lockr's certificate and key as `serve` would (`check-config`): throws what is wrong.
    public static func checkCertificate(_ config: LockrConfiguration) throws(LoadError) {
        _ = try encryptedServing(config)
    }

    /// lockr's certificate, read for `listen-tls` and `listen-https`; nil when neither is set.
    static func encryptedServing(_ config: LockrConfiguration) throws(LoadError) -> EncryptedServing? {
        guard !config.listenTLS.isEmpty || !config.listenHTTPS.isEmpty else { return nil }
        guard let certificate = config.tls.certificate, let key = config.tls.key else {
            throw LoadError(
                "listen-tls and listen-https need [tls] certificate and key (see \"Serving encrypted DNS\" in dns.md)")
        }
        do {
            return EncryptedServing(
                certificate: try ServerCertificate(certificate: certificate, key: key), name: config.tls.name)
        } catch {
            throw LoadError("[tls] \(error)")
        }
    }

    /// Reads lockr's certificate again when a renewal replaced it on disk.
    static func certificateRenewal(_ serving: EncryptedServing, logger: Logger) -> any Service {
        RepeatingService(description: "certificate renewal") {
            while true {
                do { try await Task.sleep(for: .seconds(5)) } catch { return }
                switch serving.certificate.reloadIfChanged() {
                case .unchanged: break
                case .reloaded:
                    logger.notice(
                        "certificate read again; new connections get it",
                        metadata: ["certificate": "\(serving.certificate.certificatePath)"])
                case .failed(let reason):
                    logger.error(
                        "the changed certificate cannot be used; the previous one stays",
                        metadata: ["error": "\(reason)"])
                }
            }
        }
    }

    /// The devices that asked, restored from the state database and kept there.
    static func deviceTable(parts: PolicyParts, store: PolicyStore, logger: Logger) -> any Service {
        let devices = DeviceTableKeeper(
            watch: parts.watch, store: DeviceStore(sharing: store), household: parts.household, logger: logger)
        devices.restore()
        return RepeatingService(description: "device table") { await devices.run() }
    }

    /// What keeps the daemon's picture of the world fresh once DNS is answered: the policy's clock,
    /// the service manager's watchdog over the DNS loops, the neighbour table and the backends.
    static func upkeep(
        _ config: LockrConfiguration, parts: PolicyParts, neighbours: NeighbourTable, dnsLoops: [any EventLoop],
        serviceManager: ServiceManagerNotifier?, logger: Logger
    ) -> [any Service] {
        var services: [any Service] = [RepeatingService(description: "policy clock") { await parts.ticker.run() }]
        if let watchdog = Watchdog(
            notifier: serviceManager, loops: dnsLoops, lastTick: { parts.ticker.lastTicked }, logger: logger)
        {
            services.append(RepeatingService(description: "watchdog") { await watchdog.run() })
        }
        if let stall = config.testStallDNSAfter {
            services.append(Watchdog.stalling(dnsLoops, after: stall, logger: logger))
        }
        services.append(
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
        if let dnstap = parts.dnstap {
            services.append(
                RepeatingService(description: "dnstap") { await dnstap.run(meter: parts.meter, logger: logger) })
        }
        if let hub = parts.propagation.publisher?.hub {
            parts.propagation.publish()
            services.append(
                RepeatingService(description: "adapters") {
                    await hub.run(observe: { backend, queries in parts.meter.observe(queries, from: backend) })
                })
        }
        return services
    }

    /// Keeps the lists given by URL up to date; each time a copy in force changes, the rule lists
    /// that read it are built again (on the idle-class list thread, `ListWork`) and swapped into the
    /// running pipeline: the configuration's, or the own entries of the people of `household` that
    /// name it.
    static func listSubscriptions(
        _ config: LockrConfiguration, keeper: PipelineKeeper, household: Household, logger: Logger
    )
        -> ListSubscriptions
    {
        ListSubscriptions(
            copies: ListCopies(stateDirectory: config.stateDirectory),
            sources: ListDesk.sources(config, runTime: household.runTimeLists()), settings: config.lists,
            logger: logger
        ) { changed in
            let runTime = Set(household.runTimeLists().compactMap { try? ListSource(entry: $0.list.value) })
            try? await ListWork.run {
                let started = ContinuousClock.now
                if changed.contains(where: runTime.contains) { household.refreshNaming(listsFetched: true) }
                guard changed.contains(where: { !runTime.contains($0) }) else { return }
                do {
                    try keeper.listsChanged { config, running throws(LoadError) in
                        try PolicyLoader.ruleLists(config, running: running)
                    }
                    let elapsed = ContinuousClock.now - started
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                    logger.notice("lists swapped in", metadata: ["seconds": "\(PlainText.fixed(seconds, decimals: 3))"])
                } catch {
                    logger.error("lists not swapped in; the ones before stay", metadata: ["error": "\(error)"])
                }
            }
            // The event loops let go of the rules before within a moment; then their memory goes
            // back to the system instead of staying with the C allocator.
            Task {
                try? await Task.sleep(for: .seconds(2))
                FreedMemory.giveBack()
            }
        }
    }

    /// The control API and, when configured, the web pages; `ready` is told the control API's
    /// address once it listens.
    static func httpServices(
        _ config: LockrConfiguration, parts: PolicyParts, quotas: DescriptorBudget, token: String, speech: SpeechPool,
        logger: Logger, ready: @escaping @Sendable (SocketAddress) -> Void
    ) throws -> [any Service] {
        let endStreams: @Sendable () -> Void = { parts.liveEvents.close() }
        var services: [any Service] = [
            HTTPService(
                "control API", router: ControlRouter.build(policy: parts.control, token: token, speech: speech),
                address: config.control, quota: quotas.control,
                need: .required(fix: "another lockr, or another program, holds it? set control = \"127.0.0.1:PORT\""),
                logger: logger, endStreams: endStreams
            ) { address in
                do { try ControlFiles.writeAddress(AddressText.format(address), in: config.stateDirectory) } catch {
                    throw LoadError("\(error)")
                }
                ready(address)
            }
        ]
        if let web = config.web {
            services.append(
                HTTPService(
                    "web pages", router: try WebRouter.build(policy: parts.control, speech: speech), address: web,
                    quota: quotas.web, need: .optional(fix: "set web = \"ADDR:PORT\" to a free port, or web = \"off\""),
                    logger: logger, endStreams: endStreams
                ) { address in logger.notice("web pages", metadata: ["address": "\(AddressText.format(address))"]) })
        }
        return services
    }

    /// Watches the web pages', the control API's and the event streams' connections against their
    /// quotas, and has the metrics count them.
    static func quotaWatch(_ quotas: DescriptorBudget, parts: PolicyParts, logger: Logger) async -> any Service {
        let watched = [
            WatchedQuota(label: "web", description: "connections to the web pages", quota: quotas.web),
            WatchedQuota(label: "control", description: "connections to the control API", quota: quotas.control),
            WatchedQuota(label: "events", description: "event streams", quota: parts.liveEvents.streams),
        ]
        await parts.metrics.observe(watched)
        return RepeatingService(description: "connection quotas") {
            await QuotaWatch(quotas: watched, logger: logger).run()
        }
    }

    /// The live events each webhook that takes them is sent.
    static func webhookNotifiers(_ config: LockrConfiguration, parts: PolicyParts, logger: Logger) -> [any Service] {
        config.backends.compactMap { backend -> (any Service)? in
            guard case .webhook(let webhook) = backend.endpoint, webhook.events != .off else { return nil }
            let notifier = WebhookNotifier(name: backend.name, settings: webhook, timeout: backend.timeout)
            let notices = parts.liveEvents.listen(after: nil).map { event in
                WebhookNotices.notice(event, calendar: parts.control.view(of: event.person).calendar)
            }
            return RepeatingService(description: "live events to \(backend.name)") {
                await notifier.run(notices, logger: logger)
                // The daemon closed its live events: the group's stop reaches this service next.
                try? await gracefulShutdown()
            }
        }
    }
}
