import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import NIOTLS

/// A kept-open connection to one encrypted upstream, confined to its event loop.
///
/// Queries wait while it connects and shakes hands, then go out at once: pipelined over DNS over
/// TLS (each with an id of its own on this connection, the asker's put back on the answer),
/// multiplexed over DNS over HTTPS with HTTP/2 (a stream each), or in order over HTTP/1.1 when the
/// server offers nothing newer. It closes after `idleTimeout` without queries and connects again for
/// the next one. A failure to connect, an untrusted certificate, a key that misses the pin, or the
/// server closing fails the queries it holds with the reason; a query that times out while nothing
/// at all came back on the connection closes it, so a hung connection is not kept.
final class EncryptedUpstreamConnection: @unchecked Sendable {
    let upstream: Upstream
    private let eventLoop: EventLoop
    private let tls: UpstreamTLS
    private let idleTimeout: TimeAmount
    private let connectTimeout: TimeAmount
    private var state: State = .closed
    private var idleTimer: Scheduled<Void>?
    /// Queries sent and not yet answered or given up.
    private var outstanding = 0
    /// When the connection last brought anything back (an answer, or the handshake).
    private var lastHeard = NIODeadline.uptimeNanoseconds(0)

    /// The most queries in flight on one DNS-over-TLS connection.
    static let maxInFlight = 1_000

    private enum State {
        case closed
        case connecting(Channel?, waiting: [UpstreamQuery])
        case open(Channel, Session)
    }

    /// How queries travel once the connection is up.
    private enum Session {
        case dot(DoTSession)
        case http2(HTTP2Session)
        case http1(HTTP1Session)
    }

    init(
        upstream: Upstream, tls: UpstreamTLS, eventLoop: EventLoop, idleTimeout: TimeAmount, connectTimeout: TimeAmount
    ) {
        self.upstream = upstream
        self.tls = tls
        self.eventLoop = eventLoop
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
    }

    /// Sends `message` (a whole DNS query) and gives its answer with the query's own id, or fails
    /// with `EncryptedUpstreamError` after `timeout`.
    func ask(_ message: [UInt8], timeout: TimeAmount) -> EventLoopFuture<[UInt8]> {
        eventLoop.assertInEventLoop()
        let query = UpstreamQuery(message: message, promise: eventLoop.makePromise())
        idleTimer?.cancel()
        idleTimer = nil
        outstanding += 1
        query.timer = eventLoop.scheduleTask(in: timeout) { [self] in timedOut(query, after: timeout) }
        query.promise.futureResult.whenComplete { [self] _ in
            outstanding -= 1
            if outstanding == 0 { scheduleIdleClose() }
        }
        switch state {
        case .closed:
            state = .connecting(nil, waiting: [query])
            connect()
        case .connecting(let channel, var waiting):
            waiting.append(query)
            state = .connecting(channel, waiting: waiting)
        case .open(_, let session):
            send(query, over: session)
        }
        return query.promise.futureResult
    }

    /// Closes the connection, failing what it holds.
    func close() {
        idleTimer?.cancel()
        switch state {
        case .closed: break
        case .connecting(let channel, let waiting):
            state = .closed
            for query in waiting { query.fail("closed") }
            channel?.close(promise: nil)
        case .open(let channel, _):
            channel.close(promise: nil)
        }
    }

    private func scheduleIdleClose() {
        idleTimer?.cancel()
        idleTimer = eventLoop.scheduleTask(in: idleTimeout) { [self] in
            if outstanding == 0, case .open(let channel, _) = state { channel.close(promise: nil) }
        }
    }

    private func timedOut(_ query: UpstreamQuery, after timeout: TimeAmount) {
        guard !query.isFinished else { return }
        query.fail("no answer within \(timeout.nanoseconds / 1_000_000) ms")
        if case .open(let channel, let session) = state {
            switch session {
            case .dot(let dot): dot.forget(query)
            case .http2(let http2): http2.forget(query)
            case .http1: break
            }
            // Nothing came back since this query went out: the connection is hung. Start afresh.
            if lastHeard < query.sentAt { channel.close(promise: nil) }
        }
    }

