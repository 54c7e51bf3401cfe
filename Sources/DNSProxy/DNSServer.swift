import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Listener settings that need a restart to change.
public struct ListenerSettings: Sendable, Equatable {
    /// Addresses to answer on, UDP and TCP each.
    public var addresses: [SocketAddress]
    /// Addresses to answer DNS over TLS on.
    public var tlsAddresses: [SocketAddress]
    /// Addresses to answer DNS over HTTPS on.
    public var httpsAddresses: [SocketAddress]
    public var tcp: TCPSettings
    /// Largest query accepted over TCP.
    public var maxTCPQuerySize: Int

    public init(
        addresses: [SocketAddress], tlsAddresses: [SocketAddress] = [], httpsAddresses: [SocketAddress] = [],
        tcp: TCPSettings = .defaults, maxTCPQuerySize: Int = 4_096
    ) {
        self.addresses = addresses
        self.tlsAddresses = tlsAddresses
        self.httpsAddresses = httpsAddresses
        self.tcp = tcp
        self.maxTCPQuerySize = maxTCPQuerySize
    }
}

/// The running DNS listeners: one UDP socket per address and event loop (SO_REUSEPORT spreads
/// datagrams over the loops) and one TCP listener per address. A TCP connection from a source the
/// access rules refuse is closed before it takes a slot; the rest share `tcp.maxConnections` of all
/// listeners so that a few sources cannot lock the others out (`TCPConnectionTable`).
public final class DNSServer: Sendable {
    private let contexts: [LoopContext]
    private let channels: [Channel]
    private let tcpConnections: TCPConnectionTable
    /// The addresses actually bound (a port 0 in the settings becomes the port the system chose).
    public let boundAddresses: [SocketAddress]
    /// The DNS-over-TLS and DNS-over-HTTPS addresses actually bound.
    public let boundTLSAddresses: [SocketAddress]
    public let boundHTTPSAddresses: [SocketAddress]

    /// Datagrams read per system call, and the largest UDP query accepted. One such read per wake-up
    /// (`maxMessagesPerRead` 1): epoll is level-triggered, so what is left wakes the loop again, and
    /// a lone query costs no second read that finds nothing.
    static let vectorReads = 64
    static let maxUDPQuerySize = 4_096
    /// Kernel buffer sizes asked for each UDP socket: answers that leave together (queries that
    /// waited on an upstream outage) and query bursts fit instead of being dropped. Root gets them
    /// whatever `net.core.rmem_max` says; others get up to that limit.
    static let udpBufferBytes = 8 * 1024 * 1024

    private init(
        contexts: [LoopContext], channels: [Channel], tcpConnections: TCPConnectionTable,
        bound: (plain: [SocketAddress], tls: [SocketAddress], https: [SocketAddress])
    ) {
        self.contexts = contexts
        self.channels = channels
        self.tcpConnections = tcpConnections
        boundAddresses = bound.plain
        boundTLSAddresses = bound.tls
        boundHTTPSAddresses = bound.https
    }

