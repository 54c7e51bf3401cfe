import DNSTestSupport
import Testing

@testable import DNSWire

@Suite struct ResponsesTests {
    private func answer(
        _ synthesized: SynthesizedAnswer, _ type: String, edns: Bool = true, ttl: UInt32 = 42
    )
        throws -> LdnsPacket
    {
        let query = try DNSQuery(
            packet: LdnsBuild.query("Ads.Example.com.", type: type, id: 99, ednsPayload: edns ? 1232 : nil))
        let bytes = Responses.synthesized(
            synthesized, to: query, ttl: ttl, reason: ExtendedError(code: .blocked, text: "blocked by ||example.com^"))
        return try LdnsPacket(wire: bytes)
    }

    private static let null = SynthesizedAnswer.address(ipv4: [0, 0, 0, 0], ipv6: [UInt8](repeating: 0, count: 16))

    @Test func nullAnswersAAndAAAA() throws {
        let a = try answer(Self.null, "A")
        #expect(a.id == 99)
        #expect(a.rcode == 0)
        #expect(a.answerRecords == ["Ads.Example.com.\t42\tIN\tA\t0.0.0.0"])
        #expect(a.extendedErrors.map(\.code) == [15])
        #expect(a.extendedErrors.first?.text == "blocked by ||example.com^")
        let aaaa = try answer(Self.null, "AAAA")
        #expect(aaaa.answerRecords == ["Ads.Example.com.\t42\tIN\tAAAA\t::"])
    }

    @Test func otherTypesGetNoDataWithANegativeTTL() throws {
        for type in ["TXT", "HTTPS", "SVCB", "MX"] {
            let reply = try answer(Self.null, type)
            #expect(reply.rcode == 0)
            #expect(reply.answerCount == 0)
            #expect(reply.authorityRecords.count == 1)
            #expect(reply.authorityRecords.first?.contains("\tSOA\t") == true)
            #expect(reply.authorityRecords.first?.hasSuffix(" 42") == true)
        }
    }

    @Test func nxdomainRefusedAndCustomAddress() throws {
        #expect(try answer(.nameError, "A").rcode == 3)
        #expect(try answer(.refused, "A").rcode == 5)
        let custom = try answer(.address(ipv4: [192, 0, 2, 7], ipv6: nil), "A")
        #expect(custom.answerRecords.first?.hasSuffix("192.0.2.7") == true)
        #expect(try answer(.address(ipv4: [192, 0, 2, 7], ipv6: nil), "AAAA").answerCount == 0)
    }

    @Test func noOPTRecordForAClientWithoutEDNS() throws {
        let reply = try answer(Self.null, "A", edns: false)
        #expect(!reply.hasEDNS)
        #expect(reply.extendedErrors.isEmpty)
        #expect(reply.answerCount == 1)
    }

    @Test func errorAnswersEchoTheHeader() throws {
        var packet = LdnsBuild.query("a.test.", id: 0x4242)
        packet[5] = 2
        let reply = try #require(Responses.answer(toInvalid: packet, problem: .formatError))
        let parsed = try LdnsPacket(wire: reply)
        #expect(parsed.id == 0x4242)
        #expect(parsed.rcode == 1)
        #expect(Responses.answer(toInvalid: packet, problem: .unanswerable) == nil)
    }

    @Test func badVersionAndAnyAndTruncation() throws {
        let query = try DNSQuery(packet: LdnsBuild.query("a.test.", type: "ANY", ednsPayload: 1232))
        let any = try LdnsPacket(wire: Responses.minimalAny(to: query, ttl: 3600))
        #expect(any.answerRecords.first?.contains("HINFO\t\"RFC8482\" \"\"") == true)
        let badVersion = Responses.badVersion(to: query)
        // extended RCODE 1 in the OPT TTL's high byte -> BADVERS (16)
        #expect(badVersion[badVersion.count - 6] == 1)
        let truncated = try LdnsPacket(wire: Responses.truncated(to: query))
        #expect(truncated.isTruncated)
        #expect(truncated.answerCount == 0)
    }
}
