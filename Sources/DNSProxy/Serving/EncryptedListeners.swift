import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// What lockr needs to serve DNS over TLS and DNS over HTTPS.
public struct EncryptedServing: Sendable {
    public let certificate: ServerCertificate
    /// `[tls] name`: under it, the first label of a DoT server name is a ClientID.
    public let name: String?

    public init(certificate: ServerCertificate, name: String?) {
        self.certificate = certificate
        self.name = name
    }
}

/// The listeners of DNS over TLS (RFC 7858) and DNS over HTTPS (RFC 8484, HTTP/2 and HTTP/1.1).
///
/// Every connection goes through what a plain TCP one does first (`StreamListener`): the access
/// rules, then a slot of the TCP connections shared with plain DNS (`TCPConnectionTable`). Its TLS handshake must finish
/// within the idle timeout. The server name the device asked for (SNI) is read before the
/// handshake, for its ClientID. Over TLS the queries then go to a `TCPQueryHandler` as plain TCP
/// ones do; over HTTPS, ALPN picks HTTP/2 (at most `maxStreams` at once per connection, all of them read by one
/// `DoHConnectionHandler`) or HTTP/1.1.
enum EncryptedListeners {
    /// Concurrent HTTP/2 streams a connection may open: as many queries as a TCP connection may
    /// have waiting.
    static let maxStreams = TCPQueryHandler.maxPending

    enum Kind { case tls, https }

    static func bind(
        _ kind: Kind, _ address: SocketAddress, serving: EncryptedServing, listeners: ListenerSettings,
        table: TCPConnectionTable, contexts: [LoopContext], group: MultiThreadedEventLoopGroup
    ) async throws -> Channel {
        try await StreamListener.bind(address, table: table, contexts: contexts, group: group) {
            channel, context, activity in
            let deadline = HandshakeDeadline(channel: channel, timeout: listeners.tcp.idleTimeout)
            try channel.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(
                    SNIHandler { result in
                        channel.eventLoop.makeCompletedFuture {
                            var serverName: String?
                            if case .hostname(let name) = result { serverName = name }
                            try secure(
                                channel, kind, serverName: serverName, serving: serving, context: context,
                                listeners: listeners, activity: activity, deadline: deadline)
                        }
                    }))
        }
    }

    /// After the ClientHello: TLS, then DNS over TLS or HTTP.
    private static func secure(
        _ channel: Channel, _ kind: Kind, serverName: String?, serving: EncryptedServing, context: LoopContext,
        listeners: ListenerSettings, activity: TCPActivity, deadline: HandshakeDeadline
    ) throws {
        let sync = channel.pipeline.syncOperations
        let idle = listeners.tcp.idleTimeout
        switch kind {
        case .tls:
            let clientID = serverName.flatMap { ClientID.inServerName($0, under: serving.name) }
            try sync.addHandlers(
                NIOSSLServerHandler(context: serving.certificate.dot), WriteCoalescing(), deadline,
                MessageToByteHandler(DNSFrameEncoder()),
                ByteToMessageHandler(DNSFrameDecoder(maxMessageSize: listeners.maxTCPQuerySize)),
                TCPQueryHandler(
                    context: context,
                    idleness: ConnectionIdleness(channel: channel, idleTimeout: idle, activity: activity),
                    transport: .tls, clientID: clientID))
        case .https:
            try sync.addHandlers(NIOSSLServerHandler(context: serving.certificate.doh), WriteCoalescing(), deadline)
            try sync.addHandler(
                ApplicationProtocolNegotiationHandler { result, channel in
                    channel.eventLoop.makeCompletedFuture {
                        let idleness = ConnectionIdleness(channel: channel, idleTimeout: idle, activity: activity)
                        switch result {
                        case .negotiated("h2"):
                            try channel.pipeline.syncOperations.addHandlers(
                                // The header block is not checked against HTTP's rules (names in
                                // lower case, pseudo-headers first): a request is read by its
                                // :method, :path and content-type alone, each checked by
                                // DoHRequestReader, and the check cost a tenth of each answer.
                                // Nor is a body's length checked against its content-length:
                                // DoHConnectionHandler bounds what it gathers itself.
                                NIOHTTP2Handler(
                                    mode: .server,
                                    initialSettings: [
                                        HTTP2Setting(parameter: .maxConcurrentStreams, value: maxStreams),
                                        HTTP2Setting(parameter: .maxHeaderListSize, value: 16_384),
                                        HTTP2Setting(
                                            parameter: .initialWindowSize,
                                            value: DoHConnectionHandler.initialStreamWindow),
                                    ], headerBlockValidation: .disabled, contentLengthValidation: .disabled),
                                DoHConnectionHandler(context: context, idleness: idleness))
                        default:
                            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                            try channel.pipeline.syncOperations.addHandler(
                                DoHHTTP1Handler(context: context, idleness: idleness))
                        }
                    }
                })
        }
    }
}

/// Closes a connection whose TLS handshake has not finished within `timeout` of its start (a
/// ClientHello that never comes included). Placed after the TLS handler, it goes away once the
/// handshake is done.
final class HandshakeDeadline: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = NIOAny
    private let deadline: Scheduled<Void>

    init(channel: Channel, timeout: TimeAmount) {
        deadline = channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadline.cancel() }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case TLSUserEvent.handshakeCompleted = event {
            deadline.cancel()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
