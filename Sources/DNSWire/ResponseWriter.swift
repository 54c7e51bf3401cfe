/// A reason attached to an answer as an Extended DNS Error option (RFC 8914).
public struct ExtendedError: Sendable, Equatable {
    public var code: ExtendedErrorCode
    /// Free text for people; cut to 200 bytes on the wire.
    public var text: String

    public init(code: ExtendedErrorCode, text: String) {
        self.code = code
        self.text = text
    }

    static let maxTextBytes = 200

    /// The option in wire form: code 15, length, info-code, UTF-8 text.
    var wireOption: [UInt8] {
        let text = Array(text.utf8.prefix(Self.maxTextBytes))
        var option: [UInt8] = []
        option.reserveCapacity(6 + text.count)
        option.appendU16(15)
        option.appendU16(UInt16(2 + text.count))
        option.appendU16(code.rawValue)
        option.append(contentsOf: text)
        return option
    }
}

/// Builds an answer to a query by copying its header and question and appending records.
///
/// The answer's header echoes the query's id, RD and CD bits and sets QR and RA. Record owners
/// are a compression pointer to the question name, so the client sees its own letter case.
struct ResponseWriter {
    private(set) var bytes: [UInt8]
    private let query: DNSQuery

    init(answering query: DNSQuery, rcode: ResponseCode, truncated: Bool = false, authoritative: Bool = false) {
        self.query = query
        var bytes = [UInt8]()
        bytes.reserveCapacity(query.questionEnd + 96)
        bytes.append(contentsOf: query.packet[0..<query.questionEnd])
        var flags = HeaderFlag.response | HeaderFlag.recursionAvailable
        flags |= query.flags & (HeaderFlag.recursionDesired | HeaderFlag.checkingDisabled)
        flags |= rcode.rawValue & HeaderFlag.rcodeMask
        if truncated { flags |= HeaderFlag.truncated }
        if authoritative { flags |= HeaderFlag.authoritative }
        bytes.setU16(flags, at: 2)
        bytes.setU16(1, at: 4)
        bytes.setU16(0, at: 6)
        bytes.setU16(0, at: 8)
        bytes.setU16(0, at: 10)
        self.bytes = bytes
    }

    /// Appends a record owned by the question name to the answer section.
    mutating func addAnswer(type: UInt16, ttl: UInt32, rdata: [UInt8]) {
        appendOwnedRecord(type: type, ttl: ttl, rdata: rdata)
        bytes.setU16(bytes.u16(at: 6) + 1, at: 6)
    }

    /// Appends a record owned by `owner` (an uncompressed wire name) to the answer section.
    mutating func addAnswer(owner: [UInt8], type: UInt16, ttl: UInt32, rdata: [UInt8]) {
        bytes.append(contentsOf: owner)
        bytes.appendU16(type)
        bytes.appendU16(query.recordClass)
        bytes.appendU32(ttl)
        bytes.appendU16(UInt16(rdata.count))
        bytes.append(contentsOf: rdata)
        bytes.setU16(bytes.u16(at: 6) + 1, at: 6)
    }

    /// Appends a whole record (owner, type, class, TTL, data; uncompressed) to the answer section,
    /// or to the authority section when `authority`. Only before any authority record when it goes
    /// to the answer section, and before the OPT record.
    mutating func addRecord(wire record: [UInt8], authority: Bool = false) {
        bytes.append(contentsOf: record)
        let count = authority ? 8 : 6
        bytes.setU16(bytes.u16(at: count) + 1, at: count)
    }

    /// Appends an SOA to the authority section so that resolvers cache the negative answer for `ttl`
    /// (RFC 2308: the negative TTL is the lesser of the SOA's TTL and its MINIMUM).
    mutating func addNegativeSOA(ttl: UInt32) {
        var rdata = Self.soaWithoutMinimum
        rdata.appendU32(ttl)  // minimum
        appendOwnedRecord(type: RecordType.soa, ttl: ttl, rdata: rdata)
        bytes.setU16(bytes.u16(at: 8) + 1, at: 8)
    }

    /// SOA data up to its MINIMUM: MNAME `lockr.`, RNAME `blocked.lockr.`, serial 1, refresh 3600,
    /// retry 600, expire 86400.
    private static let soaWithoutMinimum: [UInt8] = {
        var rdata: [UInt8] =
            [5] + Array("lockr".utf8) + [0] + [7] + Array("blocked".utf8) + [5] + Array("lockr".utf8) + [0]
        for value: UInt32 in [1, 3600, 600, 86400] { rdata.appendU32(value) }
        return rdata
    }()

    /// Appends lockr's OPT record when the query carried one (RFC 6891 forbids it otherwise):
    /// payload 1232, the client's DO bit, the extended RCODE bits, and the given options.
    mutating func addOPT(extendedRcode: UInt8 = 0, options: [UInt8] = []) {
        guard let edns = query.edns else { return }
        bytes.append(0)
        bytes.appendU16(RecordType.opt)
        bytes.appendU16(DNSLimits.ednsPayloadSize)
        bytes.append(extendedRcode)
        bytes.append(0)  // version
        bytes.appendU16(edns.dnssecOK ? 0x8000 : 0)
        bytes.appendU16(UInt16(options.count))
        bytes.append(contentsOf: options)
        bytes.setU16(bytes.u16(at: 10) + 1, at: 10)
    }

    private mutating func appendOwnedRecord(type: UInt16, ttl: UInt32, rdata: [UInt8]) {
        bytes.appendU16(0xC000 | UInt16(DNSLimits.headerSize))
        bytes.appendU16(type)
        bytes.appendU16(query.recordClass)
        bytes.appendU32(ttl)
        bytes.appendU16(UInt16(rdata.count))
        bytes.append(contentsOf: rdata)
    }
}
