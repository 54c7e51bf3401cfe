/// What lockr answers by itself, without asking an upstream.
public enum SynthesizedAnswer: Sendable, Equatable {
    /// A and AAAA get these addresses (4 or 16 bytes); a missing family and other types get NODATA.
    case address(ipv4: [UInt8]?, ipv6: [UInt8]?)
    /// NXDOMAIN with a negative-caching SOA.
    case nameError
    /// NOERROR without records, with a negative-caching SOA.
    case noData
    /// REFUSED.
    case refused
}

/// Complete answers built from a query. Every function returns wire bytes ready to send.
public enum Responses {
    /// The answer to a datagram that failed validation, or nil when it must be dropped.
    /// It echoes the id, opcode and RD bit with no question, as the question may be the problem.
    public static func answer(toInvalid packet: [UInt8], problem: QueryProblem) -> [UInt8]? {
        guard packet.count >= DNSLimits.headerSize else { return nil }
        let rcode: ResponseCode
        switch problem {
        case .unanswerable: return nil
        case .formatError: rcode = .formatError
        case .notImplemented: rcode = .notImplemented
        }
        var header = [UInt8](repeating: 0, count: DNSLimits.headerSize)
        header[0] = packet[0]
        header[1] = packet[1]
        let queryFlags = packet.u16(at: 2)
        let flags =
            HeaderFlag.response | (queryFlags & (HeaderFlag.opcodeMask | HeaderFlag.recursionDesired))
            | HeaderFlag.recursionAvailable | rcode.rawValue
        header.setU16(flags, at: 2)
        return header
    }

    /// A locally made answer (a block, an anti-bypass name) with `ttl` on every record and an optional
    /// Extended DNS Error.
    public static func synthesized(
        _ answer: SynthesizedAnswer,
        to query: DNSQuery,
        ttl: UInt32,
        reason: ExtendedError? = nil
    ) -> [UInt8] {
        var writer: ResponseWriter
        switch answer {
        case .address(let ipv4, let ipv6):
            writer = ResponseWriter(answering: query, rcode: .noError)
            if query.type == RecordType.a, let ipv4 {
                writer.addAnswer(type: RecordType.a, ttl: ttl, rdata: ipv4)
            } else if query.type == RecordType.aaaa, let ipv6 {
                writer.addAnswer(type: RecordType.aaaa, ttl: ttl, rdata: ipv6)
            } else {
                writer.addNegativeSOA(ttl: ttl)
            }
        case .nameError:
            writer = ResponseWriter(answering: query, rcode: .nameError)
            writer.addNegativeSOA(ttl: ttl)
        case .noData:
            writer = ResponseWriter(answering: query, rcode: .noError)
            writer.addNegativeSOA(ttl: ttl)
        case .refused:
            writer = ResponseWriter(answering: query, rcode: .refused)
        }
        writer.addOPT(options: reason?.wireOption ?? [])
        return writer.bytes
    }

    /// An authoritative answer from the home's own records: `records` in order (each owned by the
    /// question name, or by `owner` when given: a CNAME's target), or NODATA with a negative-caching
    /// SOA of `negativeTTL` when there are none.
    public static func local(
        _ records: [(owner: [UInt8]?, type: UInt16, ttl: UInt32, rdata: [UInt8])], to query: DNSQuery,
        negativeTTL: UInt32, authoritative: Bool = true
    ) -> [UInt8] {
        var writer = ResponseWriter(answering: query, rcode: .noError, authoritative: authoritative)
        for record in records {
            if let owner = record.owner {
                writer.addAnswer(owner: owner, type: record.type, ttl: record.ttl, rdata: record.rdata)
            } else {
                writer.addAnswer(type: record.type, ttl: record.ttl, rdata: record.rdata)
            }
        }
        if records.isEmpty { writer.addNegativeSOA(ttl: negativeTTL) }
        writer.addOPT()
        return writer.bytes
    }

    /// A bare response code (REFUSED to a stranger, SERVFAIL when no upstream answers, NOTIMP).
    public static func rcode(_ rcode: ResponseCode, to query: DNSQuery, reason: ExtendedError? = nil) -> [UInt8] {
        var writer = ResponseWriter(answering: query, rcode: rcode)
        writer.addOPT(options: reason?.wireOption ?? [])
        return writer.bytes
    }

    /// BADVERS (RFC 6891 6.1.3) for an EDNS version lockr does not speak.
    public static func badVersion(to query: DNSQuery) -> [UInt8] {
        var writer = ResponseWriter(answering: query, rcode: .noError)
        writer.addOPT(extendedRcode: UInt8(ResponseCode.badVersion.rawValue >> 4))
        return writer.bytes
    }

    /// The RFC 8482 answer to qtype ANY: one synthesized HINFO record, "RFC8482" "".
    public static func minimalAny(to query: DNSQuery, ttl: UInt32) -> [UInt8] {
        var writer = ResponseWriter(answering: query, rcode: .noError)
        writer.addAnswer(type: RecordType.hinfo, ttl: ttl, rdata: [7] + Array("RFC8482".utf8) + [0])
        writer.addOPT()
        return writer.bytes
    }

    /// An answer to `query` whose name stands for `target` (an uncompressed wire name): a CNAME to
    /// it, then what `targetReply` (an answer to the same question about `target`) says of it, with
    /// its response code and its authority records (a negative answer's SOA). The CNAME's TTL is
    /// the smallest of the target's records, or `ttl` when it has none, and never above `ttl`.
    /// Without `targetReply` (a query for the CNAME itself), the CNAME alone. Nil when
    /// `targetReply` is not a readable message.
    public static func aliased(_ query: DNSQuery, to target: [UInt8], ttl: UInt32, targetReply: [UInt8]?) -> [UInt8]? {
        var records: [[UInt8]] = []
        var authority: [[UInt8]] = []
        var rcode = ResponseCode.noError
        if let targetReply {
            guard let reply = try? LdnsPacket(wire: targetReply) else { return nil }
            records = reply.answerWire
            authority = reply.authorityWire
            rcode = ResponseCode(rawValue: UInt16(reply.rcode)) ?? .serverFailure
        }
        let smallest = records.compactMap(Self.ttl(ofRecord:)).min() ?? ttl
        var writer = ResponseWriter(answering: query, rcode: rcode)
        writer.addAnswer(type: RecordType.cname, ttl: min(smallest, ttl), rdata: target)
        for record in records { writer.addRecord(wire: record) }
        for record in authority { writer.addRecord(wire: record, authority: true) }
        writer.addOPT()
        return writer.bytes
    }

    /// The TTL of a whole uncompressed record.
    private static func ttl(ofRecord record: [UInt8]) -> UInt32? {
        guard let nameEnd = WireName.uncompressedEnd(in: record, from: 0), nameEnd + 8 <= record.count else {
            return nil
        }
        return record.u32(at: nameEnd + 4)
    }

    /// An empty answer with TC set, telling a UDP client to ask again over TCP.
    public static func truncated(to query: DNSQuery) -> [UInt8] {
        var writer = ResponseWriter(answering: query, rcode: .noError, truncated: true)
        writer.addOPT()
        return writer.bytes
    }
}
