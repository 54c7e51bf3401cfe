import CLdns

/// Builds test messages with ldns, independently of lockr's own wire code.
public enum LdnsBuild {
    /// A query for `name`/`type` (presentation forms: "www.test.", "AAAA") with RD set.
    /// - Parameters:
    ///   - ednsPayload: adds an OPT record with this UDP size when set.
    ///   - dnssecOK: sets the DO bit (needs `ednsPayload`).
    public static func query(
        _ name: String,
        type: String = "A",
        id: UInt16 = 0x1234,
        ednsPayload: UInt16? = nil,
        dnssecOK: Bool = false
    ) -> [UInt8] {
        var packet: UnsafeMutablePointer<ldns_pkt>?
        let status = ldns_pkt_query_new_frm_str(
            &packet, name, ldns_get_rr_type_by_name(type), LDNS_RR_CLASS_IN, UInt16(LDNS_RD))
        precondition(status == LDNS_STATUS_OK, "ldns cannot build a query for \(name) \(type)")
        defer { ldns_pkt_free(packet) }
        ldns_pkt_set_id(packet, id)
        if let ednsPayload {
            ldns_pkt_set_edns_udp_size(packet, ednsPayload)
            ldns_pkt_set_edns_do(packet, dnssecOK ? 1 : 0)
            // ldns writes an OPT record only when some EDNS field is non-default; the payload is.
        }
        return wire(packet!)
    }

    /// A query for `name` with an OPT record (payload 1232) holding `options` (code, data).
    public static func query(_ name: String, options: [(code: UInt16, data: [UInt8])]) -> [UInt8] {
        let packet = query(name, ednsPayload: 1232)
        var rdata: [UInt8] = []
        for option in options {
            rdata += [UInt8(option.code >> 8), UInt8(option.code & 0xFF)]
            rdata += [UInt8(option.data.count >> 8), UInt8(option.data.count & 0xFF)] + option.data
        }
        // The OPT record is the last one, its RDLENGTH the packet's last two bytes.
        return Array(packet[..<(packet.count - 2)]) + [UInt8(rdata.count >> 8), UInt8(rdata.count & 0xFF)] + rdata
    }

    /// The answer to `query` with `records` (presentation lines "www.test. 300 IN A 192.0.2.1") in
    /// the answer section, `authority` in the authority section, and the given rcode.
    public static func answer(
        to query: [UInt8],
        rcode: UInt8 = 0,
        records: [String] = [],
        authority: [String] = [],
        truncated: Bool = false
    ) -> [UInt8]? {
        var parsed: UnsafeMutablePointer<ldns_pkt>?
        guard query.withUnsafeBufferPointer({ ldns_wire2pkt(&parsed, $0.baseAddress, $0.count) }) == LDNS_STATUS_OK,
            let request = parsed
        else { return nil }
        defer { ldns_pkt_free(request) }
        let reply = ldns_pkt_new()!
        defer { ldns_pkt_free(reply) }
        ldns_pkt_set_id(reply, ldns_pkt_id(request))
        ldns_pkt_set_qr(reply, 1)
        ldns_pkt_set_rd(reply, ldns_pkt_rd(request))
        ldns_pkt_set_ra(reply, 1)
        ldns_pkt_set_tc(reply, truncated ? 1 : 0)
        ldns_pkt_set_rcode(reply, rcode)
        if let question = ldns_pkt_question(request), ldns_rr_list_rr_count(question) > 0 {
            ldns_pkt_push_rr(reply, LDNS_SECTION_QUESTION, ldns_rr_clone(ldns_rr_list_rr(question, 0)))
        }
        for (section, lines) in [(LDNS_SECTION_ANSWER, records), (LDNS_SECTION_AUTHORITY, authority)] where !truncated {
            for line in lines {
                var record: UnsafeMutablePointer<ldns_rr>?
                precondition(ldns_rr_new_frm_str(&record, line, 3600, nil, nil) == LDNS_STATUS_OK, "bad record \(line)")
                ldns_pkt_push_rr(reply, section, record)
            }
        }
        if ldns_pkt_edns(request) != 0 {
            ldns_pkt_set_edns_udp_size(reply, 1232)
            ldns_pkt_set_edns_do(reply, ldns_pkt_edns_do(request))
        }
        return wire(reply)
    }

    private static func wire(_ packet: UnsafeMutablePointer<ldns_pkt>) -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        precondition(ldns_pkt2wire(&bytes, packet, &size) == LDNS_STATUS_OK)
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}
