import DNSProxy
import Hummingbird
import HummingbirdCore
import LockrControl
import LockrSpeech
import LockrWeb
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// The DNS server, bound before the group starts, and the query log's writer, which takes what the
/// server's loops journal: answers until graceful shutdown, then closes its sockets and event loops,
/// and the writer writes what the server handed over last before it ends.
struct DNSService: Service, CustomStringConvertible {
    let server: DNSServer
    let loops: MultiThreadedEventLoopGroup
    let queryLog: QueryLogWriter?
    var description: String { "DNS" }

    func run() async throws {
        try await withThrowingDiscardingTaskGroup { tasks in
            if let queryLog { tasks.addTask { await queryLog.run() } }
            try? await gracefulShutdown()
            await server.close()
            defer { tasks.cancelAll() }
            try await loops.shutdownGracefully()
        }
    }
}

/// The speech recogniser's threads, which the control API and the web pages hear sentences with:
/// let go once the daemon stops (the group stops it after the services registered later).
struct SpeechService: Service, CustomStringConvertible {
    let pool: SpeechPool
    var description: String { "speech" }

    func run() async {
        try? await gracefulShutdown()
        try? await pool.shutdown()
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

/// One of the daemon's HTTP servers (the control API, the web pages): Hummingbird's application
/// on its address, counting connections against its quota. Once it listens it calls `listening`.
/// When the daemon stops it ends the live event streams it serves, so that the requests it waits
/// for end. An address it cannot bind ends the daemon when the server is `required`; otherwise it
/// is logged and the daemon goes on without it (answering DNS matters more than a page), still
/// stopping when the others do.
struct HTTPService: Service, CustomStringConvertible {
    /// What a server that cannot listen does to the daemon, and the fix to say.
    enum Need: Sendable {
        case required(fix: String)
        case optional(fix: String)
    }

    let description: String
    let application: any Service
    let bound: AsyncStream<SocketAddress?>
    let boundSink: AsyncStream<SocketAddress?>.Continuation
    let addressText: String
    let need: Need
    let endStreams: @Sendable () -> Void
    let listening: @Sendable (SocketAddress) throws -> Void
    let logger: Logger

    /// `description` served through `router` at `address`.
    init(
        _ description: String, router: Router<ControlRequestContext>, address: SocketAddress, quota: SourceQuota,
        need: Need, logger: Logger, endStreams: @escaping @Sendable () -> Void,
        listening: @escaping @Sendable (SocketAddress) throws -> Void
    ) {
        let (bound, boundSink) = AsyncStream.makeStream(of: SocketAddress?.self)
        self.description = description
        application = Application(
            router: router, server: .guarded(by: quota),
            configuration: .init(address: .hostname(address.ipAddress ?? "127.0.0.1", port: address.port ?? 0)),
            onServerRunning: { channel in boundSink.yield(channel.localAddress) },
            logger: logger)
        self.bound = bound
        self.boundSink = boundSink
        addressText = AddressText.format(address)
        self.need = need
        self.endStreams = endStreams
        self.listening = listening
        self.logger = logger
    }

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { tasks in
                tasks.addTask {
                    // Ending here without having listened ends the wait for the address below.
                    defer { boundSink.finish() }
                    do { try await application.run() } catch { try await cannotServe(error) }
                }
                var addresses = bound.makeAsyncIterator()
                guard let address = await addresses.next(), let address else { return }
                try listening(address)
            }
        } onGracefulShutdown: {
            endStreams()
        }
    }

    private func cannotServe(_ error: any Error) async throws {
        let reason = ListenError.reason(error)
        switch need {
        case .required(let fix):
            throw LoadError("cannot serve the \(description) on \(addressText): \(reason) (\(fix))")
        case .optional(let fix):
            logger.warning(
                "\(description) not served",
                metadata: ["address": "\(addressText)", "reason": "\(reason)", "fix": "\(fix)"])
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
