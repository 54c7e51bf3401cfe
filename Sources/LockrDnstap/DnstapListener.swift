import DNSProxy
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Takes dnstap from resolvers over a unix socket and TCP, as Frame Streams in either direction
/// mode, and hands each batch of client questions to `sink`, which meters them.
///
/// Nothing a writer does stops lockr: garbage, a wrong content type or no START within
/// `startTimeout` closes that connection (counted as broken); a writer beyond `max-connections`,
/// or over TCP from outside `allow-from`, is turned away (refused); a malformed message is
/// counted and skipped. A busy lockr reads more slowly, and the resolver drops what its own queue
/// cannot hold: that loss is the resolver's to count (unbound logs it).
public final class DnstapListener: Sendable {
    /// Gets each read's client questions; returns how many it metered.
    public typealias Sink = @Sendable ([DnstapSighting]) -> Int

    public let counters: DnstapCounters
    private let channels: [Channel]

    private init(counters: DnstapCounters, channels: [Channel]) {
        self.counters = counters
        self.channels = channels
    }

    /// Listens where `settings` say. Throws `ListenError` when a socket cannot be had.
    public static func start(
        _ settings: DnstapSettings, startTimeout: TimeAmount = .seconds(10), group: any EventLoopGroup,
        logger: Logger, sink: @escaping Sink
    ) async throws(ListenError) -> DnstapListener {
        let counters = DnstapCounters()
        let warnings = WarningPace()
        var channels: [Channel] = []
        @Sendable func initialize(_ channel: Channel, checked access: AccessControl?) -> EventLoopFuture<Void> {
            if let access, !(channel.remoteAddress.map(access.allows) ?? false) {
                counters.refuse()
                return channel.close()
            }
            guard counters.connect(limit: settings.maxConnections) else {
                if warnings.due() {
                    logger.warning(
                        "dnstap writer turned away: max-connections reached",
                        metadata: ["limit": "\(settings.maxConnections)"])
                }
                return channel.close()
            }
            channel.closeFuture.whenComplete { _ in counters.disconnect() }
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandlers(
                    ByteToMessageHandler(FrameStreamDecoder()),
                    DnstapConnectionHandler(
                        counters: counters, warnings: warnings, startTimeout: startTimeout, logger: logger, sink: sink))
            }
        }
        do throws(ListenError) {
            if !settings.socket.isEmpty {
                let path = settings.socket
                do {
                    let channel = try await ServerBootstrap(group: group)
                        .childChannelInitializer { initialize($0, checked: nil) }
                        .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
                    channels.append(channel)
                    // Resolvers run as users of their own: any local user may write, as any may
                    // reach a TCP port on loopback.
                    chmod(path, 0o666)
                } catch {
                    throw ListenError(place: path, transport: "dnstap unix socket", reason: ListenError.reason(error))
                }
            }
            for address in settings.listen {
                do {
                    channels.append(
                        try await ServerBootstrap(group: group)
                            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                            .childChannelInitializer { initialize($0, checked: settings.allowFrom) }
                            .bind(to: address).get())
                } catch {
                    throw ListenError(
                        place: AddressText.format(address), transport: "dnstap TCP", reason: ListenError.reason(error))
                }
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw error
        }
        return DnstapListener(counters: counters, channels: channels)
    }

    /// The TCP addresses it listens on (the port the system gave when 0 was asked).
    public var tcpAddresses: [SocketAddress] {
        channels.compactMap { $0.localAddress }.filter { $0.protocol != .unix }
    }

    /// Stops taking connections (those open end with the process).
    public func stop() async {
        for channel in channels { try? await channel.close() }
    }
}

/// Lets a warning about writers through at most every 10 seconds, so that a writer reconnecting
/// in a loop cannot flood the log; the counters still count each time.
final class WarningPace: Sendable {
    private let last = Atomic<UInt64>(0)
    private static let interval: UInt64 = 10_000_000_000

    func due() -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        let before = last.load(ordering: .relaxed)
        guard before == 0 || now - before >= Self.interval else { return false }
        return last.compareExchange(expected: before, desired: now, ordering: .relaxed).exchanged
    }
}

/// One writer's connection: the Frame Streams handshake, then each data frame read into a
/// sighting, handed on once per read.
private final class DnstapConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = FrameStreamFrame
    typealias OutboundOut = ByteBuffer

    private let counters: DnstapCounters
    private let warnings: WarningPace
    private let startTimeout: TimeAmount
    private let logger: Logger
    private let sink: DnstapListener.Sink
    private var session = FrameStreamSession()
    private var batch: [DnstapSighting] = []
    private var read = 0
    private var malformed = 0
    /// Set once the writer sent a CLIENT_QUERY: from then on its CLIENT_RESPONSEs, the same
    /// questions again, are not counted.
    private var logsQueries = false
    private var startDeadline: Scheduled<Void>?

    init(
        counters: DnstapCounters, warnings: WarningPace, startTimeout: TimeAmount, logger: Logger,
        sink: @escaping DnstapListener.Sink
    ) {
        self.counters = counters
        self.warnings = warnings
        self.startTimeout = startTimeout
        self.logger = logger
        self.sink = sink
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        startDeadline = context.eventLoop.assumeIsolated().scheduleTask(in: startTimeout) { [weak self] in
            guard let self, !self.session.started else { return }
            self.broke(channel: channel, FrameStreamError.outOfOrder("no START within \(self.startTimeout)"))
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        startDeadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        do throws(FrameStreamError) {
            switch unwrapInboundIn(data) {
            case .control(let control):
                let step = try session.receive(control)
                if session.started { startDeadline?.cancel() }
                if let reply = step.reply {
                    var buffer = context.channel.allocator.buffer(capacity: 32)
                    reply.write(into: &buffer)
                    context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
                }
                if step.close {
                    flush()
                    context.close(promise: nil)
                }
            case .data(let frame):
                try session.receiveData()
                take(frame)
            }
        } catch {
            broke(channel: context.channel, error)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flush()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        flush()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let broken = error as? FrameStreamError {
            broke(channel: context.channel, broken)
        } else {
            context.close(promise: nil)
        }
    }

    private func take(_ frame: ByteBuffer) {
        read += 1
        do throws(DnstapProblem) {
            guard let sighting = try DnstapSighting.read(frame) else { return }
            switch sighting.kind {
            case .query: logsQueries = true
            case .response: guard !logsQueries else { return }
            }
            batch.append(sighting)
        } catch {
            malformed += 1
            if warnings.due() { logger.warning("dnstap message skipped", metadata: ["problem": "\(error)"]) }
        }
    }

    private func flush() {
        guard read > 0 else { return }
        let metered = batch.isEmpty ? 0 : sink(batch)
        counters.took(read: read, malformed: malformed, metered: metered)
        batch.removeAll(keepingCapacity: true)
        (read, malformed) = (0, 0)
    }

    private func broke(channel: Channel, _ error: FrameStreamError) {
        guard channel.isActive else { return }
        flush()
        counters.broke()
        if warnings.due() {
            logger.warning(
                "dnstap writer cut off",
                metadata: ["problem": "\(error)", "peer": "\(channel.remoteAddress.map { "\($0)" } ?? "unix socket")"])
        }
        channel.close(promise: nil)
    }
}
