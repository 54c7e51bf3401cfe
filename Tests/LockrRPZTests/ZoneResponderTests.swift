import CLdns
import DNSProxy
import DNSTestSupport
import DNSWire
import Testing

/// What lockr answers a secondary, read back by ldns.
@Suite struct ZoneResponderTests {
    static let origin = WireName.wire(fromPresentation: "alice.rpz.lockr")!

    static func zones(serial: UInt32 = 7, triggers: Int = 2) -> ServedZones {
        let zones = ServedZones()
        let records = (0..<triggers).map { index in
            ResourceRecord(
                owner: WireName.wire(fromPresentation: "app\(index).example.alice.rpz.lockr")!, type: RecordType.cname,
                ttl: 30, rdata: [0])
        }
        zones.serve(
            ServedZone(
                origin: origin,
                soa: StartOfAuthority(
                    primary: WireName.wire(fromPresentation: "localhost")!,
                    mailbox: WireName.wire(fromPresentation: "hostmaster.alice.rpz.lockr")!, serial: serial,
                    refresh: 300,
                    retry: 60, expire: 604_800, minimum: 30), soaTTL: 30, records: records))
        return zones
    }

    /// An IXFR for the zone from a secondary that holds `serial` (its SOA in the authority section).
    static func ixfr(holding serial: UInt32) -> [UInt8] {
        var packet: UnsafeMutablePointer<ldns_pkt>?
        precondition(
            ldns_pkt_query_new_frm_str(&packet, "alice.rpz.lockr.", LDNS_RR_TYPE_IXFR, LDNS_RR_CLASS_IN, 0)
                == LDNS_STATUS_OK)
        defer { ldns_pkt_free(packet) }
        var soa: UnsafeMutablePointer<ldns_rr>?
        precondition(
            ldns_rr_new_frm_str(
                &soa, "alice.rpz.lockr. 30 IN SOA localhost. h.localhost. \(serial) 1 1 1 1", 30, nil, nil)
                == LDNS_STATUS_OK)
        ldns_pkt_push_rr(packet, LDNS_SECTION_AUTHORITY, soa)
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        precondition(ldns_pkt2wire(&bytes, packet, &size) == LDNS_STATUS_OK)
        defer { free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    func answers(_ query: [UInt8], tcp: Bool, zones: ServedZones = zones()) throws -> [LdnsPacket] {
        try ZoneResponder.answer(query, zones: zones, overTCP: tcp, now: 0).messages.map { try LdnsPacket(wire: $0) }
    }

    @Test func theSOAIsAnsweredWithAuthorityOverUDPAndTCP() throws {
        for tcp in [false, true] {
            let answers = try answers(LdnsBuild.query("ALICE.rpz.lockr.", type: "SOA"), tcp: tcp)
            #expect(answers.count == 1)
            #expect(answers[0].rcode == 0 && answers[0].isAuthoritative && answers[0].id == 0x1234)
            #expect(answers[0].answerRecords.count == 1)
            #expect(
                answers[0].answerRecords.first?.contains(
                    "SOA\tlocalhost. hostmaster.alice.rpz.lockr. 7 300 60 604800 30") == true)
        }
    }

    @Test func anAXFRIsTheWholeZoneBetweenTwoSOAsOverTCPOnly() throws {
        let query = LdnsBuild.query("alice.rpz.lockr.", type: "AXFR")
        let answers = try answers(query, tcp: true)
        let records = answers.flatMap(\.answerRecords)
        #expect(records.count == 4)
        #expect(records.first?.contains("\tSOA\t") == true && records.last?.contains("\tSOA\t") == true)
        #expect(records[1] == "app0.example.alice.rpz.lockr.\t30\tIN\tCNAME\t.")
        #expect(try self.answers(query, tcp: false).map(\.rcode) == [1], "FORMERR over UDP")
    }

    @Test func aLargeZoneComesInMessagesOfAtMost16KB() throws {
        let zones = Self.zones(triggers: 3_000)
        let messages = ZoneResponder.answer(
            LdnsBuild.query("alice.rpz.lockr.", type: "AXFR"), zones: zones, overTCP: true, now: 0
        ).messages
        #expect(messages.count > 3)
        #expect(messages.allSatisfy { $0.count <= 16_384 })
        let records = try messages.map { try LdnsPacket(wire: $0) }.flatMap(\.answerRecords)
        #expect(records.count == 3_002)
        #expect(Set(records.dropFirst().dropLast()).count == 3_000)
    }

    @Test func anIXFRGetsTheSOAAloneWhenUpToDateOrOverUDPElseTheWholeZone() throws {
        #expect(try answers(Self.ixfr(holding: 7), tcp: true).flatMap(\.answerRecords).count == 1)
        #expect(try answers(Self.ixfr(holding: 6), tcp: false).flatMap(\.answerRecords).count == 1)
        let full = try answers(Self.ixfr(holding: 6), tcp: true).flatMap(\.answerRecords)
        #expect(full.count == 4 && full.first?.contains(" 7 300 ") == true)
    }

    @Test func whatIsNotAZoneOfOursOrNotAQueryIsRefusedOrUnanswered() throws {
        #expect(try answers(LdnsBuild.query("bob.rpz.lockr.", type: "SOA"), tcp: true).map(\.rcode) == [5])
        var notify = LdnsBuild.query("alice.rpz.lockr.", type: "SOA")
        notify[2] = 0x20  // opcode NOTIFY
        #expect(try answers(notify, tcp: false).map(\.rcode) == [4], "NOTIMP")
        var response = LdnsBuild.query("alice.rpz.lockr.", type: "SOA")
        response[2] |= 0x80
        #expect(ZoneResponder.answer(response, zones: Self.zones(), overTCP: false, now: 0).messages.isEmpty)
        #expect(ZoneResponder.answer([1, 2, 3], zones: Self.zones(), overTCP: false, now: 0).messages.isEmpty)
        let noQuestion: [UInt8] = [0xAB, 0xCD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let formatError = try #require(
            ZoneResponder.answer(noQuestion, zones: Self.zones(), overTCP: true, now: 0).messages.first)
        #expect(formatError.prefix(4) == [0xAB, 0xCD, 0x84, 0x01] && formatError.count == 12)
        var brokenIXFR = Self.ixfr(holding: 6)
        brokenIXFR.removeLast(8)
        #expect(try answers(brokenIXFR, tcp: true).map(\.rcode) == [1])
    }

    @Test func anotherTypeAtTheApexGetsItsRecordsOrNone() throws {
        let answers = try answers(LdnsBuild.query("alice.rpz.lockr.", type: "A"), tcp: false)
        #expect(answers.map(\.rcode) == [0] && answers[0].answerCount == 0)
    }

    /// A version of the zone with `serial` holding a CNAME trigger for each of `names`.
    static func version(_ serial: UInt32, _ names: [String]) -> ServedZone {
        ServedZone(
            origin: origin,
            soa: StartOfAuthority(
                primary: [0], mailbox: [0], serial: serial, refresh: 300, retry: 60, expire: 604_800, minimum: 30),
            soaTTL: 30,
            records: names.map {
                ResourceRecord(
                    owner: WireName.wire(fromPresentation: "\($0).alice.rpz.lockr")!, type: RecordType.cname, ttl: 30,
                    rdata: [0])
            })
    }

    /// Each answer record as "name TYPE" or, for an SOA, "SOA serial".
    func summary(_ answers: [LdnsPacket]) -> [String] {
        answers.flatMap(\.answerRecords).map { line in
            let fields = line.split(separator: "\t")
            if fields[3] == "SOA" { return "SOA " + fields[4].split(separator: " ")[2] }
            return "\(fields[0].split(separator: ".")[0]) \(fields[3])"
        }
    }

    @Test func anIXFRFromAVersionTheJournalHoldsGetsTheDifferencesInOrder() throws {
        let zones = ServedZones()
        zones.serve(Self.version(7, ["a", "b"]))
        zones.serve(Self.version(8, ["b", "c"]))
        zones.serve(Self.version(9, ["c"]))
        #expect(
            summary(try answers(Self.ixfr(holding: 7), tcp: true, zones: zones)) == [
                "SOA 9", "SOA 7", "a CNAME", "SOA 8", "c CNAME", "SOA 8", "b CNAME", "SOA 9", "SOA 9",
            ])
        #expect(
            summary(try answers(Self.ixfr(holding: 8), tcp: true, zones: zones)) == [
                "SOA 9", "SOA 8", "b CNAME", "SOA 9", "SOA 9",
            ])
        // A version it never held, or one it no longer holds: the whole zone, AXFR-style.
        #expect(summary(try answers(Self.ixfr(holding: 5), tcp: true, zones: zones)) == ["SOA 9", "c CNAME", "SOA 9"])
        #expect(summary(try answers(Self.ixfr(holding: 9), tcp: true, zones: zones)) == ["SOA 9"], "up to date")
        // What the log says of each.
        let told = [7, 5, 9].map {
            ZoneResponder.answer(Self.ixfr(holding: $0), zones: zones, overTCP: true, now: 0).transfer?.description
        }
        #expect(
            told == [
                "alice.rpz.lockr serial 9: IXFR from serial 7, 9 records",
                "alice.rpz.lockr serial 9: IXFR answered with the whole zone, 3 records", nil,
            ])
        let axfr = ZoneResponder.answer(
            LdnsBuild.query("alice.rpz.lockr.", type: "AXFR"), zones: zones, overTCP: true, now: 0)
        #expect(axfr.transfer?.description == "alice.rpz.lockr serial 9: AXFR, 3 records")
    }

    @Test func theJournalKeepsTheLatestChangesOnly() throws {
        let zones = ServedZones()
        for serial in UInt32(1)...UInt32(ServedZones.journalLength + 10) {
            zones.serve(Self.version(serial, ["v\(serial)"]))
        }
        let newest = UInt32(ServedZones.journalLength + 10)
        let kept = newest - UInt32(ServedZones.journalLength)
        // Each change removed one name and added one: four records, between the newest SOA twice.
        #expect(
            summary(try answers(Self.ixfr(holding: kept), tcp: true, zones: zones)).count
                == 2 + 4 * ServedZones.journalLength)
        #expect(
            summary(try answers(Self.ixfr(holding: kept - 1), tcp: true, zones: zones)) == [
                "SOA \(newest)", "v\(newest) CNAME", "SOA \(newest)",
            ])
    }
}
