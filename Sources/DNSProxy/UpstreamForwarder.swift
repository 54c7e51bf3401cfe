import DNSWire
import NIOCore
import NIOPosix

/// An upstream's answer, and the server that gave it.
struct UpstreamAnswer: Sendable {
    let answer: CachedAnswer
    let server: SocketAddress
}

/// Sends queries to the upstreams for one event loop and matches their answers.
///
/// Each query gets a random id and goes out through a randomly chosen socket of a small pool, to the
/// healthiest upstream first. The sockets are bound to ports the system picks at random, and each
/// carries at most `ForwardSettings.queriesPerPort` queries before a fresh socket on a new random port replaces it,
/// so an off-path attacker must guess both id and port. An answer counts only if it comes from the
/// upstream's address and port, carries the id and repeats the question. A truncated answer is asked
/// again over TCP. A timeout or a SERVFAIL/REFUSED/malformed answer moves on to the next upstream.
///
/// A `tls://` or `https://` upstream is asked over a connection of this loop's that is kept open
/// (`EncryptedUpstreamConnection`); its failures move on to the next upstream the same way.
///
/// Names of a domain that `ForwardRoutes` sends elsewhere (the router's DNS for `lan`) go to that
/// route's servers instead, the same way.
///
/// A question already on its way upstream is not asked again: later identical queries (name in any
/// case, type, DO and CD bits) wait for the same answer.
///
/// Confined to its event loop: every method must be called on it (checked in debug builds).
final class UpstreamForwarder: @unchecked Sendable {
    let eventLoop: EventLoop
    private let pool: UpstreamPool
    private let routes: ForwardRoutes
    private let settings: ForwardSettings
    private let metrics: LoopMetrics
    private var sockets: [SocketFamily: SocketSet] = [:]
    private var socketsReady: [SocketFamily: EventLoopFuture<Void>] = [:]
    private var pending: [PendingKey: PendingQuery] = [:]
    /// Questions on their way upstream, by `CacheKey` hash.
    private var inFlight: [UInt64: ForwardJob] = [:]
    /// This loop's connections to the encrypted upstreams.
    private var encrypted: [Upstream: EncryptedUpstreamConnection] = [:]
    private var random = SystemRandomNumberGenerator()

    private enum SocketFamily: Hashable { case v4, v6 }

    /// The sockets of one address family; a slot's socket is replaced after `queriesPerPort` queries.
    private final class SocketSet: @unchecked Sendable {
        var channels: [Channel]
        var uses: [Int]
        var rebinding: Set<Int> = []

        init(channels: [Channel]) {
            self.channels = channels
            uses = Array(repeating: 0, count: channels.count)
        }
    }

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
        let promise: EventLoopPromise<UpstreamAnswer>
        /// The servers it is asked of: the upstreams, or its route's.
        let pool: UpstreamPool
        let order: [Int]
        var attempt = 0

