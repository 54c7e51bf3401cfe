import DNSWire
import NIOCore
import Testing

@testable import DNSProxy

/// DNS-over-HTTPS requests as lockr reads them, ClientIDs, and the devices they name.
@Suite struct EncryptedServingTests {
    /// `www.example.com A`, id 0.
    static let query: [UInt8] = DNSQuery.asking("www.example.com", type: RecordType.a)!.packet

    @Test func aGetOrPostOnTheDNSQueryPathCarriesTheQueryAndItsClientID() throws {
        let encoded = "AAABAAABAAAAAAAAA3d3dwdleGFtcGxlA2NvbQAAAQAB"
        let get = try DoHRequestReader.read(
            method: "GET", target: "/dns-query?ct=x&dns=\(encoded)", contentType: nil, body: []
        ).get()
        #expect(get.clientID == nil)
        #expect(get.message.count == 33)
        let post = try DoHRequestReader.read(
            method: "POST", target: "/dns-query/Alice-Phone", contentType: "application/dns-message", body: Self.query
        ).get()
        #expect(post.message == Self.query)
        #expect(post.clientID == "alice-phone")
    }

    @Test(
        arguments: [
            ("GET", "/dns-query", "application/dns-message", 0, 400),
            ("GET", "/dns-query?dns=!!!", nil, 0, 400),
            ("GET", "/dns-query?dns=AAAA", nil, 0, 400),
            ("GET", "/other?dns=AAAA", nil, 0, 404),
            ("GET", "/dns-query/bad_id?dns=AAAA", nil, 0, 404),
            ("GET", "/dns-query/-x?dns=AAAA", nil, 0, 404),
            ("PUT", "/dns-query", "application/dns-message", 40, 405),
            ("POST", "/dns-query", "text/plain", 40, 415),
            ("POST", "/dns-query", nil, 40, 415),
            ("POST", "/dns-query", "application/dns-message", 70_000, 413),
            ("POST", "/dns-query", "application/dns-message", 5, 400),
        ] as [(String, String, String?, Int, Int)])
    func aBadRequestGetsItsStatus(method: String, target: String, contentType: String?, size: Int, status: Int) {
        let result = DoHRequestReader.read(
            method: method, target: target, contentType: contentType, body: [UInt8](repeating: 0, count: size))
        #expect(throws: DoHRequestReader.Refusal.self) { try result.get() }
        if case .failure(let refusal) = result { #expect(refusal.status == status) }
    }

    @Test func aServerNameUnderLockrsNameCarriesAClientID() {
        #expect(ClientID.inServerName("alice-phone.dns.example.com", under: "dns.example.com") == "alice-phone")
        #expect(ClientID.inServerName("Alice-Phone.DNS.example.com", under: "dns.example.com") == "alice-phone")
        #expect(ClientID.inServerName("dns.example.com", under: "dns.example.com") == nil)
        #expect(ClientID.inServerName("a.b.dns.example.com", under: "dns.example.com") == nil)
        #expect(ClientID.inServerName("alice.other.net", under: "dns.example.com") == nil)
        #expect(ClientID.inServerName("alice.dns.example.com", under: nil) == nil)
        #expect(ClientID.read(String(repeating: "a", count: 64)[...]) == nil)
    }

    @Test func aClientIDNamesItsPersonOnAnyAddressBeforeTheAddressDoes() throws {
        let directory = DeviceDirectory(devices: [
            (DeviceSpec("id:alice-phone")!, 1), (DeviceSpec("127.0.0.1")!, 2),
        ])
        let query = try DNSQuery(packet: Self.query)
        let source = try SocketAddress(ipAddress: "127.0.0.1", port: 5000)
        let byID = directory.identify(query, source: source, clientID: "alice-phone")
        #expect(byID.person == 1 && byID.identifiedBy == .clientID && byID.clientID == "alice-phone")
        #expect(directory.identify(query, source: source).person == 2)
        let unknown = directory.identify(query, source: source, clientID: "carol")
        #expect(unknown.person == 0 && unknown.identifiedBy == .clientID, "an unknown ClientID is nobody's")
        #expect(DeviceSpec("id:bad_id") == nil)
        #expect(DeviceSpec("id:alice-phone")?.description == "id:alice-phone")
    }

    @Test func theSameClientIDFromTwoAddressesIsOneDevice() {
        let sightings = DeviceSightings(capacity: 64)
        sightings.record(QueryClient(address: 1, clientID: "tablet", identifiedBy: .clientID), now: 1)
        sightings.record(QueryClient(address: 2, clientID: "tablet", identifiedBy: .clientID), now: 2)
        sightings.record(QueryClient(address: 2), now: 3)
        let seen = sightings.all()
        #expect(seen.count == 2)
        #expect(seen.first { $0.client.clientID == "tablet" }?.client.address == 2, "the latest address")
    }

    @Test func theDesignatedResolverNamesLockrsEndpointsAndNothingElse() throws {
        let designated = try #require(DesignatedResolver(name: "dns.example.com", tlsPort: 853, httpsPort: 443))
        let svcb = try DNSQuery(packet: DNSQuery.asking("_DNS.resolver.arpa", type: RecordType.svcb)!.packet)
        let answer = try #require(designated.answer(to: svcb))
        #expect(answer[7] == 2, "two records")
        let text = String(decoding: answer, as: UTF8.self)
        #expect(text.contains("dot") && text.contains("h2") && text.contains("/dns-query{?dns}"))
        let other = try DNSQuery(packet: DNSQuery.asking("_dns.resolver.arpb", type: RecordType.svcb)!.packet)
        #expect(designated.answer(to: other) == nil)
        #expect(DesignatedResolver(name: "dns.example.com", tlsPort: nil, httpsPort: nil) == nil)
    }
}
