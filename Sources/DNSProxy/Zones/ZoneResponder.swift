import DNSWire

/// What a primary answers a secondary (pure): the SOA of a served zone, the zone whole over TCP
/// (AXFR), the changes since the secondary's version (IXFR, from the zone's journal; the whole zone
/// when the journal does not reach back to it, as RFC 1995 section 4 allows), the SOA alone to an
/// IXFR from a secondary that is up to date or that asked over UDP (so that it asks again over TCP). A name
/// lockr does not serve is REFUSED, another opcode NOTIMP; a response, or bytes too short for a
/// header, get nothing.
public enum ZoneResponder {
    /// The messages that answer `packet` at `now` (seconds since the epoch), and the transfer they
    /// make, if they make one. With a key in `signing`, a signed request is verified and its answer
    /// signed (RFC 8945): a key lockr does not hold or a wrong signature gets NOTAUTH; a request
    /// unsigned where signing is required, REFUSED.
    public static func answer(
        _ packet: [UInt8], zones: ServedZones, overTCP: Bool, signing: ZoneSigning = .none, now: UInt64
    ) -> ZoneReply {
        switch signing.check(packet, now: now) {
        case .unsigned: return answer(packet, zones: zones, overTCP: overTCP)
        case .refused(let answer): return ZoneReply([answer])
        case .malformed:
            guard packet.count >= DNSLimits.headerSize, packet[2] & 0x80 == 0 else { return ZoneReply() }
            return ZoneReply([formatError(packet)])
        case .signed(let request, var signer):
            let reply = answer(request, zones: zones, overTCP: overTCP)
            return ZoneReply(reply.messages.map { signer.sign($0) }, transfer: reply.transfer)
        }
    }

    private static func answer(_ packet: [UInt8], zones: ServedZones, overTCP: Bool) -> ZoneReply {
        let request: ZoneMessage
        do {
            request = try ZoneMessage(packet: packet)
        } catch {
            guard error == .formatError, packet.count >= DNSLimits.headerSize,
                packet[2] & 0x80 == 0
            else { return ZoneReply() }
            return ZoneReply([formatError(packet)])
        }
        guard !request.isResponse else { return ZoneReply() }
        guard request.opcode == 0 else { return ZoneReply([ZoneMessages.answer(request, rcode: .notImplemented)]) }
        guard request.recordClass == RecordClass.internet, let zone = zones.zone(request.name) else {
            return ZoneReply([ZoneMessages.answer(request, rcode: .refused)])
        }
        switch request.type {
        case RecordType.soa:
            return ZoneReply([ZoneMessages.answer(request, rcode: .noError, records: [zone.soaRecord])])
        case RecordType.axfr:
            guard overTCP else { return ZoneReply([ZoneMessages.answer(request, rcode: .formatError)]) }
            return whole(zone, request, as: "AXFR")
        case RecordType.ixfr:
            if !overTCP || request.heldSerial == zone.serial {
                return ZoneReply([ZoneMessages.answer(request, rcode: .noError, records: [zone.soaRecord])])
            }
            if let held = request.heldSerial, let changes = zone.changes(since: held) {
                let records = [zone.soaRecord] + changes + [zone.soaRecord]
                return ZoneReply(
                    ZoneMessages.sequence(request, records),
                    transfer: ZoneTransfer(zone: zone, kind: "IXFR from serial \(held)", records: records.count))
            }
            return whole(zone, request, as: "IXFR answered with the whole zone")
        default:
            let found = zone.records.filter { $0.owner == zone.origin && $0.type == request.type }
            return ZoneReply([ZoneMessages.answer(request, rcode: .noError, records: found)])
        }
    }

    private static func whole(_ zone: ServedZone, _ request: ZoneMessage, as kind: String) -> ZoneReply {
        ZoneReply(
            ZoneMessages.transfer(request, soa: zone.soaRecord, records: zone.records),
            transfer: ZoneTransfer(zone: zone, kind: kind, records: zone.records.count + 2))
    }

    /// FORMERR for a message whose question cannot be read: the header alone.
    private static func formatError(_ packet: [UInt8]) -> [UInt8] {
        var message = Array(packet[0..<DNSLimits.headerSize])
        message[2] = 0x80 | message[2] & 0x78 | 0x04
        message[3] = UInt8(ResponseCode.formatError.rawValue)
        for index in 4..<DNSLimits.headerSize { message[index] = 0 }
        return message
    }
}

/// What `ZoneResponder` answers one message with.
public struct ZoneReply: Sendable {
    public let messages: [[UInt8]]
    /// The transfer the messages make, when they make one.
    public let transfer: ZoneTransfer?

    init(_ messages: [[UInt8]] = [], transfer: ZoneTransfer? = nil) {
        self.messages = messages
        self.transfer = transfer
    }
}

/// A zone transfer, as the log tells it.
public struct ZoneTransfer: Sendable, CustomStringConvertible {
    public let zone: String
    public let serial: UInt32
    /// "AXFR", "IXFR from serial N", or "IXFR answered with the whole zone".
    public let kind: String
    public let records: Int

    init(zone: ServedZone, kind: String, records: Int) {
        self.zone = WireName.presentation(of: zone.origin)
        serial = zone.serial
        self.kind = kind
        self.records = records
    }

    public var description: String { "\(zone) serial \(serial): \(kind), \(records) records" }
}
