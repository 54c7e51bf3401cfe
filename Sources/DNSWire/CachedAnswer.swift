/// Why an upstream's reply cannot be used.
public enum UpstreamReplyProblem: Error, Equatable, Sendable {
    /// Not a well-formed DNS message (lockr's walk or ldns rejected it).
    case malformed(String)
    /// A well-formed message that does not answer the question that was sent.
    case mismatchedQuestion
}

/// TTL bounds applied to upstream records when they are stored.
public struct TTLBounds: Sendable, Equatable {
    public var minimum: UInt32
    public var maximum: UInt32
    /// Upper bound for negative answers (NXDOMAIN, NODATA).
    public var negativeMaximum: UInt32

    public init(minimum: UInt32 = 0, maximum: UInt32 = 86_400, negativeMaximum: UInt32 = 3_600) {
        self.minimum = minimum
        self.maximum = maximum
        self.negativeMaximum = negativeMaximum
    }

    func clamp(_ ttl: UInt32) -> UInt32 { min(max(ttl, minimum), maximum) }
}

/// An upstream reply made ready to store and to replay to any client with the same question.
///
/// The upstream's OPT record is taken off (EDNS is hop-by-hop); its Extended DNS Errors are kept and
/// passed on. Every record reaches the client as the upstream sent it (ldns may compress names
/// differently), except the id, the RD/CD bits, the question's letter case (the client's own) and
/// the TTLs, which count down with age.
///
/// Immutable, and held in one allocation (the message, where its TTLs are and the EDE options), so
/// that the cache's thousands of answers cost one block each and a hit shares it instead of copying.
/// (Sendable unchecked: `ManagedBuffer` is not, and the block is never written after it is made.)
public struct CachedAnswer: @unchecked Sendable {
    private let storage: AnswerStorage

    /// RCODE of the reply.
    public var rcode: ResponseCode? { storage.header.rcode }
    /// Seconds this answer may be served from cache: the smallest TTL, or for a negative answer the
    /// SOA's negative TTL (RFC 2308). Zero means do not cache.
    public var lifetime: UInt32 { storage.header.lifetime }
    /// The reply had TC set: the question must be asked again over TCP (nothing else of it is kept).
    public var isTruncated: Bool { storage.header.isTruncated }

    /// Reads an upstream reply to `sent` (the bytes lockr sent). Throws if it is malformed or answers
    /// another question. The reply is parsed and encoded anew by ldns: what lockr keeps and replays
    /// is a message ldns wrote, whose compression pointers all aim at names (never at the header,
    /// a TTL or past the end), so rewriting ids, TTLs and the OPT record can never break it.
    public init(reply: [UInt8], toQuery sent: [UInt8], bounds: TTLBounds) throws(UpstreamReplyProblem) {
        var layout = try MessageLayout(reading: reply)
        guard layout.questionMatches(sent, in: reply) else { throw .mismatchedQuestion }
        let rcode = ResponseCode(rawValue: layout.flags & HeaderFlag.rcodeMask)
        guard layout.flags & HeaderFlag.truncated == 0 else {
            storage = .make(AnswerHeader(rcode: rcode, isTruncated: true), message: [], ttlOffsets: [], errors: [])
            return
        }
        let errors = layout.opt.map { Self.extendedErrors(in: reply[$0.options]) } ?? []
        var message: [UInt8]
        do { message = try LdnsPacket(wire: reply).wire() } catch { throw .malformed(error.description) }
        layout = try MessageLayout(reading: message)
        if let opt = layout.opt {
            message.removeSubrange(opt.record)
            message.setU16(message.u16(at: 10) - 1, at: 10)
            layout = try MessageLayout(reading: message)
        }
        // The TTLs' offsets are kept in two bytes each.
        guard message.count <= Int(UInt16.max) else { throw .malformed("longer than a DNS message can be") }
        var ttlOffsets: [Int] = []
        ttlOffsets.reserveCapacity(layout.records.count)
        for record in layout.records {
            message.setU32(bounds.clamp(message.u32(at: record.ttlOffset)), at: record.ttlOffset)
            ttlOffsets.append(record.ttlOffset)
        }
        let header = AnswerHeader(
            rcode: rcode, isTruncated: false,
            lifetime: Self.lifetime(of: layout, in: message, rcode: rcode, bounds: bounds),
            nameLength: layout.questionRange.upperBound - 4 - DNSLimits.headerSize)
        storage = .make(header, message: message, ttlOffsets: ttlOffsets, errors: errors)
    }

    private static func lifetime(
        of layout: MessageLayout,
        in message: [UInt8],
        rcode: ResponseCode?,
        bounds: TTLBounds
    ) -> UInt32 {
        let answers = layout.records.filter { $0.section == .answer }
        switch rcode {
        case .noError? where !answers.isEmpty:
            return layout.records.map { bounds.clamp(message.u32(at: $0.ttlOffset)) }.min() ?? 0
        case .noError?, .nameError?:
            guard let soa = layout.records.first(where: { $0.section == .authority && $0.type == RecordType.soa }),
                soa.rdataLength >= 20
            else { return 0 }
            let minimum = message.u32(at: soa.rdataOffset + soa.rdataLength - 4)
            let negative = min(message.u32(at: soa.ttlOffset), minimum)
            return min(max(negative, bounds.minimum), bounds.negativeMaximum)
        default:
            return 0
        }
    }

