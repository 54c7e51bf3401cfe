import CLdns
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A small authoritative server for the zone `test.` used as lockr's upstream in tests, on UDP and
/// TCP of one loopback port. Its answers are built by ldns.
///
/// Names (any other name under test. gets NXDOMAIN with an SOA):
/// - `NAME.test.` listed in `records`: those records;
/// - `big.test.`: 100 A records, more than fits a 1232-byte UDP answer, so UDP answers are truncated;
/// - `loose.test.` and `huge.test.`: 150 and 400 A records (about 2.4 and 6.4 kB), sent whole over UDP
///   too, as a server that ignores the size the query asked for would;
/// - `nodata.test.`: NOERROR, no records, an SOA.
/// `mode` makes it drop everything, or answer SERVFAIL, to simulate an upstream going down.
public final class ScriptedUpstream: Sendable {
    public enum Mode: Sendable {
        case answer
        /// Answer UDP queries after 150 ms.
        case slow
        case silent
        case serverFailure
    }

    private let state: NIOLockedValueBox<State>
    private let group: MultiThreadedEventLoopGroup
    private let channels: [Channel]
    public let port: Int

    fileprivate struct State {
        var mode: Mode = .answer
        var records: [String: [String]]
        var queries: [String: Int] = [:]
        var tcpQueries = 0
        var sourcePorts: Set<Int> = []
    }

    public static let soa = "test. 300 IN SOA ns.test. hostmaster.test. 1 3600 600 86400 120"

