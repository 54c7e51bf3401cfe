import CLdns
import DNSTestSupport
import Testing

@testable import DNSWire

@Suite struct DNSQueryTests {
    @Test func readsWhatLdnsWrote() throws {
        let packet = LdnsBuild.query("WWW.Example.COM.", type: "AAAA", id: 0xBEEF, ednsPayload: 4096, dnssecOK: true)
        let query = try DNSQuery(packet: packet)
        #expect(query.id == 0xBEEF)
        #expect(query.type == RecordType.aaaa)
        #expect(query.recordClass == RecordClass.internet)
        #expect(query.name == "www.example.com")
        #expect(query.recursionDesired)
        #expect(query.edns == EDNSInfo(udpPayloadSize: 4096, version: 0, dnssecOK: true))
        #expect(query.udpSizeLimit() == 1232)
    }

    @Test func withoutEDNSTheUDPLimitIs512() throws {
        let query = try DNSQuery(packet: LdnsBuild.query("a.test.", id: 7))
        #expect(query.edns == nil)
        #expect(query.udpSizeLimit() == 512)
    }

    @Test func agreesWithLdnsOnManyQueries() throws {
        var generator = SplitMix64.forTest()
        let types = ["A", "AAAA", "MX", "TXT", "HTTPS", "SVCB", "NS", "SOA", "PTR", "CNAME"]
        for round in 0..<500 {
            let labels = (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                String(
                    (0..<Int.random(in: 1...20, using: &generator)).map { _ in
                        "abcXYZ019-_".randomElement(using: &generator)!
                    })
            }
            let name = labels.joined(separator: ".") + "."
            let type = types[round % types.count]
            let packet = LdnsBuild.query(
                name, type: type, id: UInt16(round), ednsPayload: round.isMultiple(of: 2) ? 1400 : nil)
            let query = try DNSQuery(packet: packet)
            let oracle = try LdnsPacket(wire: packet)
            #expect(query.id == oracle.id)
            #expect(query.name == name.dropLast().lowercased())
            #expect((query.edns != nil) == oracle.hasEDNS)
            #expect(query.type == UInt16(ldns_get_rr_type_by_name(type).rawValue))
        }
    }

    @Test func dropsWhatIsNoQuery() {
        #expect(throws: QueryProblem.unanswerable) { try DNSQuery(packet: [0x12, 0x34, 0x01]) }
        var response = LdnsBuild.query("a.test.")
        response[2] |= 0x80
        #expect(throws: QueryProblem.unanswerable) { try DNSQuery(packet: response) }
    }

    @Test func rejectsOtherOpcodes() {
        var notify = LdnsBuild.query("a.test.")
        notify[2] = notify[2] & 0x87 | (4 << 3)
        #expect(throws: QueryProblem.notImplemented) { try DNSQuery(packet: notify) }
    }

    @Test func rejectsMalformedQuestions() {
        var twoQuestions = LdnsBuild.query("a.test.")
        twoQuestions[5] = 2
        #expect(throws: QueryProblem.formatError) { try DNSQuery(packet: twoQuestions) }

        // a compression pointer to itself: a loop
        let loop: [UInt8] = [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 12, 0, 1, 0, 1]
        #expect(throws: QueryProblem.formatError) { try DNSQuery(packet: loop) }

        let cut = Array(LdnsBuild.query("abc.test.").dropLast(3))
        #expect(throws: QueryProblem.formatError) { try DNSQuery(packet: cut) }

        var longLabel: [UInt8] = [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 64]
        longLabel += [UInt8](repeating: 0x61, count: 64) + [0, 0, 1, 0, 1]
        #expect(throws: QueryProblem.formatError) { try DNSQuery(packet: longLabel) }

        var withAnswer = LdnsBuild.query("a.test.")
        withAnswer[7] = 1
        #expect(throws: QueryProblem.formatError) { try DNSQuery(packet: withAnswer) }

        var badOPT = LdnsBuild.query("a.test.", ednsPayload: 1232)
        badOPT[badOPT.count - 1] = 9  // RDLENGTH past the end
        #expect(throws: QueryProblem.formatError) { try DNSQuery(packet: badOPT) }
    }

    @Test func survivesRandomMutations() {
        var generator = SplitMix64.forTest()
        let seeds = [LdnsBuild.query("www.example.com.", ednsPayload: 1232), LdnsBuild.query("a.b.", type: "TXT")]
        var parsed = 0
        for round in 0..<20_000 {
            var packet = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                packet[Int.random(in: 0..<packet.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            if round.isMultiple(of: 7) {
                packet = Array(packet.prefix(Int.random(in: 0...packet.count, using: &generator)))
            }
            if let query = try? DNSQuery(packet: packet) {
                parsed += 1
                _ = Responses.synthesized(.nameError, to: query, ttl: 1)
            } else {
                _ = Responses.answer(toInvalid: packet, problem: .formatError)
            }
        }
        #expect(parsed > 0)
    }
}