    /// The EDE options (code 15) among an OPT record's options.
    private static func extendedErrors(in options: ArraySlice<UInt8>) -> [UInt8] {
        var kept: [UInt8] = []
        var cursor = options.startIndex
        while cursor + 4 <= options.endIndex {
            let code = UInt16(options[cursor]) << 8 | UInt16(options[cursor + 1])
            let length = Int(options[cursor + 2]) << 8 | Int(options[cursor + 3])
            let end = min(cursor + 4 + length, options.endIndex)
            if code == 15 { kept.append(contentsOf: options[cursor..<end]) }
            cursor = end
        }
        return kept
    }

    /// True when this answer's question has the name of `query`'s, ignoring case.
    public func asksForTheName(of query: DNSQuery) -> Bool {
        storage.withUnsafeMutablePointers { header, bytes in
            let length = query.nameEnd - DNSLimits.headerSize
            guard header.pointee.nameLength == length, header.pointee.messageLength >= query.nameEnd else {
                return false
            }
            return query.packet.withUnsafeBufferPointer { packet in
                for index in DNSLimits.headerSize..<query.nameEnd
                where asciiLower(bytes[index]) != asciiLower(packet[index]) {
                    return false
                }
                return true
            }
        }
    }

    /// The answer for `query`, `age` seconds after it was stored.
    /// - Parameters:
    ///   - ttlCap: an upper bound on every TTL (a policy's window end), if any.
    ///   - staleTTL: when set, the answer is past its lifetime and served stale (RFC 8767) with this TTL
    ///     and an EDE "stale answer".
    ///   - udpLimit: the client's UDP size; a larger answer becomes an empty TC answer. Nil over TCP.
    public func render(
        for query: DNSQuery,
        age: UInt32,
        ttlCap: UInt32? = nil,
        staleTTL: UInt32? = nil,
        udpLimit: Int? = nil
    ) -> [UInt8] {
        if isTruncated { return Responses.truncated(to: query) }
        return storage.withUnsafeMutablePointers { header, bytes in
            let parts = header.pointee
            var out = [UInt8]()
            out.reserveCapacity(parts.messageLength + 11 + parts.errorsLength + 24)
            out.append(contentsOf: UnsafeBufferPointer(start: bytes, count: parts.messageLength))
            out.setU16(query.id, at: 0)
            let keep = ~(HeaderFlag.recursionDesired | HeaderFlag.checkingDisabled | HeaderFlag.truncated)
            let flags =
                out.u16(at: 2) & keep | query.flags & (HeaderFlag.recursionDesired | HeaderFlag.checkingDisabled)
            out.setU16(flags, at: 2)
            for index in DNSLimits.headerSize..<query.nameEnd { out[index] = query.packet[index] }
            var field = parts.messageLength
            for _ in 0..<parts.ttlCount {
                let offset = Int(bytes[field]) << 8 | Int(bytes[field + 1])
                field += 2
                let stored = out.u32(at: offset)
                var ttl = staleTTL ?? (stored > age ? stored - age : 0)
                if let ttlCap { ttl = min(ttl, ttlCap) }
                out.setU32(ttl, at: offset)
            }
            if let edns = query.edns {
                var options = Array(UnsafeBufferPointer(start: bytes + field, count: parts.errorsLength))
                if staleTTL != nil {
                    options += ExtendedError(code: .staleAnswer, text: "upstream unreachable").wireOption
                }
                out.append(0)
                out.appendU16(RecordType.opt)
                out.appendU16(DNSLimits.ednsPayloadSize)
                out.appendU32(edns.dnssecOK ? 0x8000 : 0)
                out.appendU16(UInt16(options.count))
                out.append(contentsOf: options)
                out.setU16(out.u16(at: 10) + 1, at: 10)
            }
            if let udpLimit, out.count > udpLimit {
                return Responses.truncated(to: query)
            }
            return out
        }
    }
}

/// What a `CachedAnswer` knows beside its bytes, and where its parts lie in them.
private struct AnswerHeader {
    var rcode: ResponseCode?
    var isTruncated: Bool
    var lifetime: UInt32 = 0
    /// Length of the question's name, which starts right after the header.
    var nameLength = 0
    var messageLength = 0
    var ttlCount = 0
    var errorsLength = 0
}

/// A `CachedAnswer`'s one block: the header, then the message, the offset of each of its TTL fields
/// (two bytes each) and the upstream's EDE options.
private final class AnswerStorage: ManagedBuffer<AnswerHeader, UInt8> {
    static func make(_ header: AnswerHeader, message: [UInt8], ttlOffsets: [Int], errors: [UInt8]) -> AnswerStorage {
        var header = header
        header.messageLength = message.count
        header.ttlCount = ttlOffsets.count
        header.errorsLength = errors.count
        let buffer = create(minimumCapacity: message.count + 2 * ttlOffsets.count + errors.count) { _ in header }
        buffer.withUnsafeMutablePointerToElements { bytes in
            message.withUnsafeBufferPointer {
                if let base = $0.baseAddress { bytes.update(from: base, count: $0.count) }
            }
            var cursor = bytes + message.count
            for offset in ttlOffsets {
                cursor[0] = UInt8(truncatingIfNeeded: offset >> 8)
                cursor[1] = UInt8(truncatingIfNeeded: offset)
                cursor += 2
            }
            errors.withUnsafeBufferPointer {
                if let base = $0.baseAddress { cursor.update(from: base, count: $0.count) }
            }
        }
        return unsafeDowncast(buffer, to: AnswerStorage.self)
    }
}
