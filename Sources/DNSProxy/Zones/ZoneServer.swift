import Foundation
import Logging
import NIOCore
import NIOPosix

/// Serves `ServedZones` to secondaries, on UDP (SOA queries) and TCP (SOA, AXFR, IXFR), to the
/// sources `access` allows; others get no answer at all. A TCP connection idle for `idleTimeout`
/// is closed; one that sends what is not a DNS message is closed at once. Each transfer is logged.
public final class ZoneServer: Sendable {
    private let channels: [Channel]

    private init(channels: [Channel]) { self.channels = channels }

    /// Listens on each of `addresses` (UDP and TCP).
    public static func start(
        on addresses: [SocketAddress], zones: ServedZones, access: AccessControl, signing: ZoneSigning = .none,
        idleTimeout: TimeAmount = .seconds(30), group: any EventLoopGroup, logger: Logger
    ) async throws -> ZoneServer {
        var channels: [Channel] = []
        do {
            for address in addresses {
                let datagrams = try await DatagramBootstrap(group: group)
                    .channelOption(.socketOption(.so_reuseaddr), value: 1)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                ZoneDatagramHandler(zones: zones, access: access, signing: signing))
                        }
                    }
                    .bind(to: address).get()
                channels.append(datagrams)
                // The TCP port is the one the UDP socket got (the same when one was given).
                let streamAddress = datagrams.localAddress ?? address
                channels.append(
                    try await ServerBootstrap(group: group)
                        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                        .childChannelInitializer { channel in
                            guard let remote = channel.remoteAddress, access.allows(remote) else {
                                return channel.close()
                            }
                            return channel.eventLoop.makeCompletedFuture {
                                try channel.pipeline.syncOperations.addHandlers(
                                    IdleStateHandler(allTimeout: idleTimeout),
                                    ByteToMessageHandler(DNSFrameDecoder(maxMessageSize: 65_535)),
                                    MessageToByteHandler(DNSFrameEncoder()),
                                    ZoneStreamHandler(zones: zones, signing: signing, logger: logger))
                            }
                        }
                        .bind(to: streamAddress).get())
            }
        } catch {
            for channel in channels { try? await channel.close() }
            throw error
        }
        return ZoneServer(channels: channels)
    }

    /// Where it listens (UDP and TCP share each port).
    public var addresses: [SocketAddress] {
        channels.enumerated().compactMap { $0.offset % 2 == 0 ? $0.element.localAddress : nil }
    }

    public func stop() async {
        for channel in channels { try? await channel.close() }
    }
}

/// SOA queries (and the rest, answered as `ZoneResponder` says) over UDP.
private final class ZoneDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let zones: ServedZones
    private let access: AccessControl
    private let signing: ZoneSigning

    init(zones: ServedZones, access: AccessControl, signing: ZoneSigning) {
        self.zones = zones
        self.access = access
        self.signing = signing
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard access.allows(envelope.remoteAddress) else { return }
        let reply = ZoneResponder.answer(
            Array(envelope.data.readableBytesView), zones: zones, overTCP: false, signing: signing, now: secondsNow())
        for reply in reply.messages {
            let buffer = context.channel.allocator.buffer(bytes: reply)
            context.write(
                wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)), promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) { context.flush() }

    /// ICMP errors for earlier sends concern one peer, not the socket.
    func errorCaught(context: ChannelHandlerContext, error: Error) {}
}

/// Queries and transfers over TCP, one message after another.
private final class ZoneStreamHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundOut = [UInt8]

    private let zones: ServedZones
    private let signing: ZoneSigning
    private let logger: Logger

    init(zones: ServedZones, signing: ZoneSigning, logger: Logger) {
        self.zones = zones
        self.signing = signing
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let reply = ZoneResponder.answer(
            unwrapInboundIn(data), zones: zones, overTCP: true, signing: signing, now: secondsNow())
        for message in reply.messages { context.write(wrapOutboundOut(message), promise: nil) }
        context.flush()
        if let transfer = reply.transfer {
            logger.info(
                "zone transferred",
                metadata: ["to": "\(context.remoteAddress.map(AddressText.format) ?? "?")", "transfer": "\(transfer)"])
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}

/// Seconds since the epoch, as TSIG counts time.
private func secondsNow() -> UInt64 { UInt64(max(0, time(nil))) }
