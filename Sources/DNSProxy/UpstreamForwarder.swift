import DNSWire
import NIOCore
import NIOPosix

/// Sends queries to the upstreams for one event loop and matches their answers.
///
/// Each query gets a random id and goes out through one of a pool of UDP sockets bound to random
/// ports, to the healthiest upstream first; an answer counts only if it comes from that upstream's
/// address and port, carries the id and repeats the question. A truncated answer is asked again over
/// TCP. A timeout or a SERVFAIL/REFUSED/malformed answer moves on to the next upstream.
///
/// Confined to its event loop: every method must be called on it (checked in debug builds).
final class UpstreamForwarder: @unchecked Sendable {
    let eventLoop: EventLoop
    private let pool: UpstreamPool
    private let settings: ForwardSettings
    private var sockets: [SocketFamily: EventLoopFuture<[Channel]>] = [:]
    private var pending: [PendingKey: PendingQuery] = [:]
    private var random = SystemRandomNumberGenerator()
    static let socketsPerFamily = 8

    private enum SocketFamily: Hashable { case v4, v6 }

    private struct PendingKey: Hashable {
        let family: SocketFamily
        let socket: Int
        let id: UInt16
    }

    private struct PendingQuery: Sendable {
        let job: ForwardJob
        let server: Int
        let sent: [UInt8]
        let sentAt: NIODeadline
        let timeout: Scheduled<Void>
    }

    /// One client question on its way through the upstreams; lives on the forwarder's event loop.
    private final class ForwardJob: @unchecked Sendable {
        let query: DNSQuery
        let bounds: TTLBounds
        let promise: EventLoopPromise<CachedAnswer>
        let order: [Int]
        var attempt = 0

        init(query: DNSQuery, bounds: TTLBounds, promise: EventLoopPromise<CachedAnswer>, order: [Int]) {
            self.query = query
            self.bounds = bounds
            self.promise = promise
            self.order = order
        }
    }

    init(eventLoop: EventLoop, pool: UpstreamPool, settings: ForwardSettings) {
        self.eventLoop = eventLoop
        self.pool = pool
        self.settings = settings
    }

    /// Resolves `query` upstream. The future fails with `ForwardError` when no upstream answered.
    func resolve(_ query: DNSQuery, bounds: TTLBounds) -> EventLoopFuture<CachedAnswer> {
        eventLoop.assertInEventLoop()
        guard !pool.servers.isEmpty else { return eventLoop.makeFailedFuture(ForwardError.noUpstreams) }
        let job = ForwardJob(
            query: query, bounds: bounds, promise: eventLoop.makePromise(),
            order: pool.order(now: NIODeadline.now().uptimeNanoseconds))
        sendAttempt(job)
        return job.promise.futureResult
    }

    /// Closes the upstream sockets.
    func close() {
        eventLoop.assertInEventLoop()
        for (_, channels) in sockets {
            channels.whenSuccess { $0.forEach { $0.close(promise: nil) } }
        }
        sockets = [:]
    }

    private func sendAttempt(_ job: ForwardJob) {
        guard job.attempt < max(settings.attempts, 1) else {
            job.promise.fail(ForwardError.noUpstreamAnswered)
            return
        }
        let server = job.order[job.attempt % job.order.count]
        job.attempt += 1
        let address = pool.servers[server]
        let family: SocketFamily = address.protocol == .inet6 ? .v6 : .v4
        socketPool(for: family).whenComplete { result in
            switch result {
            case .success(let channels):
                self.send(job, to: server, address: address, family: family, channels: channels)
            case .failure:
                self.pool.recordFailure(server, now: NIODeadline.now().uptimeNanoseconds)
                self.sendAttempt(job)
            }
        }
    }

    private func send(_ job: ForwardJob, to server: Int, address: SocketAddress, family: SocketFamily, channels: [Channel]) {
        let socket = Int.random(in: 0..<channels.count, using: &random)
        var id = UInt16.random(in: .min ... .max, using: &random)
        while pending[PendingKey(family: family, socket: socket, id: id)] != nil { id &+= 1 }
        let key = PendingKey(family: family, socket: socket, id: id)
        let bytes = makeUpstreamQuery(for: job.query, id: id)
        let timeout = eventLoop.scheduleTask(in: settings.attemptTimeout) { self.attemptFailed(key) }
        pending[key] = PendingQuery(job: job, server: server, sent: bytes, sentAt: .now(), timeout: timeout)
        let envelope = AddressedEnvelope(remoteAddress: address, data: channels[socket].allocator.buffer(bytes: bytes))
        channels[socket].writeAndFlush(envelope).whenFailure { _ in self.attemptFailed(key) }
    }

