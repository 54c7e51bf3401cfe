import DNSTestSupport
import DNSWire
import Testing

@testable import DNSProxy

/// The zones answered here, never upstream (RFC 6303 and the special-use domains).
@Suite struct LocallyServedZonesTests {
    func answer(_ name: String, _ type: String = "PTR", forwarded: [String] = []) throws -> LdnsPacket? {
        let query = try DNSQuery(packet: LdnsBuild.query(name, type: type))
        return try LocallyServedZones(forwarded: forwarded).answer(to: query).map { try LdnsPacket(wire: $0) }
    }

    @Test(arguments: [
        "5.0.0.10.in-addr.arpa.", "1.1.16.172.in-addr.arpa.", "9.9.31.172.in-addr.arpa.", "20.1.168.192.in-addr.arpa.",
        "1.0.64.100.in-addr.arpa.", "3.2.254.169.in-addr.arpa.", "1.0.0.127.in-addr.arpa.",
        "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.", "b.e.f.ip6.arpa.",
        "Printer.Local.", "router.home.arpa.", "x.onion.", "anything.invalid.",
    ])
    func aPrivateNameGetsNXDOMAINWithAnSOA(name: String) throws {
        let reply = try #require(try answer(name))
        if name == "b.e.f.ip6.arpa." {
            #expect(reply.rcode == 0, "the zone's own name exists: NODATA")
        } else {
            #expect(reply.rcode == 3)
        }
        #expect(reply.answerRecords.isEmpty && reply.authorityRecords.first?.contains("SOA") == true)
    }

    @Test(arguments: [
        "8.8.8.8.in-addr.arpa.", "1.1.15.172.in-addr.arpa.", "1.1.32.172.in-addr.arpa.", "1.0.128.100.in-addr.arpa.",
        "www.example.com.", "local.example.com.", "c.f.ip6.arpa.", "arpa.", "in-addr.arpa.",
    ])
    func aPublicNameIsNotOurs(name: String) throws {
        #expect(try answer(name) == nil)
    }

    @Test func aForwardedDomainGoesToItsServers() throws {
        let forwarded = ["1.168.192.in-addr.arpa", "home.arpa"]
        #expect(try answer("20.1.168.192.in-addr.arpa.", forwarded: forwarded) == nil)
        #expect(try answer("nas.home.arpa.", "A", forwarded: forwarded) == nil)
        #expect(try answer("20.2.168.192.in-addr.arpa.", forwarded: forwarded)?.rcode == 3, "another subnet")
    }
}
