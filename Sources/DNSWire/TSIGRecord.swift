/// A message's transaction signature (TSIG, RFC 8945): the last record of its additional section,
/// read in place.
public struct TSIGRecord: Sendable, Equatable {
    /// The key's name, lower-cased wire form.
    public let keyName: [UInt8]
    /// The algorithm's name, lower-cased wire form ("hmac-sha256.").
    public let algorithm: [UInt8]
    /// Seconds since the epoch, 48 bits on the wire.
    public let timeSigned: UInt64
    public let fudge: UInt16
    public let mac: [UInt8]
    public let originalID: UInt16
    public let error: UInt16
    public let otherData: [UInt8]
    /// Where the record starts: the message before it is what was signed.
    public let start: Int

    /// The message's TSIG, nil when it has none; throws when the message cannot be walked to its
    /// last record, or a TSIG is malformed or not last.
    public static func find(in packet: [UInt8]) throws(QueryProblem) -> TSIGRecord? {
        guard packet.count >= DNSLimits.headerSize else { throw .formatError }
        let questions = Int(packet.u16(at: 4))
        let records = Int(packet.u16(at: 6)) + Int(packet.u16(at: 8)) + Int(packet.u16(at: 10))
        var cursor = DNSLimits.headerSize
        for _ in 0..<questions {
            guard let end = WireName.end(in: packet, from: cursor), end + 4 <= packet.count else { throw .formatError }
            cursor = end + 4
        }
        var found: TSIGRecord?
        for index in 0..<records {
            let start = cursor
            guard let ownerEnd = WireName.end(in: packet, from: cursor), ownerEnd + 10 <= packet.count else {
                throw .formatError
            }
            let dataEnd = ownerEnd + 10 + Int(packet.u16(at: ownerEnd + 8))
            guard dataEnd <= packet.count else { throw .formatError }
            if packet.u16(at: ownerEnd) == RecordType.tsig {
                guard index == records - 1, Int(packet.u16(at: 10)) >= 1,
                    let ownerWireEnd = WireName.uncompressedEnd(in: packet, from: start), ownerWireEnd == ownerEnd
                else { throw .formatError }
                found = try read(packet, owner: start..<ownerEnd, data: ownerEnd + 10..<dataEnd, start: start)
            }
            cursor = dataEnd
        }
        return found
    }

    private static func read(
        _ packet: [UInt8], owner: Range<Int>, data: Range<Int>, start: Int
    ) throws(QueryProblem) -> TSIGRecord {
        guard let algorithmEnd = WireName.uncompressedEnd(in: packet, from: data.lowerBound),
            algorithmEnd + 10 <= data.upperBound
        else { throw .formatError }
        var cursor = algorithmEnd
        let time = UInt64(packet.u16(at: cursor)) << 32 | UInt64(packet.u32(at: cursor + 2))
        let fudge = packet.u16(at: cursor + 6)
        let macSize = Int(packet.u16(at: cursor + 8))
        cursor += 10
        guard cursor + macSize + 6 <= data.upperBound else { throw .formatError }
        let mac = Array(packet[cursor..<cursor + macSize])
        cursor += macSize
        let originalID = packet.u16(at: cursor)
        let error = packet.u16(at: cursor + 2)
        let otherSize = Int(packet.u16(at: cursor + 4))
        cursor += 6
        guard cursor + otherSize == data.upperBound else { throw .formatError }
        return TSIGRecord(
            keyName: packet[owner].map(asciiLower), algorithm: packet[data.lowerBound..<algorithmEnd].map(asciiLower),
            timeSigned: time, fudge: fudge, mac: mac, originalID: originalID, error: error,
            otherData: Array(packet[cursor..<data.upperBound]), start: start)
    }

    public init(
        keyName: [UInt8], algorithm: [UInt8], timeSigned: UInt64, fudge: UInt16, mac: [UInt8], originalID: UInt16,
        error: UInt16, otherData: [UInt8], start: Int = 0
    ) {
        self.keyName = keyName
        self.algorithm = algorithm
        self.timeSigned = timeSigned
        self.fudge = fudge
        self.mac = mac
        self.originalID = originalID
        self.error = error
        self.otherData = otherData
        self.start = start
    }

    /// The variables a MAC covers after the message (RFC 8945 4.3.3): the key's name, class ANY,
    /// TTL 0, the algorithm, the time, the fudge, the error and the other data; or, for a transfer's
    /// later messages, the time and the fudge alone.
    public func variables(timersOnly: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = []
        if !timersOnly {
            bytes += keyName
            bytes.appendU16(255)
            bytes.appendU32(0)
            bytes += algorithm
        }
        bytes.appendU16(UInt16(truncatingIfNeeded: timeSigned >> 32))
        bytes.appendU32(UInt32(truncatingIfNeeded: timeSigned))
        bytes.appendU16(fudge)
        if !timersOnly {
            bytes.appendU16(error)
            bytes.appendU16(UInt16(otherData.count))
            bytes += otherData
        }
        return bytes
    }

    /// Appends the record to `message` as its last additional record.
    public func append(to message: inout [UInt8]) {
        message += keyName
        message.appendU16(RecordType.tsig)
        message.appendU16(255)
        message.appendU32(0)
        var data = algorithm
        data.appendU16(UInt16(truncatingIfNeeded: timeSigned >> 32))
        data.appendU32(UInt32(truncatingIfNeeded: timeSigned))
        data.appendU16(fudge)
        data.appendU16(UInt16(mac.count))
        data += mac
        data.appendU16(originalID)
        data.appendU16(error)
        data.appendU16(UInt16(otherData.count))
        data += otherData
        message.appendU16(UInt16(data.count))
        message += data
        message.setU16(message.u16(at: 10) + 1, at: 10)
    }

    /// `packet` as it was before this record was added: without it, one additional record fewer,
    /// and the original id in the header.
    public func unsigned(_ packet: [UInt8]) -> [UInt8] {
        var message = Array(packet[..<start])
        message.setU16(message.u16(at: 10) - 1, at: 10)
        message.setU16(originalID, at: 0)
        return message
    }
}
