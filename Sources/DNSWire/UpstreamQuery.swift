/// The query lockr sends upstream for a client's query: a fresh id, the client's question, RD and CD,
/// and lockr's own OPT record (payload 1232, the client's DO bit). Client EDNS options are hop-by-hop
/// and are not forwarded.
public func makeUpstreamQuery(for query: DNSQuery, id: UInt16) -> [UInt8] {
    var bytes = [UInt8]()
    bytes.reserveCapacity(query.questionEnd + 11)
    bytes.appendU16(id)
    bytes.appendU16(query.flags & (HeaderFlag.recursionDesired | HeaderFlag.checkingDisabled))
    bytes.appendU16(1)
    bytes.appendU16(0)
    bytes.appendU16(0)
    bytes.appendU16(1)
    bytes.append(contentsOf: query.packet[DNSLimits.headerSize..<query.questionEnd])
    bytes.append(0)
    bytes.appendU16(RecordType.opt)
    bytes.appendU16(DNSLimits.ednsPayloadSize)
    bytes.appendU32(query.edns?.dnssecOK == true ? 0x8000 : 0)
    bytes.appendU16(0)
    return bytes
}
