import DNSTestSupport
import Testing

@testable import DNSWire

@Suite struct UpstreamQueryTests {
    @Test func carriesTheQuestionAFreshIdAndLockrsOwnOPT() throws {
        let withDO = try DNSQuery(
            packet: LdnsBuild.query("Www.Test.", type: "AAAA", id: 1, ednsPayload: 4096, dnssecOK: true))
        let sent = try LdnsPacket(wire: makeUpstreamQuery(for: withDO, id: 0xABCD))
        #expect(sent.id == 0xABCD)
        #expect(sent.hasEDNS)
        #expect(sent.ednsUDPSize == 1232)
        #expect(sent.dnssecOK)
        let sentQuery = try DNSQuery(packet: makeUpstreamQuery(for: withDO, id: 7))
        #expect(sentQuery.wireName == withDO.wireName, "the client's letter case goes upstream as it is")
        #expect(sentQuery.type == withDO.type)
        #expect(sentQuery.recursionDesired)

        let plain = try DNSQuery(packet: LdnsBuild.query("www.test.", id: 2))
        let plainSent = try LdnsPacket(wire: makeUpstreamQuery(for: plain, id: 9))
        #expect(plainSent.hasEDNS, "lockr always asks with EDNS, so answers up to 1232 bytes come over UDP")
        #expect(!plainSent.dnssecOK)
    }
}