    /// Binds every listener and starts answering. Answered queries go to `journal` when the
    /// pipeline has logging. `serving` is needed when `listeners` has TLS or HTTPS addresses.
    public static func start(
        listeners: ListenerSettings,
        pipeline: QueryPipeline,
        upstreams: UpstreamPool,
        routes: ForwardRoutes = ForwardRoutes(),
        forwarding: ForwardSettings,
        serving: EncryptedServing? = nil,
        group: MultiThreadedEventLoopGroup,
        journal: QueryJournal? = nil
    ) async throws -> DNSServer {
        let loops = Array(group.makeIterator())
        let contexts = loops.map { loop in
            LoopContext(eventLoop: loop, pipeline: pipeline.copy(), journal: journal) { metrics in
                UpstreamForwarder(
                    eventLoop: loop, pool: upstreams, routes: routes, settings: forwarding, metrics: metrics)
            }
        }
        for context in contexts { try await context.eventLoop.submit { context.startJournal() }.get() }
        var channels: [Channel] = []
        var bound: [SocketAddress] = []
        let tcpConnections = TCPConnectionTable(total: listeners.tcp.maxConnections)
        do {
            for requested in listeners.addresses {
                // Port 0: UDP picks a free port and TCP takes the same number, which a TCP socket may
                // already hold; then both are tried again on another port.
                var attempts = requested.port == 0 ? 20 : 1
                while true {
                    attempts -= 1
                    var address = requested
                    var udp: [Channel] = []
                    do {
                        if requested.port == 0 {
                            do { address = try await claimFreeUDPPort(address, on: contexts[0].eventLoop) } catch {
                                throw ListenError(address: address, transport: "udp", reason: ListenError.reason(error))
                            }
                        }
                        for context in contexts {
                            let channel: Channel
                            do { channel = try await bindUDP(address, context: context) } catch {
                                throw ListenError(address: address, transport: "udp", reason: ListenError.reason(error))
                            }
                            udp.append(channel)
                            if let local = channel.localAddress { address = local }
                        }
                        let tcp: Channel
                        do {
                            tcp = try await bindTCP(
                                address, listeners: listeners, table: tcpConnections, contexts: contexts, group: group)
                        } catch {
                            throw ListenError(address: address, transport: "tcp", reason: ListenError.reason(error))
                        }
                        channels += udp + [tcp]
                        bound.append(address)
                        break
                    } catch {
                        for channel in udp { try? await channel.close() }
                        if attempts == 0 { throw error }
                    }
                }
            }
            var encrypted: [EncryptedListeners.Kind: [SocketAddress]] = [:]
            for (kind, addresses) in [
                (EncryptedListeners.Kind.tls, listeners.tlsAddresses), (.https, listeners.httpsAddresses),
            ] {
                for address in addresses {
                    guard let serving else {
                        throw ListenError(address: address, transport: "\(kind)", reason: "no certificate ([tls])")
                    }
                    let channel: Channel
                    do {
                        channel = try await EncryptedListeners.bind(
                            kind, address, serving: serving, listeners: listeners, table: tcpConnections,
                            contexts: contexts, group: group)
                    } catch {
                        throw ListenError(address: address, transport: "\(kind)", reason: ListenError.reason(error))
                    }
                    channels.append(channel)
                    encrypted[kind, default: []].append(channel.localAddress ?? address)
                }
            }
            return DNSServer(
                contexts: contexts, channels: channels, tcpConnections: tcpConnections,
                bound: (bound, encrypted[.tls] ?? [], encrypted[.https] ?? []))
        } catch {
            for channel in channels { try? await channel.close() }
            throw error
        }
    }

    /// Swaps in a new pipeline and upstreams (a reload) without dropping queries: each loop switches
    /// between two queries; queries already upstream finish with what they started with.
    public func update(
        pipeline: QueryPipeline, upstreams: UpstreamPool, routes: ForwardRoutes, forwarding: ForwardSettings
    ) {
        for context in contexts {
            let pipeline = pipeline.copy()
            context.eventLoop.execute {
                let old = context.forwarder
                context.use(pipeline)
                context.forwarder = UpstreamForwarder(
                    eventLoop: context.eventLoop, pool: upstreams, routes: routes, settings: forwarding,
                    metrics: context.metrics)
                // the old forwarder lives until every query it holds has had all its attempts
                context.eventLoop.scheduleTask(in: old.longestQuery) { old.close() }
            }
        }
    }

    /// Swaps in a new pipeline that keeps the upstreams (a change of policy), the same way.
    public func update(pipeline: QueryPipeline) {
        for context in contexts {
            let pipeline = pipeline.copy()
            context.eventLoop.execute { context.use(pipeline) }
        }
    }

