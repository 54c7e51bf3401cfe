/// EDNS(0) facts of a message's OPT record (RFC 6891).
public struct EDNSInfo: Sendable, Equatable {
    /// The requestor's UDP payload size.
    public var udpPayloadSize: UInt16
    public var version: UInt8 = 0
    /// The DNSSEC OK bit.
    public var dnssecOK: Bool
}

/// Why a datagram cannot be treated as a query. Each case says how to answer it.
public enum QueryProblem: Error, Equatable, Sendable {
    /// Too short to hold a header, or a response rather than a query: drop it silently.
    case unanswerable
    /// Malformed question, counts or OPT record: FORMERR.
    case formatError
    /// An opcode other than QUERY: NOTIMP.
    case notImplemented
}

/// A client query, validated and read in place: the header, the single question and the OPT record.
///
/// Nothing is copied but the packet itself; the question name stays in wire format inside `packet`,
/// so the matcher and the cache can work on it without building strings.
public struct DNSQuery: Sendable {
    /// The query exactly as received.
    public let packet: [UInt8]
    /// Offset just past the root label of the question name.
    public let nameEnd: Int
    /// Offset just past the question (name, type, class).
    public let questionEnd: Int
    public let type: UInt16
    public let recordClass: UInt16
    /// The OPT record, when the client sent one.
    public let edns: EDNSInfo?
    /// Where the OPT record's options are in `packet`, when there is one.
    let ednsOptions: Range<Int>?

    public var id: UInt16 { packet.u16(at: 0) }
    var flags: UInt16 { packet.u16(at: 2) }
    public var recursionDesired: Bool { flags & HeaderFlag.recursionDesired != 0 }
    public var checkingDisabled: Bool { flags & HeaderFlag.checkingDisabled != 0 }
    /// The question name in wire format (labels and the root byte), in the client's letter case.
    public var wireName: ArraySlice<UInt8> { packet[DNSLimits.headerSize..<nameEnd] }
    /// The question name in presentation format, lower-cased, without the final dot ("." for the root).
    public var name: String { WireName.presentation(of: wireName) }

    /// Validates `packet` as a standard query. Throws the problem that decides the answer.
    public init(packet: [UInt8]) throws(QueryProblem) {
        guard packet.count >= DNSLimits.headerSize else { throw .unanswerable }
        let flags = packet.u16(at: 2)
        guard flags & HeaderFlag.response == 0 else { throw .unanswerable }
        guard flags & HeaderFlag.opcodeMask == 0 else { throw .notImplemented }
        guard packet.u16(at: 4) == 1, packet.u16(at: 6) == 0, packet.u16(at: 8) == 0 else {
            throw .formatError
        }
        let additionalCount = packet.u16(at: 10)
        guard additionalCount <= 1 else { throw .formatError }

        guard let nameEnd = WireName.uncompressedEnd(in: packet, from: DNSLimits.headerSize),
            nameEnd + 4 <= packet.count
        else { throw .formatError }
        self.packet = packet
        self.nameEnd = nameEnd
        self.type = packet.u16(at: nameEnd)
        self.recordClass = packet.u16(at: nameEnd + 2)
        self.questionEnd = nameEnd + 4
        if additionalCount == 1 {
            guard let opt = OPTRecord(in: packet, at: questionEnd), opt.end <= packet.count else {
                throw .formatError
            }
            self.edns = opt.info
            self.ednsOptions = opt.options
        } else {
            self.edns = nil
            self.ednsOptions = nil
        }
    }

    /// A query of `name` ("www.example.com", a final dot or not) for `type`, class IN, as a client
    /// would send it without EDNS; nil when `name` is not a domain name.
    public static func asking(_ name: String, type: UInt16) -> DNSQuery? {
        WireName.wire(fromPresentation: name).flatMap { asking(wire: $0, type: type) }
    }

    /// A query of the wire name `wire` for `type`, class IN, without EDNS; nil when `wire` is not one.
    public static func asking(wire: [UInt8], type: UInt16) -> DNSQuery? {
        var packet: [UInt8] = [0, 0, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        packet += wire
        packet += [UInt8(type >> 8), UInt8(truncatingIfNeeded: type), 0, 1]
        return try? DNSQuery(packet: packet)
    }

    /// The largest answer this client accepts over UDP: 512 without EDNS, else its payload size
    /// bounded by the 1232 bytes lockr advertises (and never below 512).
    public func udpSizeLimit() -> Int {
        guard let edns else { return DNSLimits.classicUDPSize }
        return max(DNSLimits.classicUDPSize, min(Int(edns.udpPayloadSize), Int(DNSLimits.ednsPayloadSize)))
    }
}

/// An OPT pseudo-record read in place.
struct OPTRecord {
    let info: EDNSInfo
    /// Range of the RDATA (the options).
    let options: Range<Int>
    /// Offset just past the record.
    let end: Int

    /// Reads an OPT record starting at `offset`; nil if it is not a well-formed OPT record.
    init?(in packet: [UInt8], at offset: Int) {
        // root name (1) + type (2) + class (2) + ttl (4) + rdlength (2)
        guard offset + 11 <= packet.count, packet[offset] == 0,
            packet.u16(at: offset + 1) == RecordType.opt
        else { return nil }
        let payload = packet.u16(at: offset + 3)
        let version = packet[offset + 6]
        let flags = packet.u16(at: offset + 7)
        let length = Int(packet.u16(at: offset + 9))
        let start = offset + 11
        guard start + length <= packet.count, OPTRecord.optionsAreWellFormed(packet[start..<start + length]) else {
            return nil
        }
        self.info = EDNSInfo(udpPayloadSize: payload, version: version, dnssecOK: flags & 0x8000 != 0)
        self.options = start..<start + length
        self.end = start + length
    }

    /// Each option is code (2), length (2) and that many bytes, exactly filling the RDATA.
    static func optionsAreWellFormed(_ rdata: ArraySlice<UInt8>) -> Bool {
        var cursor = rdata.startIndex
        while cursor < rdata.endIndex {
            guard cursor + 4 <= rdata.endIndex else { return false }
            let length = Int(rdata[cursor + 2]) << 8 | Int(rdata[cursor + 3])
            cursor += 4 + length
        }
        return cursor == rdata.endIndex
    }
}