        init(query: DNSQuery, bounds: TTLBounds, promise: EventLoopPromise<UpstreamAnswer>, pool: UpstreamPool) {
            self.query = query
            self.bounds = bounds
            self.promise = promise
            self.pool = pool
            order = pool.order(now: NIODeadline.now().uptimeNanoseconds)
        }
    }

    /// `metrics`: its event loop's, where each upstream's answers and failures are counted.
    init(
        eventLoop: EventLoop, pool: UpstreamPool, routes: ForwardRoutes = ForwardRoutes(), settings: ForwardSettings,
        metrics: LoopMetrics
    ) {
        self.eventLoop = eventLoop
        self.pool = pool
        self.routes = routes
        self.settings = settings
        self.metrics = metrics
    }

    /// Resolves `query` upstream. The future fails with `ForwardError` when no upstream answered.
    func resolve(_ query: DNSQuery, bounds: TTLBounds) -> EventLoopFuture<UpstreamAnswer> {
        eventLoop.assertInEventLoop()
        let pool = pool(for: query)
        guard !pool.servers.isEmpty else { return eventLoop.makeFailedFuture(ForwardError.noUpstreams) }
        let key = CacheKey(query).hash
        if let asked = inFlight[key], CacheKey.sameQuestion(asked.query, query) { return asked.promise.futureResult }
        let job = ForwardJob(query: query, bounds: bounds, promise: eventLoop.makePromise(), pool: pool)
        if inFlight[key] == nil {
            inFlight[key] = job
            job.promise.futureResult.whenComplete { _ in
                if self.inFlight[key] === job { self.inFlight[key] = nil }
            }
        }
        sendAttempt(job)
        return job.promise.futureResult
    }

    /// How long a query with a stale answer at hand waits for the upstreams.
    var staleAnswerTimeout: TimeAmount { settings.staleAnswerTimeout }

    /// How long a query with nothing stale at hand waits while every upstream is known down, before
    /// SERVFAIL: time for an upstream that is back to answer (over the internet, tens of
    /// milliseconds), not enough to keep a client from turning to another resolver.
    var downUpstreamsWait: TimeAmount { min(settings.attemptTimeout, .milliseconds(250)) }

    /// Whether every server `query` would be asked of is known to be down right now.
    func upstreamsDown(for query: DNSQuery) -> Bool {
        pool(for: query).allDown(now: NIODeadline.now().uptimeNanoseconds)
    }

    /// The servers `query` is asked of: its route's, else the upstreams.
    private func pool(for query: DNSQuery) -> UpstreamPool {
        routes.isEmpty ? pool : routes.pool(for: query.name) ?? pool
    }

    /// The longest a query can take here: every attempt timing out, plus a margin.
    var longestQuery: TimeAmount { settings.attemptTimeout * Int64(max(1, settings.attempts)) + .seconds(1) }

    /// Closes the upstream sockets.
    func close() {
        eventLoop.assertInEventLoop()
        for set in sockets.values {
            for channel in set.channels { channel.close(promise: nil) }
        }
        sockets = [:]
        socketsReady = [:]
        for connection in encrypted.values { connection.close() }
        encrypted = [:]
    }

    private func sendAttempt(_ job: ForwardJob) {
        guard job.attempt < max(settings.attempts, 1) else {
            job.promise.fail(ForwardError.noUpstreamAnswered)
            return
        }
        let server = job.order[job.attempt % job.order.count]
        job.attempt += 1
        let upstream = job.pool.servers[server]
        if upstream.isEncrypted { return sendEncrypted(job, to: server, upstream: upstream) }
        let address = upstream.address
        let family: SocketFamily = address.protocol == .inet6 ? .v6 : .v4
        socketSet(for: family).whenComplete { result in
            switch result {
            case .success(let set):
                self.send(job, to: server, address: address, family: family, set: set)
            case .failure:
                self.failed(server, of: job.pool, reason: "no socket to send from")
                self.sendAttempt(job)
            }
        }
    }

    private func send(_ job: ForwardJob, to server: Int, address: SocketAddress, family: SocketFamily, set: SocketSet) {
        let socket = Int.random(in: 0..<set.channels.count, using: &random)
        let channel = set.channels[socket]
        set.uses[socket] += 1
        if set.uses[socket] >= settings.queriesPerPort { rotate(family, socket, in: set) }
        var id = UInt16.random(in: .min ... .max, using: &random)
        while pending[PendingKey(family: family, socket: socket, id: id)] != nil { id &+= 1 }
        let key = PendingKey(family: family, socket: socket, id: id)
        let bytes = makeUpstreamQuery(for: job.query, id: id)
        let timeout = eventLoop.scheduleTask(in: settings.attemptTimeout) {
            self.attemptFailed(
                key, reason: "no answer within \(self.settings.attemptTimeout.nanoseconds / 1_000_000) ms")
        }
        pending[key] = PendingQuery(job: job, server: server, sent: bytes, sentAt: .now(), timeout: timeout)
        let envelope = AddressedEnvelope(remoteAddress: address, data: channel.allocator.buffer(bytes: bytes))
        channel.writeAndFlush(envelope).whenFailure { error in self.attemptFailed(key, reason: "send failed: \(error)")
        }
    }

    private func sendEncrypted(_ job: ForwardJob, to server: Int, upstream: Upstream) {
        guard let connection = encryptedConnection(to: upstream, tls: job.pool.tls) else {
            failed(server, of: job.pool, reason: "no TLS context")
            return sendAttempt(job)
        }
        let bytes = makeUpstreamQuery(for: job.query, id: UInt16.random(in: .min ... .max, using: &random))
        let sentAt = NIODeadline.now()
        connection.ask(bytes, timeout: settings.attemptTimeout).whenComplete { result in
            switch result {
            case .success(let reply):
                do {
                    let answer = try CachedAnswer(reply: reply, toQuery: bytes, bounds: job.bounds)
                    self.finish(job, server: server, sentAt: sentAt, with: answer)
                } catch {
                    self.failed(server, of: job.pool, reason: "malformed answer")
                    self.sendAttempt(job)
                }
            case .failure(let error):
                self.failed(server, of: job.pool, reason: "\(error)")
                self.sendAttempt(job)
            }
        }
    }

    private func encryptedConnection(to upstream: Upstream, tls: UpstreamTLS?) -> EncryptedUpstreamConnection? {
        if let connection = encrypted[upstream] { return connection }
        guard let tls else { return nil }
        let connection = EncryptedUpstreamConnection(
            upstream: upstream, tls: tls, eventLoop: eventLoop, idleTimeout: settings.encryptedIdleTimeout,
            connectTimeout: settings.attemptTimeout)
        encrypted[upstream] = connection
        return connection
    }

    private func attemptFailed(_ key: PendingKey, reason: String) {
        guard let attempt = pending.removeValue(forKey: key) else { return }
        attempt.timeout.cancel()
        failed(attempt.server, of: attempt.job.pool, reason: reason)
        sendAttempt(attempt.job)
    }

    private func received(_ reply: [UInt8], from source: SocketAddress, family: SocketFamily, socket: Int) {
        guard reply.count >= 2 else { return }
        let key = PendingKey(family: family, socket: socket, id: UInt16(reply[0]) << 8 | UInt16(reply[1]))
        guard let attempt = pending[key], attempt.job.pool.servers[attempt.server].address == source else { return }
        if reply.count >= Self.datagramLimit {
            // Larger than lockr asked for, and perhaps cut short by the socket: ask for the whole over TCP.
            pending[key] = nil
            attempt.timeout.cancel()
            return retryOverTCP(attempt)
        }
        let answer: CachedAnswer
        do {
            answer = try CachedAnswer(reply: reply, toQuery: attempt.sent, bounds: attempt.job.bounds)
        } catch .mismatchedQuestion {
            return  // not the answer to this query (spoofed or stray): keep waiting
        } catch {
            attemptFailed(key, reason: "malformed answer")
            return
        }
        pending[key] = nil
        attempt.timeout.cancel()
        if answer.isTruncated {
            retryOverTCP(attempt)
        } else {
            finish(attempt.job, server: attempt.server, sentAt: attempt.sentAt, with: answer)
        }
    }

    private func finish(_ job: ForwardJob, server: Int, sentAt: NIODeadline, with answer: CachedAnswer) {
        switch answer.rcode {
        case .serverFailure?, .refused?, .notImplemented?, .formatError?, nil:
            failed(server, of: job.pool, reason: "answered \(answer.rcode.map { "\($0)" } ?? "an unknown code")")
            sendAttempt(job)
        default:
            let rtt = (NIODeadline.now() - sentAt).nanoseconds
            let pool = job.pool
            pool.recordSuccess(server, rttMicroseconds: Double(rtt) / 1000, now: NIODeadline.now().uptimeNanoseconds)
            let address = pool.servers[server].address
            metrics.upstreamAnswered(address, nanoseconds: rtt)
            job.promise.succeed(UpstreamAnswer(answer: answer, server: address))
        }
    }

    private func retryOverTCP(_ attempt: PendingQuery) {
        let server = attempt.job.pool.servers[attempt.server].address
        TCPExchange.ask(server, message: attempt.sent, on: eventLoop, timeout: settings.attemptTimeout)
            .flatMapThrowing { reply in
                try CachedAnswer(reply: reply, toQuery: attempt.sent, bounds: attempt.job.bounds)
            }
            .whenComplete { result in
                switch result {
                case .success(let answer) where !answer.isTruncated:
                    self.finish(attempt.job, server: attempt.server, sentAt: attempt.sentAt, with: answer)
                default:
                    self.failed(attempt.server, of: attempt.job.pool, reason: "no usable answer over TCP")
                    self.sendAttempt(attempt.job)
                }
            }
    }

    /// Notes that `server` of `pool` failed an attempt: its health in the pool, and the loop's count.
    private func failed(_ server: Int, of pool: UpstreamPool, reason: String) {
        pool.recordFailure(server, now: NIODeadline.now().uptimeNanoseconds, reason: reason)
        metrics.upstreamFailed(pool.servers[server].address)
    }

    private func socketSet(for family: SocketFamily) -> EventLoopFuture<SocketSet> {
        if let ready = socketsReady[family] { return ready.flatMapThrowing { try self.currentSet(family) } }
        let binds = (0..<max(1, settings.socketsPerFamily)).map { bind(family, slot: $0) }
        let ready = EventLoopFuture.whenAllSucceed(binds, on: eventLoop).map { channels in
            self.sockets[family] = SocketSet(channels: channels)
        }
        socketsReady[family] = ready
        ready.whenFailure { _ in self.socketsReady[family] = nil }
        return ready.flatMapThrowing { try self.currentSet(family) }
    }

    /// The family's sockets, unless the forwarder was closed meanwhile.
    private func currentSet(_ family: SocketFamily) throws -> SocketSet {
        guard let set = sockets[family] else { throw ForwardError.noUpstreamAnswered }
        return set
    }

    /// Replaces a slot's socket with one on a new random port. The old socket stays open for one
    /// attempt's time so that answers already on their way still arrive.
    private func rotate(_ family: SocketFamily, _ slot: Int, in set: SocketSet) {
        guard !set.rebinding.contains(slot) else { return }
        set.rebinding.insert(slot)
        bind(family, slot: slot).whenComplete { result in
            set.rebinding.remove(slot)
            guard case .success(let fresh) = result, self.sockets[family] === set else {
                if case .success(let unused) = result { unused.close(promise: nil) }
                return
            }
            let old = set.channels[slot]
            set.channels[slot] = fresh
            set.uses[slot] = 0
            self.eventLoop.scheduleTask(in: self.settings.attemptTimeout + .milliseconds(100)) {
                old.close(promise: nil)
            }
        }
    }

    /// The largest upstream datagram read whole. lockr asks for answers of at most 1232 bytes; this
    /// leaves room for servers that send up to the 4096 bytes once common. A datagram that fills it may
    /// have been cut short, and the question is asked again over TCP. (Each socket keeps a buffer
    /// this size, and sockets are replaced every few dozen queries: 64 kB buffers left the heap
    /// fragmented under load.)
    static let datagramLimit = 4096

    /// A UDP socket on a port the system picks; its datagrams go to `received` tagged with `slot`.
    private func bind(_ family: SocketFamily, slot: Int) -> EventLoopFuture<Channel> {
        DatagramBootstrap(group: eventLoop)
            .channelOption(.recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.datagramLimit))
            .channelOption(.maxMessagesPerRead, value: 1)  // one read per wake-up, one buffer per socket
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        UpstreamReplyHandler { reply, source in
                            self.received(reply, from: source, family: family, socket: slot)
                        })
                }
            }
            .bind(host: family == .v4 ? "0.0.0.0" : "::", port: 0)
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