    /// The TCP connections open, and those closed to make room or refused since the start.
    public var tcpConnectionCounts: TCPConnectionCounts { tcpConnections.counts }

    /// Every loop's counts added up (each read on its own loop).
    public func metrics() async -> DNSMetrics {
        var total = DNSMetrics()
        for context in contexts {
            let loop =
                await
                (try? context.eventLoop.submit { () -> DNSMetrics in
                    var one = DNSMetrics()
                    context.metrics.add(to: &one)
                    return one
                }.get()) ?? DNSMetrics()
            total.add(loop)
        }
        return total
    }

    /// Stops accepting queries and closes the upstream sockets.
    public func close() async {
        for channel in channels { try? await channel.close() }
        for context in contexts {
            try? await context.eventLoop.submit {
                context.forwarder.close()
                context.stopJournal()
            }.get()
        }
    }

    /// `address` with a port no UDP socket holds, picked by binding a socket that shares with no one
    /// to port 0, then letting it go. The loops' sockets share their port (SO_REUSEADDR,
    /// SO_REUSEPORT), and bound to port 0 themselves they could be given a port that another
    /// program's sharing sockets hold (another lockr), each then getting part of the other's queries.
    private static func claimFreeUDPPort(_ address: SocketAddress, on loop: EventLoop) async throws -> SocketAddress {
        let probe = try await DatagramBootstrap(group: loop).bind(to: address).get()
        let claimed = probe.localAddress ?? address
        try await probe.close()
        return claimed
    }

    private static func bindUDP(_ address: SocketAddress, context: LoopContext) async throws -> Channel {
        try await DatagramBootstrap(group: context.eventLoop)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(
                ChannelOptions.Types.SocketOption(level: .socket, name: .init(rawValue: SO_REUSEPORT)), value: 1
            )
            .channelOption(.datagramVectorReadMessageCount, value: vectorReads)
            .channelOption(.maxMessagesPerRead, value: 1)
            .channelOption(
                .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: vectorReads * maxUDPQuerySize)
            )
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(UDPQueryHandler(context: context))
                }
            }
            .channelOption(
                .writeBufferWaterMark, value: .init(low: udpBufferBytes / 4, high: udpBufferBytes)
            )
            .bind(to: address)
            .flatMap { channel in enlargeBuffers(channel).map { channel } }
            .get()
    }

    /// Asks for `udpBufferBytes` of receive and send buffer, forcing it past the system limit where
    /// allowed (root); a refusal leaves the system's size.
    private static func enlargeBuffers(_ channel: Channel) -> EventLoopFuture<Void> {
        let size = SocketOptionValue(udpBufferBytes)
        let options: [(force: Int32, plain: Int32)] = [(SO_RCVBUFFORCE, SO_RCVBUF), (SO_SNDBUFFORCE, SO_SNDBUF)]
        let sets = options.map { option in
            channel.setOption(.socketOption(.init(rawValue: option.force)), value: size).flatMapError { _ in
                channel.setOption(.socketOption(.init(rawValue: option.plain)), value: size)
            }.recover { _ in }
        }
        return EventLoopFuture.andAllComplete(sets, on: channel.eventLoop)
    }

    private static func bindTCP(
        _ address: SocketAddress,
        listeners: ListenerSettings,
        table: TCPConnectionTable,
        contexts: [LoopContext],
        group: MultiThreadedEventLoopGroup
    ) async throws -> Channel {
        try await StreamListener.bind(address, table: table, contexts: contexts, group: group) {
            channel, context, activity in
            try channel.pipeline.syncOperations.addHandlers(
                MessageToByteHandler(DNSFrameEncoder()),
                ByteToMessageHandler(DNSFrameDecoder(maxMessageSize: listeners.maxTCPQuerySize)),
                TCPQueryHandler(
                    context: context,
                    idleness: ConnectionIdleness(
                        channel: channel, idleTimeout: listeners.tcp.idleTimeout, activity: activity)))
        }
    }
}