    private func connect() {
        let upstream = upstream
        let handler: NIOSSLClientHandler
        do {
            guard let made = try tls.clientHandler(for: upstream) else { return failConnecting("not encrypted") }
            handler = made
        } catch {
            return failConnecting(UpstreamTLS.reason(error))
        }
        let handshake = eventLoop.makePromise(of: String?.self)
        let deadline = eventLoop.scheduleTask(in: connectTimeout) {
            handshake.fail(
                EncryptedUpstreamError("no TLS session within \(self.connectTimeout.nanoseconds / 1_000_000) ms"))
        }
        ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        handler, WriteCoalescing(), HandshakeWatcher(handshake: handshake))
                }
            }
            .connect(to: upstream.address)
            .whenComplete { [self] result in
                switch result {
                case .failure(let error):
                    deadline.cancel()
                    handshake.fail(error)
                    failConnecting("cannot connect: \(error)")
                case .success(let channel):
                    guard case .connecting(_, let waiting) = state else {
                        deadline.cancel()
                        channel.close(promise: nil)
                        return
                    }
                    state = .connecting(channel, waiting: waiting)
                    channel.closeFuture.whenComplete { _ in self.closed(channel) }
                    handshake.futureResult.whenComplete { result in
                        deadline.cancel()
                        switch result {
                        case .success(let protocolName): self.shookHands(channel, protocolName: protocolName)
                        case .failure(let error):
                            self.failConnecting(UpstreamTLS.reason(error))
                            channel.close(promise: nil)
                        }
                    }
                }
            }
    }

    private func shookHands(_ channel: Channel, protocolName: String?) {
        guard case .connecting(_, let waiting) = state else { return channel.close(promise: nil) }
        let peer: Upstream.TLSPeer
        switch upstream.transport {
        case .plain: return
        case .tls(let tlsPeer), .https(let tlsPeer, _): peer = tlsPeer
        }
        let certificate = try? channel.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self).peerCertificate
        if let problem = UpstreamTLS.pinProblem(certificate, pins: peer.pins) {
            failConnecting(problem)
            channel.close(promise: nil)
            return
        }
        let session: Session
        do {
            session = try makeSession(on: channel, protocolName: protocolName)
        } catch {
            failConnecting("cannot set up the connection: \(error)")
            channel.close(promise: nil)
            return
        }
        lastHeard = .now()
        state = .open(channel, session)
        for query in waiting where !query.isFinished { send(query, over: session) }
    }

    private func makeSession(on channel: Channel, protocolName: String?) throws -> Session {
        let pipeline = channel.pipeline.syncOperations
        let heard: @Sendable () -> Void = { [weak self] in self?.lastHeard = .now() }
        switch upstream.transport {
        case .plain: throw EncryptedUpstreamError("not encrypted")
        case .tls:
            let session = DoTSession(channel: channel, heard: heard)
            try pipeline.addHandlers(
                MessageToByteHandler(DNSFrameEncoder()),
                ByteToMessageHandler(DNSFrameDecoder(maxMessageSize: 65_535)),
                DoTReplyHandler(session: session))
            return .dot(session)
        case .https(let peer, let path):
            let request = DoHRequest(
                authority: peer.serverName ?? Self.authority(upstream.address), path: path)
            if protocolName == "h2" {
                let session = HTTP2Session(request: request, heard: heard)
                try pipeline.addHandlers(NIOHTTP2Handler(mode: .client), session)
                return .http2(session)
            }
            let session = HTTP1Session(channel: channel, request: request, heard: heard)
            try pipeline.addHTTPClientHandlers()
            try pipeline.addHandler(HTTP1ReplyHandler(session: session))
            return .http1(session)
        }
    }

    private func send(_ query: UpstreamQuery, over session: Session) {
        query.sentAt = .now()
        switch session {
        case .dot(let dot): dot.send(query)
        case .http1(let http1): http1.send(query)
        case .http2(let http2): http2.send(query)
        }
    }

    private func failConnecting(_ reason: String) {
        guard case .connecting(_, let waiting) = state else { return }
        state = .closed
        for query in waiting { query.fail(reason) }
    }

    private func closed(_ channel: Channel) {
        switch state {
        case .connecting(let connecting, _) where connecting === channel:
            failConnecting("the server closed the connection during the handshake")
        case .open(let open, let session) where open === channel:
            state = .closed
            switch session {
            case .dot(let dot): dot.failAll("the server closed the connection")
            case .http1(let http1): http1.failAll("the server closed the connection")
            case .http2(let http2): http2.failAll("the server closed the connection")
            }
        default: break
        }
    }

    /// "host" or "[v6]" with the port when it is not 443.
    static func authority(_ address: SocketAddress) -> String {
        let host = address.ipAddress ?? "?"
        let hostText = address.protocol == .inet6 ? "[\(host)]" : host
        return address.port == 443 ? hostText : "\(hostText):\(address.port ?? 443)"
    }
}

/// Why an encrypted upstream gave no answer.
struct EncryptedUpstreamError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One query on its way to an encrypted upstream; completes once. Confined to its event loop.
final class UpstreamQuery: @unchecked Sendable {
    let message: [UInt8]
    let promise: EventLoopPromise<[UInt8]>
    var timer: Scheduled<Void>?
    /// The id it carries on a DNS-over-TLS connection.
    var wireID: UInt16 = 0
    /// Its HTTP/2 stream, over DNS over HTTPS with HTTP/2.
    var streamID: HTTP2StreamID?
    var sentAt = NIODeadline.uptimeNanoseconds(0)
    private(set) var isFinished = false

    init(message: [UInt8], promise: EventLoopPromise<[UInt8]>) {
        self.message = message
        self.promise = promise
    }

    /// The asker's id, put back on the answer.
    var id: (UInt8, UInt8) { message.count >= 2 ? (message[0], message[1]) : (0, 0) }

    func answer(_ reply: [UInt8]) {
        guard !isFinished, reply.count >= 12 else { return }
        var reply = reply
        (reply[0], reply[1]) = id
        finish(.success(reply))
    }

    func fail(_ reason: String) { finish(.failure(EncryptedUpstreamError(reason))) }

    private func finish(_ result: Result<[UInt8], Error>) {
        guard !isFinished else { return }
        isFinished = true
        timer?.cancel()
        promise.completeWith(result)
    }
}

/// Completes `handshake` with the protocol ALPN chose once TLS is up, or fails it.
private final class HandshakeWatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let handshake: EventLoopPromise<String?>

    init(handshake: EventLoopPromise<String?>) { self.handshake = handshake }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case TLSUserEvent.handshakeCompleted(let protocolName) = event {
            handshake.succeed(protocolName)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        handshake.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        handshake.fail(EncryptedUpstreamError("the server closed the connection during the handshake"))
        context.fireChannelInactive()
    }
}
