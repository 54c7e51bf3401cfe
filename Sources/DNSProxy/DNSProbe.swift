import DNSWire
import NIOCore
import NIOPosix

/// Asks a DNS server one question outside the query path, for `lockr doctor`: whether an upstream
/// answers, and whether lockr's own listeners answer its probe name.
public enum DNSProbe {
    /// Nil when `server` answers a question of `name` (the root's NS records by default; a
    /// `[[forward]]` server is asked its domain's SOA) within `timeout` with anything but SERVFAIL
    /// or REFUSED; else what went wrong, in words.
    public static func upstreamProblem(
        with server: SocketAddress, asking name: String = "", type: UInt16 = RecordType.ns,
        timeout: TimeAmount = .seconds(2), group: EventLoopGroup
    ) async -> String? {
        // "" is the root in presentation form as `WireName` reads it.
        problem(in: await ask(server, name: name, type: type, timeout: timeout, group: group))
    }

    /// The same for any upstream: a `tls://` or `https://` one is asked over a connection of its own,
    /// so that a refused certificate or pin shows as the problem.
    public static func upstreamProblem(
        with upstream: Upstream, tls: UpstreamTLS?, timeout: TimeAmount = .seconds(2), group: EventLoopGroup
    ) async -> String? {
        guard upstream.isEncrypted else { return await upstreamProblem(with: upstream.address, group: group) }
        guard let tls else { return "no TLS context" }
        guard let query = DNSQuery.asking("", type: RecordType.ns)?.packet else { return "cannot build a question" }
        let loop = group.next()
        do {
            let answer = try await loop.flatSubmit {
                let connection = EncryptedUpstreamConnection(
                    upstream: upstream, tls: tls, eventLoop: loop, idleTimeout: timeout, connectTimeout: timeout)
                let answer = connection.ask(query, timeout: timeout)
                answer.whenComplete { _ in connection.close() }
                return answer
            }.get()
            return problem(in: .success(answer))
        } catch {
            return "\(error)"
        }
    }

    private static func problem(in result: Result<[UInt8], Failure>) -> String? {
        switch result {
        case .failure(let problem): return problem.description
        case .success(let answer):
            switch answer[3] & 0x0F {
            case 2: return "answered SERVFAIL"
            case 5: return "answered REFUSED"
            default: return nil
            }
        }
    }

    /// Whether `server` answers a name under `LocalAnswers.probeDomain` with
    /// `LocalAnswers.probeAddress`, as only lockr does; else what it did.
    public static func lockrProblem(at server: SocketAddress, group: EventLoopGroup) async -> String? {
        let name = "p\(UInt64.random(in: 0 ... .max))." + LocalAnswers.probeDomain
        switch await ask(server, name: name, type: RecordType.a, timeout: .seconds(2), group: group) {
        case .failure(let problem): return problem.description
        case .success(let answer):
            guard LocalAnswers.isProbeAnswer(answer) else { return "answered, but not as lockr does" }
            return nil
        }
    }

    /// Why a question got no usable answer.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The answer of `server` to `name` (`type`), or why there was none within `timeout`.
    static func ask(
        _ server: SocketAddress, name: String, type: UInt16, timeout: TimeAmount, group: EventLoopGroup
    ) async -> Result<[UInt8], Failure> {
        let loop = group.next()
        let reply = loop.makePromise(of: [UInt8].self)
        // Every way out leaves it completed (a second completion is ignored).
        defer { reply.fail(ChannelError.ioOnClosedChannel) }
        let channel: Channel
        do {
            let local = try SocketAddress(ipAddress: server.protocol == .inet6 ? "::" : "0.0.0.0", port: 0)
            channel = try await DatagramBootstrap(group: loop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ReplyHandler(reply))
                    }
                }
                .bind(to: local).get()
        } catch {
            return .failure(Failure(description: "cannot open a socket to ask it: \(error)"))
        }
        defer { channel.close(promise: nil) }
        let id = UInt16.random(in: .min ... .max)
        guard var query = DNSQuery.asking(name, type: type)?.packet else {
            return .failure(Failure(description: "cannot build a question for \(name)"))
        }
        query[0] = UInt8(id >> 8)
        query[1] = UInt8(id & 0xFF)
        let timer = loop.scheduleTask(in: timeout) { reply.fail(ChannelError.ioOnClosedChannel) }
        defer { timer.cancel() }
        do {
            try await channel.writeAndFlush(
                AddressedEnvelope(remoteAddress: server, data: channel.allocator.buffer(bytes: query))
            ).get()
            let answer = try await reply.futureResult.get()
            guard answer.count >= 12, answer[0] == query[0], answer[1] == query[1] else {
                return .failure(Failure(description: "answered something else"))
            }
            return .success(answer)
        } catch {
            return .failure(Failure(description: "no answer within \(timeout.nanoseconds / 1_000_000_000) s"))
        }
    }

    private final class ReplyHandler: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        private let reply: EventLoopPromise<[UInt8]>

        init(_ reply: EventLoopPromise<[UInt8]>) { self.reply = reply }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            reply.succeed(Array(unwrapInboundIn(data).data.readableBytesView))
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {}
    }
}