    /// Starts on 127.0.0.1 on a free port. `records` maps a lower-case name with its final dot to
    /// presentation-format records.
    public init(records: [String: [String]] = ScriptedUpstream.defaultRecords) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let state = NIOLockedValueBox(State(records: records))
        // UDP picks a free port; TCP wants the same number, which another socket may hold: try again.
        var attempt = 0
        while true {
            attempt += 1
            let udp = try await DatagramBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(UDPResponder(state: state))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            let port = udp.localAddress!.port!
            do {
                let tcp = try await ServerBootstrap(group: group)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .childChannelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(TCPResponder(state: state))
                        }
                    }
                    .bind(host: "127.0.0.1", port: port).get()
                self.channels = [udp, tcp]
                self.port = port
                break
            } catch {
                try? await udp.close()
                if attempt == 20 {
                    try? await group.shutdownGracefully()
                    throw error
                }
            }
        }
        self.group = group
        self.state = state
    }

    public static let defaultRecords: [String: [String]] = [
        "www.test.": ["www.test. 300 IN A 192.0.2.1", "www.test. 300 IN AAAA 2001:db8::1"],
        "short.test.": ["short.test. 2 IN A 192.0.2.2"],
        "ads.test.": ["ads.test. 300 IN A 192.0.2.3"],
        "x.ads.test.": ["x.ads.test. 300 IN A 192.0.2.4"],
        "ok.ads.test.": ["ok.ads.test. 300 IN A 192.0.2.5"],
        "app.test.": ["app.test. 300 IN A 192.0.2.6", "app.test. 300 IN HTTPS 1 . alpn=h2"],
    ]

    public var mode: Mode {
        get { state.withLockedValue { $0.mode } }
        set { state.withLockedValue { $0.mode = newValue } }
    }

    /// How many queries (UDP and TCP) reached the upstream for `name` (lower case, final dot).
    public func queries(for name: String) -> Int { state.withLockedValue { $0.queries[name, default: 0] } }
    /// How many queries came over TCP.
    public var tcpQueries: Int { state.withLockedValue { $0.tcpQueries } }
    /// The source ports UDP queries came from.
    public var sourcePorts: Set<Int> { state.withLockedValue { $0.sourcePorts } }

    public func stop() async {
        for channel in channels { try? await channel.close() }
        try? await group.shutdownGracefully()
    }

    fileprivate static func respond(to query: [UInt8], overTCP: Bool, state: NIOLockedValueBox<State>) -> [UInt8]? {
        guard let (name, type) = question(of: query) else { return nil }
        let (mode, records) = state.withLockedValue { state -> (Mode, [String]?) in
            state.queries[name, default: 0] += 1
            if overTCP { state.tcpQueries += 1 }
            return (state.mode, state.records[name])
        }
        switch mode {
        case .silent: return nil
        case .serverFailure: return LdnsBuild.answer(to: query, rcode: 2)
        case .answer, .slow: break
        }
        if name == "big.test." {
            let many = (1...100).map { "big.test. 300 IN A 198.51.100.\($0)" }
            return overTCP ? LdnsBuild.answer(to: query, records: many) : LdnsBuild.answer(to: query, truncated: true)
        }
        if let count = ["loose.test.": 150, "huge.test.": 400][name] {
            return LdnsBuild.answer(
                to: query, records: (1...count).map { "\(name) 300 IN A 198.51.\($0 / 256).\($0 % 256)" })
        }
        if name == "nodata.test." { return LdnsBuild.answer(to: query, authority: [soa]) }
        guard let records else { return LdnsBuild.answer(to: query, rcode: 3, authority: [soa]) }
        let matching = records.filter { $0.split(separator: " ")[3] == type }
        return LdnsBuild.answer(to: query, records: matching, authority: matching.isEmpty ? [soa] : [])
    }

    /// The question name (lower case, final dot) and type mnemonic of a query, read by ldns.
    private static func question(of query: [UInt8]) -> (String, String)? {
        var parsed: UnsafeMutablePointer<ldns_pkt>?
        guard query.withUnsafeBufferPointer({ ldns_wire2pkt(&parsed, $0.baseAddress, $0.count) }) == LDNS_STATUS_OK,
            let packet = parsed
        else { return nil }
        defer { ldns_pkt_free(packet) }
        guard let list = ldns_pkt_question(packet), ldns_rr_list_rr_count(list) == 1,
            let record = ldns_rr_list_rr(list, 0), let ownerText = ldns_rdf2str(ldns_rr_owner(record)),
            let typeText = ldns_rr_type2str(ldns_rr_get_type(record))
        else { return nil }
        defer {
            free(ownerText)
            free(typeText)
        }
        return (String(cString: ownerText).lowercased(), String(cString: typeText))
    }

    private final class UDPResponder: ChannelInboundHandler {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let state: NIOLockedValueBox<State>
        init(state: NIOLockedValueBox<State>) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var envelope = unwrapInboundIn(data)
            let port = envelope.remoteAddress.port ?? 0
            state.withLockedValue { _ = $0.sourcePorts.insert(port) }
            guard let query = envelope.data.readBytes(length: envelope.data.readableBytes),
                let reply = ScriptedUpstream.respond(to: query, overTCP: false, state: state)
            else { return }
            let out = AddressedEnvelope(
                remoteAddress: envelope.remoteAddress, data: context.channel.allocator.buffer(bytes: reply))
            if state.withLockedValue({ $0.mode }) == .slow {
                let channel = context.channel
                context.eventLoop.scheduleTask(in: .milliseconds(150)) { channel.writeAndFlush(out, promise: nil) }
            } else {
                context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            }
        }
    }

    private final class TCPResponder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let state: NIOLockedValueBox<State>
        var pending = ByteBuffer()
        init(state: NIOLockedValueBox<State>) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var incoming = unwrapInboundIn(data)
            pending.writeBuffer(&incoming)
            while let length = pending.getInteger(at: pending.readerIndex, as: UInt16.self),
                pending.readableBytes >= 2 + Int(length)
            {
                pending.moveReaderIndex(forwardBy: 2)
                let query = pending.readBytes(length: Int(length))!
                guard let reply = ScriptedUpstream.respond(to: query, overTCP: true, state: state) else { continue }
                var out = context.channel.allocator.buffer(capacity: reply.count + 2)
                out.writeInteger(UInt16(reply.count))
                out.writeBytes(reply)
                context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            }
        }
    }
}
