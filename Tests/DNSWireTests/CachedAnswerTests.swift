import DNSTestSupport
import Testing

@testable import DNSWire

@Suite struct CachedAnswerTests {
    let sent = LdnsBuild.query("www.test.", id: 1, ednsPayload: 1232)

    @Test func replaysWithTheClientsIdCaseAndAgedTTLs() throws {
        let reply = try #require(
            LdnsBuild.answer(to: sent, records: ["www.test. 300 IN A 192.0.2.1", "www.test. 100 IN A 192.0.2.9"]))
        let cached = try CachedAnswer(reply: reply, toQuery: sent, bounds: TTLBounds())
        #expect(cached.lifetime == 100)
        let client = try DNSQuery(packet: LdnsBuild.query("WWW.TEST.", id: 777))
        let replayed = try LdnsPacket(wire: cached.render(for: client, age: 30))
        #expect(replayed.id == 777)
        #expect(!replayed.hasEDNS)
        #expect(replayed.answerRecords == ["WWW.TEST.\t270\tIN\tA\t192.0.2.1", "WWW.TEST.\t70\tIN\tA\t192.0.2.9"])
        let capped = try LdnsPacket(wire: cached.render(for: client, age: 0, ttlCap: 5))
        #expect(capped.answerRecords.allSatisfy { $0.contains("\t5\tIN") })
    }

    @Test func knowsItsQuestionsNameInAnyCase() throws {
        let reply = try #require(LdnsBuild.answer(to: sent, records: ["www.test. 300 IN A 192.0.2.1"]))
        let cached = try CachedAnswer(reply: reply, toQuery: sent, bounds: TTLBounds())
        for (name, same) in [
            ("WWW.Test.", true), ("www.test.", true), ("www.tesu.", false), ("ww.test.", false),
            ("www.test.example.", false), ("www.", false),
        ] {
            #expect(try cached.asksForTheName(of: DNSQuery(packet: LdnsBuild.query(name))) == same, "\(name)")
        }
        let truncated = try #require(LdnsBuild.answer(to: sent, truncated: true))
        #expect(
            try !CachedAnswer(reply: truncated, toQuery: sent, bounds: TTLBounds())
                .asksForTheName(of: DNSQuery(packet: sent)))
    }

    @Test func clampsTTLsToTheBounds() throws {
        let reply = try #require(LdnsBuild.answer(to: sent, records: ["www.test. 5 IN A 192.0.2.1"]))
        let cached = try CachedAnswer(reply: reply, toQuery: sent, bounds: TTLBounds(minimum: 60, maximum: 120))
        #expect(cached.lifetime == 60)
        let long = try #require(LdnsBuild.answer(to: sent, records: ["www.test. 9000 IN A 192.0.2.1"]))
        #expect(
            try CachedAnswer(reply: long, toQuery: sent, bounds: TTLBounds(minimum: 60, maximum: 120)).lifetime == 120)
    }

    @Test func negativeLifetimeComesFromTheSOA() throws {
        let soa = "test. 300 IN SOA ns.test. hostmaster.test. 1 3600 600 86400 120"
        let nxdomain = try #require(LdnsBuild.answer(to: sent, rcode: 3, authority: [soa]))
        let cached = try CachedAnswer(reply: nxdomain, toQuery: sent, bounds: TTLBounds())
        #expect(cached.rcode == .nameError)
        #expect(cached.lifetime == 120)
        let capped = try CachedAnswer(reply: nxdomain, toQuery: sent, bounds: TTLBounds(negativeMaximum: 30))
        #expect(capped.lifetime == 30)
        let bare = try #require(LdnsBuild.answer(to: sent, rcode: 3))
        #expect(try CachedAnswer(reply: bare, toQuery: sent, bounds: TTLBounds()).lifetime == 0)
        let servfail = try #require(LdnsBuild.answer(to: sent, rcode: 2))
        #expect(try CachedAnswer(reply: servfail, toQuery: sent, bounds: TTLBounds()).lifetime == 0)
    }

    @Test func keepsEDNSForEDNSClientsWithTheirDOBit() throws {
        let reply = try #require(LdnsBuild.answer(to: sent, records: ["www.test. 300 IN A 192.0.2.1"]))
        let cached = try CachedAnswer(reply: reply, toQuery: sent, bounds: TTLBounds())
        let client = try DNSQuery(packet: LdnsBuild.query("www.test.", id: 5, ednsPayload: 4096, dnssecOK: true))
        let replayed = try LdnsPacket(wire: cached.render(for: client, age: 0))
        #expect(replayed.hasEDNS)
        #expect(replayed.dnssecOK)
        #expect(replayed.ednsUDPSize == 1232)
        let stale = try LdnsPacket(wire: cached.render(for: client, age: 9999, staleTTL: 30))
        #expect(stale.answerRecords == ["www.test.\t30\tIN\tA\t192.0.2.1"])
        #expect(stale.extendedErrors.map(\.code) == [3])
    }

    @Test func truncatesForSmallUDPClients() throws {
        let many = (1...60).map { "www.test. 300 IN A 198.51.100.\($0)" }
        let reply = try #require(LdnsBuild.answer(to: sent, records: many))
        let cached = try CachedAnswer(reply: reply, toQuery: sent, bounds: TTLBounds())
        let client = try DNSQuery(packet: LdnsBuild.query("www.test.", id: 5))
        let overUDP = try LdnsPacket(wire: cached.render(for: client, age: 0, udpLimit: client.udpSizeLimit()))
        #expect(overUDP.isTruncated)
        #expect(overUDP.answerCount == 0)
        let overTCP = try LdnsPacket(wire: cached.render(for: client, age: 0))
        #expect(overTCP.answerCount == 60)
    }

    @Test func aTruncatedReplyIsReadOnlyUpToItsQuestion() throws {
        let many = (1...10).map { "www.test. 300 IN A 198.51.100.\($0)" }
        var reply = try #require(LdnsBuild.answer(to: sent, records: many))
        reply[2] |= 0x02  // TC
        let cut = Array(reply.prefix(reply.count - 7))  // the last record is cut short, as truncation may
        let cached = try CachedAnswer(reply: cut, toQuery: sent, bounds: TTLBounds())
        #expect(cached.isTruncated)
        #expect(cached.lifetime == 0)
    }

    @Test func survivesRandomlyDamagedReplies() throws {
        var generator = SplitMix64.forTest()
        let soa = "test. 300 IN SOA ns.test. hostmaster.test. 1 3600 600 86400 120"
        let seeds = [
            try #require(
                LdnsBuild.answer(to: sent, records: ["www.test. 300 IN CNAME a.test.", "a.test. 60 IN A 192.0.2.1"])),
            try #require(LdnsBuild.answer(to: sent, rcode: 3, authority: [soa])),
        ]
        let client = try DNSQuery(packet: LdnsBuild.query("www.test.", ednsPayload: 1232))
        var accepted = 0
        for round in 0..<20_000 {
            var reply = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                reply[Int.random(in: 2..<reply.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round.isMultiple(of: 5) {
                reply = Array(reply.prefix(Int.random(in: 0...reply.count, using: &generator)))
            }
            guard let cached = try? CachedAnswer(reply: reply, toQuery: sent, bounds: TTLBounds()) else { continue }
            accepted += 1
            // whatever was accepted replays into a message ldns can read
            let replayed = cached.render(for: client, age: 5)
            #expect((try? LdnsPacket(wire: replayed)) != nil, "accepted \(reply) but replayed \(replayed)")
        }
        #expect(accepted > 0)
    }

    @Test func rejectsAnswersToAnotherQuestion() throws {
        let other = LdnsBuild.query("evil.test.", id: 1, ednsPayload: 1232)
        let reply = try #require(LdnsBuild.answer(to: other, records: ["evil.test. 300 IN A 192.0.2.66"]))
        #expect(throws: UpstreamReplyProblem.mismatchedQuestion) {
            try CachedAnswer(reply: reply, toQuery: sent, bounds: TTLBounds())
        }
        let aaaaQuery = LdnsBuild.query("www.test.", type: "AAAA", id: 1)
        let aaaaReply = try #require(LdnsBuild.answer(to: aaaaQuery))
        #expect(throws: UpstreamReplyProblem.mismatchedQuestion) {
            try CachedAnswer(reply: aaaaReply, toQuery: sent, bounds: TTLBounds())
        }
    }

    @Test func rejectsMalformedReplies() throws {
        let reply = try #require(LdnsBuild.answer(to: sent, records: ["www.test. 300 IN CNAME target.test."]))
        // point the CNAME's target at itself: a compression loop inside record data
        var looped = reply
        let targetStart = try #require(findCNAMETarget(in: looped))
        looped[targetStart] = 0xC0
        looped[targetStart + 1] = UInt8(targetStart)
        #expect(throws: UpstreamReplyProblem.self) {
            try CachedAnswer(reply: looped, toQuery: sent, bounds: TTLBounds())
        }
        #expect(throws: UpstreamReplyProblem.self) {
            try CachedAnswer(reply: Array(reply.prefix(reply.count - 20)), toQuery: sent, bounds: TTLBounds())
        }
    }

    /// ldns keeps only the last TSIG record of a message and never frees the others (a leak the
    /// fuzzer found, Fuzz/crashes/upstream-answer); lockr signs no query, so a signed answer is
    /// refused before ldns reads it.
    @Test func refusesSignedAnswers() throws {
        var reply = try #require(LdnsBuild.answer(to: sent, records: ["www.test. 300 IN A 192.0.2.1"]))
        let tsig: [UInt8] = [0, 0x00, 0xFA, 0x00, 0xFF, 0, 0, 0, 0, 0, 1, 0]
        reply += tsig + tsig
        reply[11] += 2
        #expect(throws: UpstreamReplyProblem.malformed("a TSIG record, but lockr signs no query")) {
            try CachedAnswer(reply: reply, toQuery: sent, bounds: TTLBounds())
        }
    }

    /// Offset of the first CNAME's RDATA in a reply whose question is www.test.
    private func findCNAMETarget(in reply: [UInt8]) -> Int? {
        // header 12 + question (10 name bytes + 4) + owner pointer 2 + type/class/ttl/len 10
        let start = 12 + 10 + 4 + 2 + 10
        return reply.count > start + 2 && reply[12 + 10 + 4 + 3] == 5 ? start : nil
    }
}
