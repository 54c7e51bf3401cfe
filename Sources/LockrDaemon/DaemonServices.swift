import DNSProxy
import Hummingbird
import HummingbirdCore
import LockrControl
import LockrWeb
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// The DNS server, bound before the group starts: answers until graceful shutdown, then closes its
/// sockets and event loops.
struct DNSService: Service, CustomStringConvertible {
    let server: DNSServer
    let loops: MultiThreadedEventLoopGroup
    var description: String { "DNS" }

    func run() async throws {
        try? await gracefulShutdown()
        await server.close()
        try await loops.shutdownGracefully()
    }
}

/// Work that repeats until it is cancelled (the policy's clock, the neighbour table, the
/// adapters), cancelled on graceful shutdown so that it ends by itself rather than as a failure.
struct RepeatingService: Service, CustomStringConvertible {
    let description: String
    let body: @Sendable () async -> Void

    func run() async {
        await cancelWhenGracefulShutdown { await body() }
    }
}

/// The control API. Once it listens, writes its address where the CLI finds it and says so through
/// `listening`; a port it cannot bind ends the daemon with a message saying what to change.
struct ControlService: Service, CustomStringConvertible {
    let application: any Service
    let bound: AsyncStream<SocketAddress?>
    let boundSink: AsyncStream<SocketAddress?>.Continuation
    let addressText: String
    let stateDirectory: String
    let listening: @Sendable (SocketAddress) -> Void
    var description: String { "control API" }

    /// The control API at `address`, answering through `router`.
    static func make(
        router: Router<ControlRequestContext>, address: SocketAddress, quota: SourceQuota, stateDirectory: String,
        logger: Logger, listening: @escaping @Sendable (SocketAddress) -> Void
    ) -> ControlService {
        let (bound, boundSink) = AsyncStream.makeStream(of: SocketAddress?.self)
        let application = Application(
            router: router, server: .guarded(by: quota),
            configuration: .init(address: .hostname(address.ipAddress ?? "127.0.0.1", port: address.port ?? 0)),
            onServerRunning: { channel in boundSink.yield(channel.localAddress) },
            logger: logger)
        return ControlService(
            application: application, bound: bound, boundSink: boundSink, addressText: AddressText.format(address),
            stateDirectory: stateDirectory, listening: listening)
    }

    func run() async throws {
        try await withThrowingDiscardingTaskGroup { tasks in
            tasks.addTask {
                // Ending here without having listened ends the wait for the address below.
                defer { boundSink.finish() }
                do { try await application.run() } catch {
                    throw LoadError(
                        "cannot serve the control API on \(addressText): \(ListenError.reason(error))"
                            + " (another lockr, or another program, holds it? set control = \"127.0.0.1:PORT\")")
                }
            }
            var addresses = bound.makeAsyncIterator()
            guard let address = await addresses.next(), let address else { return }
            do { try ControlFiles.writeAddress(AddressText.format(address), in: stateDirectory) } catch {
                throw LoadError("\(error)")
            }
            listening(address)
        }
    }
}

/// The web pages. Once they are served, says where; an address it cannot bind is logged and the
/// daemon goes on without them (answering DNS matters more than a page), still stopping when the
/// others do.
struct WebService: Service, CustomStringConvertible {
    let application: any Service
    let addressText: String
    let logger: Logger
    var description: String { "web pages" }

    /// The pages at `address`, answering through `router`.
    static func make(
        router: Router<ControlRequestContext>, address: SocketAddress, quota: SourceQuota, logger: Logger
    ) -> WebService {
        let application = Application(
            router: router, server: .guarded(by: quota),
            configuration: .init(address: .hostname(address.ipAddress ?? "127.0.0.1", port: address.port ?? 0)),
            onServerRunning: { channel in
                guard let bound = channel.localAddress else { return }
                logger.notice("web pages", metadata: ["address": "\(AddressText.format(bound))"])
            },
            logger: logger)
        return WebService(application: application, addressText: AddressText.format(address), logger: logger)
    }

    func run() async {
        do { try await application.run() } catch {
            logger.warning(
                "web pages not served",
                metadata: [
                    "address": "\(addressText)", "reason": "\(ListenError.reason(error))",
                    "fix": "set web = \"ADDR:PORT\" to a free port, or web = \"off\"",
                ])
            // Ended early, it waits for the others' shutdown: returning now would end the group.
            try? await gracefulShutdown()
        }
    }
}

extension HTTPServerBuilder {
    /// How long a connection may stay without a request under way (keep-alive between requests, a
    /// request head that never completes) before it is closed. A response under way (an event
    /// stream) is not idle.
    static let idleTimeout: TimeAmount = .seconds(30)

    /// HTTP/1.1 whose connections count against `quota`, close when idle, and close after a
    /// response that says so.
    static func guarded(by quota: SourceQuota) -> HTTPServerBuilder {
        .http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionQuotaHandler(quota: quota), ClosingResponseHandler()],
                idleTimeout: idleTimeout))
    }
}

/// Reloads the configuration on each SIGHUP until graceful shutdown. The signal is trapped when this
/// is made, before the daemon says it is ready, so that a reload asked for at once is never fatal.
struct ReloadService: Service, CustomStringConvertible {
    let hangups: UnixSignalsSequence
    let reload: @Sendable () -> Void
    var description: String { "reload on SIGHUP" }

    func run() async {
        await cancelWhenGracefulShutdown {
            for await _ in hangups { reload() }
        }
    }
}
