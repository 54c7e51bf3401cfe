import CLdns

/// An ldns status turned into a Swift error with ldns's own message.
public struct LdnsError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ status: ldns_status) {
        description = String(cString: ldns_get_errorstr_by_id(status))
    }
}

/// A DNS message parsed by ldns. It owns its `ldns_pkt` and frees it when released.
///
/// lockr's hot path reads packets in place; ldns is the strict second reader for upstream replies
/// and the oracle the tests compare against.
public final class LdnsPacket {
    private let packet: UnsafeMutablePointer<ldns_pkt>

    /// Parses wire bytes; throws ldns's reason when the message or any record's data is malformed.
    public init(wire: [UInt8]) throws(LdnsError) {
        var parsed: UnsafeMutablePointer<ldns_pkt>?
        let status = wire.withUnsafeBufferPointer { ldns_wire2pkt(&parsed, $0.baseAddress, $0.count) }
        guard status == LDNS_STATUS_OK, let parsed else { throw LdnsError(status) }
        packet = parsed
    }

    deinit { ldns_pkt_free(packet) }

    public var id: UInt16 { ldns_pkt_id(packet) }
    public var rcode: UInt8 { UInt8(truncatingIfNeeded: ldns_pkt_get_rcode(packet).rawValue) }
    public var answerCount: Int { Int(ldns_pkt_ancount(packet)) }
    /// Additional records, not counting the OPT record (ldns keeps EDNS apart).
    public var additionalCount: Int { Int(ldns_pkt_arcount(packet)) }
    public var isTruncated: Bool { ldns_pkt_tc(packet) != 0 }
    public var isAuthoritative: Bool { ldns_pkt_aa(packet) != 0 }
    public var hasEDNS: Bool { ldns_pkt_edns(packet) != 0 }
    public var ednsUDPSize: UInt16 { ldns_pkt_edns_udp_size(packet) }
    public var dnssecOK: Bool { ldns_pkt_edns_do(packet) != 0 }

    /// The answer section in ldns's presentation format, one record per element.
    public var answerRecords: [String] { Self.records(of: ldns_pkt_answer(packet)) }
    /// The authority section in ldns's presentation format.
    public var authorityRecords: [String] { Self.records(of: ldns_pkt_authority(packet)) }

    /// The Extended DNS Error options (info-code, text) of the OPT record.
    public var extendedErrors: [(code: UInt16, text: String)] {
        guard let list = ldns_pkt_edns_get_option_list(packet) else { return [] }
        var found: [(UInt16, String)] = []
        for index in 0..<ldns_edns_option_list_get_count(list) {
            guard let option = ldns_edns_option_list_get_option(list, index),
                ldns_edns_get_code(option).rawValue == 15, ldns_edns_get_size(option) >= 2,
                let data = ldns_edns_get_data(option)
            else { continue }
            let bytes = UnsafeBufferPointer(start: data, count: ldns_edns_get_size(option))
            let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            found.append((code, String(decoding: bytes.dropFirst(2), as: UTF8.self)))
        }
        return found
    }

    /// The message encoded anew by ldns: the same records, with name compression that ldns made
    /// (every pointer aims back at a name it wrote), nothing after the last record.
    public func wire() throws(LdnsError) -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = ldns_pkt2wire(&bytes, packet, &size)
        guard status == LDNS_STATUS_OK, let bytes else { throw LdnsError(status) }
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// The answer section's records, each whole in wire form with no compression (so each stands on
    /// its own in another message).
    public var answerWire: [[UInt8]] { Self.wireRecords(of: ldns_pkt_answer(packet), in: LDNS_SECTION_ANSWER) }
    /// The authority section's records, each whole in wire form with no compression.
    public var authorityWire: [[UInt8]] {
        Self.wireRecords(of: ldns_pkt_authority(packet), in: LDNS_SECTION_AUTHORITY)
    }

    private static func wireRecords(
        of list: UnsafeMutablePointer<ldns_rr_list>?, in section: ldns_pkt_section
    )
        -> [[UInt8]]
    {
        guard let list else { return [] }
        return (0..<ldns_rr_list_rr_count(list)).compactMap { index in
            var bytes: UnsafeMutablePointer<UInt8>?
            var size = 0
            guard ldns_rr2wire(&bytes, ldns_rr_list_rr(list, index), Int32(section.rawValue), &size) == LDNS_STATUS_OK,
                let bytes
            else { return nil }
            defer { free(bytes) }
            return Array(UnsafeBufferPointer(start: bytes, count: size))
        }
    }

    private static func records(of list: UnsafeMutablePointer<ldns_rr_list>?) -> [String] {
        guard let list else { return [] }
        return (0..<ldns_rr_list_rr_count(list)).map { index in
            string(ldns_rr2str(ldns_rr_list_rr(list, index))).trimmingSuffix("\n")
        }
    }

    /// A record in wire form (its names uncompressed) as a zone file's line, as ldns writes it;
    /// nil when ldns cannot read it.
    static func presentation(ofRecord wire: [UInt8]) -> String? {
        var record: UnsafeMutablePointer<ldns_rr>?
        var position = 0
        let status = wire.withUnsafeBufferPointer {
            ldns_wire2rr(&record, $0.baseAddress, $0.count, &position, LDNS_SECTION_ANSWER)
        }
        guard status == LDNS_STATUS_OK, let record else { return nil }
        defer { ldns_rr_free(record) }
        return string(ldns_rr2str(record)).trimmingSuffix("\n")
    }

    private static func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
