import DNSFilter
import DNSProxy
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// `lockr serve`: loads the configuration, runs the DNS engine, reloads on SIGHUP, stops on SIGTERM.
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
        try StateDirectory.prepare(config.stateDirectory)
        let loaded = try PolicyLoader.load(config)
        report(loaded, config)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: config.threads)
        let cache = AnswerCache(settings: config.cache)
        let server: DNSServer
        do {
            server = try await DNSServer.start(
                listeners: ListenerSettings(
                    addresses: listenAddresses(config), maxTCPConnections: config.maxTCPConnections,
                    tcpIdleTimeout: config.tcpIdleTimeout),
                pipeline: Self.pipeline(config, loaded, cache: cache),
                upstreams: UpstreamPool(servers: loaded.upstreams),
                forwarding: config.forwarding,
                group: group)
        } catch {
            try? await group.shutdownGracefully()
            throw LoadError("cannot listen: \(error)")
        }
        // Trap SIGHUP before saying ready, so that a reload asked for right away is never fatal.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for address in server.boundAddresses {
            logger.notice("listening", metadata: ["address": "\(AddressText.format(address))", "transport": "udp+tcp"])
        }
        logger.notice(
            "ready", metadata: ["upstreams": "\(loaded.upstreams.map(AddressText.format).joined(separator: ","))"])

        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                self.reload(server: server, cache: cache, running: config)
            }
        }
        logger.notice("shutting down")
        await server.close()
        try await group.shutdownGracefully()
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

    private func reload(server: DNSServer, cache: AnswerCache, running: LockrConfiguration) {
        do {
            let config = try configure()
            let loaded = try PolicyLoader.load(config)
            if config.listen != running.listen || config.cache.capacity != running.cache.capacity
                || config.cache.staleSeconds != running.cache.staleSeconds
                || config.maxTCPConnections != running.maxTCPConnections
                || config.tcpIdleTimeout != running.tcpIdleTimeout || config.threads != running.threads
            {
                logger.warning(
                    "listen addresses, threads, cache size, serve-stale and tcp settings change only on restart")
            }
            server.update(
                pipeline: Self.pipeline(config, loaded, cache: cache),
                upstreams: UpstreamPool(servers: loaded.upstreams),
                forwarding: config.forwarding)
            report(loaded, config)
            logger.notice("reloaded")
        } catch {
            logger.error("reload failed; still running the previous configuration", metadata: ["error": "\(error)"])
        }
    }

    static func pipeline(_ config: LockrConfiguration, _ loaded: LoadedPolicy, cache: AnswerCache) -> QueryPipeline {
        QueryPipeline(
            policy: FilterPolicy(
                rules: loaded.rules, blockAnswer: config.blockAnswer, blockTTL: config.blockTTL,
                antiBypass: config.antiBypass),
            access: config.access, cacheSettings: config.cache, cache: cache)
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
                "blocked-domains": "\(loaded.rules.blockedDomainCount)",
                "allowed-domains": "\(loaded.rules.allowedDomainCount)",
                "regexes": "\(loaded.rules.regexCount)", "seconds": "\(String(format: "%.3f", loaded.listLoadSeconds))",
                "apps": "\(loaded.catalogue.apps.count)", "catalogue": "\(loaded.catalogueDirectory ?? "none")",
                "block-mode": "\(config.blockAnswer)",
            ])
    }
}
