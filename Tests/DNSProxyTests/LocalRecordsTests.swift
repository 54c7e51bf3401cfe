import DNSTestSupport
import DNSWire
import Testing

@testable import DNSProxy

/// The home's own names answered with authority: the type asked, a CNAME followed, NODATA.
@Suite struct LocalRecordsTests {
    let table = LocalRecords(
        [
            "nas.home.arpa A 192.168.1.5", "nas.home.arpa 60 TXT \"the nas\"", "printer.lan CNAME print.lan",
            "print.lan CNAME nas.home.arpa",
        ].map { try! LocalRecord($0) }, ttl: 300)

    func answer(_ name: String, _ type: String = "A") throws -> LdnsPacket? {
        try table.answer(to: try DNSQuery(packet: LdnsBuild.query(name, type: type))).map { try LdnsPacket(wire: $0) }
    }

    @Test func theTypeAskedIsAnsweredWithAuthorityInAnyLetterCase() throws {
        let reply = try #require(try answer("NAS.Home.Arpa."))
        #expect(reply.rcode == 0 && reply.isAuthoritative)
        #expect(reply.answerRecords == ["NAS.Home.Arpa.\t300\tIN\tA\t192.168.1.5"])
        #expect(try answer("nas.home.arpa.", "TXT")?.answerRecords == ["nas.home.arpa.\t60\tIN\tTXT\t\"the nas\""])
    }

    @Test func anotherTypeIsNODATAWithAnSOA() throws {
        let reply = try #require(try answer("nas.home.arpa.", "AAAA"))
        #expect(
            reply.rcode == 0 && reply.answerRecords.isEmpty && reply.authorityRecords.first?.contains("SOA") == true)
    }

    @Test func aCNAMEIsFollowedThroughTheHomesNames() throws {
        let reply = try #require(try answer("printer.lan."))
        #expect(
            reply.answerRecords == [
                "printer.lan.\t300\tIN\tCNAME\tprint.lan.", "print.lan.\t300\tIN\tCNAME\tnas.home.arpa.",
                "nas.home.arpa.\t300\tIN\tA\t192.168.1.5",
            ])
        #expect(try answer("printer.lan.", "CNAME")?.answerRecords == ["printer.lan.\t300\tIN\tCNAME\tprint.lan."])
    }

    @Test func aNameWithoutRecordsIsNotOurs() throws {
        #expect(try answer("other.home.arpa.") == nil && answer("home.arpa.") == nil)
        #expect(LocalRecords([], ttl: 300).isEmpty)
    }

    @Test func aCNAMEToANameWithoutRecordsIsAProblem() throws {
        let problems = LocalRecords.problems([try LocalRecord("tv.lan CNAME television.lan")])
        #expect(problems == ["the CNAME of tv.lan points to television.lan, which no local record defines"])
    }
}
