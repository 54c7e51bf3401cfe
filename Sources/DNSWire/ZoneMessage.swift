/// A message on a zone-transfer port, read in place: a secondary's SOA query, AXFR or IXFR
/// (RFC 5936, RFC 1995), or a secondary's answer to a NOTIFY (RFC 1996). The header, the one
/// question and, for an IXFR, the serial of the copy the secondary holds.
public struct ZoneMessage: Sendable {
    /// The message exactly as received.
    public let packet: [UInt8]
    /// The question's name in wire form, lower-cased.
    public let name: [UInt8]
    public let type: UInt16
    public let recordClass: UInt16
    /// Offset just past the question.
    public let questionEnd: Int
    /// IXFR: the serial in the SOA of its authority section, the copy the secondary holds.
    public let heldSerial: UInt32?

    /// The NOTIFY opcode (RFC 1996).
    public static let notify: UInt8 = 4

    public var id: UInt16 { packet.u16(at: 0) }
    public var isResponse: Bool { packet.u16(at: 2) & HeaderFlag.response != 0 }
    public var opcode: UInt8 { UInt8((packet.u16(at: 2) & HeaderFlag.opcodeMask) >> 11) }

    /// Reads `packet`; throws the problem that decides the answer (nothing, FORMERR).
    public init(packet: [UInt8]) throws(QueryProblem) {
        guard packet.count >= DNSLimits.headerSize else { throw .unanswerable }
        guard packet.u16(at: 4) == 1,
            let nameEnd = WireName.uncompressedEnd(in: packet, from: DNSLimits.headerSize),
            nameEnd + 4 <= packet.count
        else { throw .formatError }
        self.packet = packet
        name = packet[DNSLimits.headerSize..<nameEnd].map(asciiLower)
        type = packet.u16(at: nameEnd)
        recordClass = packet.u16(at: nameEnd + 2)
        questionEnd = nameEnd + 4
        let isQuery = packet.u16(at: 2) & HeaderFlag.response == 0
        guard isQuery, type == RecordType.ixfr else {
            heldSerial = nil
            return
        }
        // An IXFR carries the secondary's SOA, its owner often a pointer to the question.
        guard packet.u16(at: 6) == 0, packet.u16(at: 8) == 1,
            let ownerEnd = WireName.end(in: packet, from: questionEnd), ownerEnd + 10 <= packet.count,
            packet.u16(at: ownerEnd) == RecordType.soa
        else { throw .formatError }
        let dataEnd = ownerEnd + 10 + Int(packet.u16(at: ownerEnd + 8))
        // Two names of at least a byte each, then five 32-bit numbers, the serial first.
        guard dataEnd <= packet.count, dataEnd - (ownerEnd + 10) >= 22 else { throw .formatError }
        heldSerial = packet.u32(at: dataEnd - 20)
    }
}

/// The messages lockr sends as a primary: answers to secondaries' queries, a zone's transfer, and
/// NOTIFY. Every answer echoes the question and is authoritative; names are not compressed.
public enum ZoneMessages {
    /// An answer to `request` with `rcode` and `records` in its answer section.
    public static func answer(
        _ request: ZoneMessage, rcode: ResponseCode, records: some Collection<ResourceRecord> = []
    ) -> [UInt8] {
        var message = Array(request.packet[0..<request.questionEnd])
        var flags = HeaderFlag.response | HeaderFlag.authoritative | rcode.rawValue & HeaderFlag.rcodeMask
        flags |= request.packet.u16(at: 2) & HeaderFlag.opcodeMask
        message.setU16(flags, at: 2)
        message.setU16(UInt16(records.count), at: 6)
        message.setU16(0, at: 8)
        message.setU16(0, at: 10)
        for record in records { record.write(to: &message) }
        return message
    }

    /// A whole zone in answer to an AXFR, or to an IXFR answered in full (RFC 1995 section 4): the
    /// SOA, every other record, the SOA again.
    public static func transfer(
        _ request: ZoneMessage, soa: ResourceRecord, records: [ResourceRecord], limit: Int = 16_384
    ) -> [[UInt8]] {
        sequence(request, [soa] + records + [soa], limit: limit)
    }

    /// `records` in answer to `request`, in order, in messages of at most `limit` bytes.
    public static func sequence(
        _ request: ZoneMessage, _ records: [ResourceRecord], limit: Int = 16_384
    )
        -> [[UInt8]]
    {
        let header = request.questionEnd
        var messages: [[UInt8]] = []
        var batch: [ResourceRecord] = []
        var size = header
        for record in records {
            if !batch.isEmpty, size + record.wireSize > limit {
                messages.append(answer(request, rcode: .noError, records: batch))
                batch = []
                size = header
            }
            batch.append(record)
            size += record.wireSize
        }
        messages.append(answer(request, rcode: .noError, records: batch))
        return messages
    }

    /// A NOTIFY of a zone's change (RFC 1996): the zone's SOA as the question, the new SOA in the
    /// answer section.
    public static func notify(id: UInt16, soa: ResourceRecord) -> [UInt8] {
        var message: [UInt8] = []
        message.appendU16(id)
        message.appendU16(UInt16(ZoneMessage.notify) << 11 | HeaderFlag.authoritative)
        for count: UInt16 in [1, 1, 0, 0] { message.appendU16(count) }
        message += soa.owner
        message.appendU16(RecordType.soa)
        message.appendU16(RecordClass.internet)
        soa.write(to: &message)
        return message
    }
}
