import DNSProxy
import DNSWire
import LockrDnstap
import NIOCore

/// The DNS wire format: what clients and upstreams send.
enum WireTargets {
    /// Parses a client's query as the DNS path does, and makes every answer lockr can give it.
    static func query(_ bytes: [UInt8]) {
        let query: DNSQuery
        do { query = try DNSQuery(packet: bytes) } catch {
            _ = Responses.answer(toInvalid: bytes, problem: error)
            return
        }
        answerEveryWay(query)
    }

    /// A query for "example.com" A whose OPT record carries `bytes` as its options.
    static func ednsOptions(_ bytes: [UInt8]) {
        let options = Array(bytes.prefix(4_000))
        var packet: [UInt8] = [0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1]
        packet += [7] + Array("example".utf8) + [3] + Array("com".utf8) + [0, 0, 1, 0, 1]
        packet += [0, 0, 41, 0x04, 0xD0, 0, 0, 0, 0]
        packet += [UInt8(options.count >> 8), UInt8(options.count & 0xFF)] + options
        guard let query = try? DNSQuery(packet: packet) else { return }
        answerEveryWay(query)
    }

    /// Reads `bytes` as the upstream's answer to a query for "example.com" A (with the answer's
    /// own id, so that parsing goes past the id check), then matches and renders it as a cached
    /// answer is.
    static func upstreamAnswer(_ bytes: [UInt8]) {
        guard bytes.count >= 2, var query = DNSQuery.asking("example.com", type: RecordType.a) else { return }
        let sent = makeUpstreamQuery(for: query, id: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        guard let answer = try? CachedAnswer(reply: bytes, toQuery: sent, bounds: TTLBounds()) else { return }
        if let client = try? DNSQuery(packet: sent) { query = client }
        precondition(
            answer.isTruncated || answer.asksForTheName(of: query), "an answer to the question it was read for")
        _ = answer.render(for: query, age: 10, ttlCap: 30, udpLimit: 512)
        _ = answer.render(for: query, age: 0, staleTTL: 30)
    }

    /// A DNS-over-HTTPS request read as lockr's listener reads it, then its query parsed.
    static func dohRequest(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let rest = bytes.dropFirst()
        let newline = rest.firstIndex(of: 10) ?? rest.endIndex
        let target = String(decoding: rest[..<newline], as: UTF8.self)
        let body = Array(rest[newline...].dropFirst())
        let contentType = first & 2 == 0 ? "application/dns-message" : "text/plain"
        guard
            case .success(let request) = DoHRequestReader.read(
                method: first & 1 == 0 ? "GET" : "POST", target: target, contentType: contentType, body: body)
        else { return }
        query(request.message)
    }

    /// A message on the zone-transfer port, answered over UDP and TCP from a small zone.
    static func zoneRequest(_ bytes: [UInt8]) {
        _ = try? ZoneMessage(packet: bytes)
        for overTCP in [false, true] {
            _ = ZoneResponder.answer(bytes, zones: servedZone, overTCP: overTCP, now: 1_800_000_000).messages
            _ =
                ZoneResponder.answer(bytes, zones: servedZone, overTCP: overTCP, signing: signing, now: 1_800_000_000)
                .messages
        }
        _ = try? TSIGRecord.find(in: bytes)
    }

    /// A dnstap connection's bytes read as the listener reads them: frames through the handshake
    /// until the stream ends or breaks, each data frame read as a message (before START too, which
    /// the listener refuses, so that the fuzzer reaches the message's parser sooner).
    static func dnstapStream(_ bytes: [UInt8]) {
        var buffer = ByteBuffer(bytes: bytes)
        var session = FrameStreamSession()
        while let frame = try? FrameStreamFrame.read(from: &buffer) {
            switch frame {
            case .control(let control):
                guard let step = try? session.receive(control), !step.close else { return }
            case .data(let payload):
                _ = try? DnstapSighting.read(payload)
            }
        }
    }

    private static let signing = ZoneSigning(
        key: TSIGKey(name: "lockr-rpz", secret: "c2VjcmV0IGtleSBmb3IgZnV6emluZyBvbmx5IQ=="), required: true)

    /// A zone in its second version, so that an IXFR from the first gets the change between them.
    private static let servedZone: ServedZones = {
        let zones = ServedZones()
        let origin = WireName.wire(fromPresentation: "default.rpz.lockr")!
        for (serial, names) in [(UInt32(1), ["tiktok.com"]), (2, ["instagram.com"])] {
            let triggers = names.map {
                ResourceRecord(
                    owner: WireName.wire(fromPresentation: "\($0).default.rpz.lockr")!, type: RecordType.cname, ttl: 30,
                    rdata: [0])
            }
            zones.serve(
                ServedZone(
                    origin: origin,
                    soa: StartOfAuthority(
                        primary: [0], mailbox: [0], serial: serial, refresh: 1, retry: 1, expire: 1, minimum: 1),
                    soaTTL: 30, records: triggers))
        }
        return zones
    }()

    /// An upstream written in the config, read and written back.
    static func upstream(_ bytes: [UInt8]) {
        guard let entries = try? UpstreamEntry.parse(String(decoding: bytes, as: UTF8.self)) else { return }
        for entry in entries { _ = try? UpstreamEntry.parse(entry.description) }
    }

    private static func answerEveryWay(_ query: DNSQuery) {
        _ = query.name
        _ = query.forwardedClient()
        _ = query.udpSizeLimit()
        _ = makeUpstreamQuery(for: query, id: 7)
        let reason = ExtendedError(code: .blocked, text: String(repeating: "blocked ", count: 40))
        _ = Responses.synthesized(
            .address(ipv4: [0, 0, 0, 0], ipv6: Array(repeating: 0, count: 16)), to: query, ttl: 5, reason: reason)
        _ = Responses.synthesized(.nameError, to: query, ttl: 5)
        _ = Responses.rcode(.serverFailure, to: query, reason: ExtendedError(code: .noReachableAuthority, text: "down"))
        _ = Responses.badVersion(to: query)
        _ = Responses.minimalAny(to: query, ttl: 5)
        _ = Responses.truncated(to: query)
    }
}