    private func attemptFailed(_ key: PendingKey) {
        guard let attempt = pending.removeValue(forKey: key) else { return }
        attempt.timeout.cancel()
        pool.recordFailure(attempt.server, now: NIODeadline.now().uptimeNanoseconds)
        sendAttempt(attempt.job)
    }

    private func received(_ reply: [UInt8], from source: SocketAddress, family: SocketFamily, socket: Int) {
        guard reply.count >= 2 else { return }
        let key = PendingKey(family: family, socket: socket, id: UInt16(reply[0]) << 8 | UInt16(reply[1]))
        guard let attempt = pending[key], pool.servers[attempt.server] == source else { return }
        let answer: CachedAnswer
        do {
            answer = try CachedAnswer(reply: reply, toQuery: attempt.sent, bounds: attempt.job.bounds)
        } catch .mismatchedQuestion {
            return  // not the answer to this query (spoofed or stray): keep waiting
        } catch {
            attemptFailed(key)
            return
        }
        pending[key] = nil
        attempt.timeout.cancel()
        if answer.isTruncated {
            retryOverTCP(attempt)
        } else {
            finish(attempt, with: answer)
        }
    }

    private func finish(_ attempt: PendingQuery, with answer: CachedAnswer) {
        switch answer.rcode {
        case .serverFailure?, .refused?, .notImplemented?, .formatError?, nil:
            pool.recordFailure(attempt.server, now: NIODeadline.now().uptimeNanoseconds)
            sendAttempt(attempt.job)
        default:
            let rtt = Double((NIODeadline.now() - attempt.sentAt).nanoseconds) / 1000
            pool.recordSuccess(attempt.server, rttMicroseconds: rtt)
            attempt.job.promise.succeed(answer)
        }
    }

    private func retryOverTCP(_ attempt: PendingQuery) {
        let server = pool.servers[attempt.server]
        TCPExchange.ask(server, message: attempt.sent, on: eventLoop, timeout: settings.attemptTimeout)
            .flatMapThrowing { reply in try CachedAnswer(reply: reply, toQuery: attempt.sent, bounds: attempt.job.bounds) }
            .whenComplete { result in
                switch result {
                case .success(let answer) where !answer.isTruncated:
                    self.finish(attempt, with: answer)
                default:
                    self.pool.recordFailure(attempt.server, now: NIODeadline.now().uptimeNanoseconds)
                    self.sendAttempt(attempt.job)
                }
            }
    }

    private func socketPool(for family: SocketFamily) -> EventLoopFuture<[Channel]> {
        if let existing = sockets[family] { return existing }
        let host = family == .v4 ? "0.0.0.0" : "::"
        let bootstrap = DatagramBootstrap(group: eventLoop)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: 65_536))
        let binds = (0..<Self.socketsPerFamily).map { socket in
            bootstrap.channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        UpstreamReplyHandler { reply, source in self.received(reply, from: source, family: family, socket: socket) })
                }
            }
            .bind(host: host, port: 0)
        }
        let all = EventLoopFuture.whenAllSucceed(binds, on: eventLoop)
        sockets[family] = all
        all.whenFailure { _ in self.sockets[family] = nil }
        return all
    }
}

/// Hands each datagram arriving on an upstream socket to the forwarder.
private final class UpstreamReplyHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let onReply: ([UInt8], SocketAddress) -> Void

    init(onReply: @escaping ([UInt8], SocketAddress) -> Void) { self.onReply = onReply }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var envelope = unwrapInboundIn(data)
        if let bytes = envelope.data.readBytes(length: envelope.data.readableBytes) {
            onReply(bytes, envelope.remoteAddress)
        }
    }

    /// ICMP errors (port unreachable) arrive as errors on the socket; the attempt's timeout handles them.
    func errorCaught(context: ChannelHandlerContext, error: Error) {}
}
