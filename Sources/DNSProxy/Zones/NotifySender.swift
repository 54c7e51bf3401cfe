import DNSWire
import NIOCore
import NIOPosix
import Synchronization

/// Tells secondaries that a zone changed (NOTIFY, RFC 1996), so that they fetch it at once rather
/// than at their next refresh; each NOTIFY is sent again after `retryDelays` until the secondary
/// answers it, `retryDelays.count` times at most. A newer version of the zone replaces an older one still unanswered.
public final class NotifySender: Sendable {
    /// One secondary's standing for one zone.
    public struct Standing: Sendable, Equatable {
        public let secondary: SocketAddress
        /// The zone's name in presentation form.
        public let zone: String
        /// The newest serial it was told of.
        public let serial: UInt32
        /// Whether it answered that NOTIFY; false while it is still being sent, or after it went
        /// unanswered every time.
        public let acknowledged: Bool
        /// It did not answer any of the NOTIFYs of this serial.
        public let unanswered: Bool
    }

    private struct Key: Hashable {
        let secondary: SocketAddress
        let zone: [UInt8]
    }

    private struct Outstanding {
        let key: Key
        let serial: UInt32
        let message: [UInt8]
    }

    private struct State {
        var outstanding: [UInt16: Outstanding] = [:]
        var standings: [Key: Standing] = [:]
    }

    private let secondaries: [SocketAddress]
    private let retryDelays: [TimeAmount]
    private let channels: [Channel]
    private let state = Mutex(State())

    private init(secondaries: [SocketAddress], retryDelays: [TimeAmount], channels: [Channel]) {
        self.secondaries = secondaries
        self.retryDelays = retryDelays
        self.channels = channels
    }

    /// Opens a socket for each address family among `secondaries`.
    public static func start(
        secondaries: [SocketAddress], retryDelays: [TimeAmount] = [1, 2, 4, 8, 16].map { .seconds($0) },
        group: any EventLoopGroup
    ) async throws -> NotifySender {
        let answers = NotifyAnswers()
        var channels: [Channel] = []
        let families = Set(secondaries.map { $0.protocol == .inet6 })
        for ipv6 in families.sorted(by: { !$0 && $1 }) {
            let local = try SocketAddress(ipAddress: ipv6 ? "::" : "0.0.0.0", port: 0)
            channels.append(
                try await DatagramBootstrap(group: group)
                    .channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(NotifyAnswerHandler(answers: answers))
                        }
                    }
                    .bind(to: local).get())
        }
        let sender = NotifySender(secondaries: secondaries, retryDelays: retryDelays, channels: channels)
        answers.sender.withLock { $0 = sender }
        return sender
    }

    /// Sends a NOTIFY of `zone`'s current version to every secondary.
    public func notify(_ zone: ServedZone) {
        let soa = zone.soaRecord
        for secondary in secondaries {
            let key = Key(secondary: secondary, zone: zone.origin)
            let (id, message) = state.withLock { state -> (UInt16, [UInt8]) in
                state.outstanding = state.outstanding.filter { $0.value.key != key }
                var id = UInt16.random(in: 0...UInt16.max)
                while state.outstanding[id] != nil { id &+= 1 }
                let message = ZoneMessages.notify(id: id, soa: soa)
                state.outstanding[id] = Outstanding(key: key, serial: zone.serial, message: message)
                state.standings[key] = Standing(
                    secondary: secondary, zone: WireName.presentation(of: zone.origin), serial: zone.serial,
                    acknowledged: false, unanswered: false)
                return (id, message)
            }
            send(message, to: secondary)
            scheduleRetry(id, sent: 1)
        }
    }

    /// Where each secondary stands for each zone it was told of.
    public var standings: [Standing] {
        state.withLock { Array($0.standings.values) }.sorted {
            ($0.zone, "\($0.secondary)") < ($1.zone, "\($1.secondary)")
        }
    }

    public func stop() async {
        for channel in channels { try? await channel.close() }
    }

    /// A secondary's answer: the NOTIFY of that id was heard, if it came from where it went.
    fileprivate func received(_ message: ZoneMessage, from source: SocketAddress) {
        guard message.isResponse, message.opcode == ZoneMessage.notify else { return }
        state.withLock { state in
            guard let outstanding = state.outstanding[message.id], outstanding.key.secondary == source,
                outstanding.key.zone == message.name
            else { return }
            state.outstanding[message.id] = nil
            state.standings[outstanding.key] = Standing(
                secondary: source, zone: WireName.presentation(of: outstanding.key.zone), serial: outstanding.serial,
                acknowledged: true, unanswered: false)
        }
    }

    private func send(_ message: [UInt8], to secondary: SocketAddress) {
        guard let channel = channels.first(where: { $0.localAddress?.protocol == secondary.protocol }) else { return }
        let buffer = channel.allocator.buffer(bytes: message)
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: secondary, data: buffer), promise: nil)
    }

    /// After the wait that follows send number `sent`: sends again, or after the last wait gives up.
    private func scheduleRetry(_ id: UInt16, sent: Int) {
        guard let channel = channels.first, sent <= retryDelays.count else { return }
        channel.eventLoop.scheduleTask(in: retryDelays[sent - 1]) { [self] in
            let resend = state.withLock { state -> Outstanding? in
                guard let outstanding = state.outstanding[id] else { return nil }
                guard sent < retryDelays.count else {
                    state.outstanding[id] = nil
                    state.standings[outstanding.key] = Standing(
                        secondary: outstanding.key.secondary, zone: WireName.presentation(of: outstanding.key.zone),
                        serial: outstanding.serial, acknowledged: false, unanswered: true)
                    return nil
                }
                return outstanding
            }
            guard let resend else { return }
            send(resend.message, to: resend.key.secondary)
            scheduleRetry(id, sent: sent + 1)
        }
    }
}

/// Where a `NotifyAnswerHandler` hands what it reads (the sender exists only once its sockets do).
private final class NotifyAnswers: Sendable {
    let sender = Mutex<NotifySender?>(nil)
}

private final class NotifyAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let answers: NotifyAnswers

    init(answers: NotifyAnswers) { self.answers = answers }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let message = try? ZoneMessage(packet: Array(envelope.data.readableBytesView)) else { return }
        answers.sender.withLock { $0 }?.received(message, from: envelope.remoteAddress)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {}
}
