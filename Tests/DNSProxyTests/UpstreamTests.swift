import DNSProxy
import NIOCore
import Testing

/// How upstreams are written: plain, DNS over TLS and DNS over HTTPS, with their errors.
@Suite struct UpstreamTests {
    static let pin = "U5ElZVvxxul3FodqME6dIXaL+IzUHdmRDogmKz5Dtts="

    @Test(arguments: [
        ("9.9.9.9", "9.9.9.9:53"),
        ("[2620:fe::fe]:5353", "[2620:fe::fe]:5353"),
        ("tls://9.9.9.9@dns.quad9.net", "tls://9.9.9.9:853@dns.quad9.net"),
        ("tls://1.1.1.1", "tls://1.1.1.1:853"),
        ("tls://[2606:4700::1111]:8853@one.one.one.one", "tls://[2606:4700::1111]:8853@one.one.one.one"),
        ("https://9.9.9.9@dns.quad9.net/dns-query", "https://9.9.9.9@dns.quad9.net/dns-query"),
        ("https://1.1.1.1/dns-query", "https://1.1.1.1/dns-query"),
        ("https://[::1]:8443/q", "https://[::1]:8443/q"),
        ("tls://9.9.9.9@dns.quad9.net#pin-sha256=\(pin)", "tls://9.9.9.9:853@dns.quad9.net#pin-sha256=\(pin)"),
        ("https://dns.quad9.net/dns-query", "https://dns.quad9.net/dns-query"),
        ("https://dns.quad9.net:8443/q#pin-sha256=\(pin)", "https://dns.quad9.net:8443/q#pin-sha256=\(pin)"),
        ("tls://dns.quad9.net", "tls://dns.quad9.net"),
        ("tls://dns.quad9.net:8853", "tls://dns.quad9.net:8853"),
    ])
    func aWrittenUpstreamReadsBackAsItWasMeant(written: String, read: String) throws {
        let upstreams = try UpstreamEntry.parse(written)
        #expect(upstreams.map(\.description) == [read])
        #expect(try UpstreamEntry.parse(read) == upstreams, "what lockr writes it reads back the same")
    }

    /// An upstream written by its name alone becomes one upstream per address found, each
    /// checking that its certificate names the host.
    @Test func anUpstreamWrittenByNameIsOneUpstreamPerAddressFound() throws {
        guard case .named(let named) = try UpstreamEntry.parse("https://dns.quad9.net/dns-query")[0] else {
            Issue.record("not an upstream written by name")
            return
        }
        #expect(named.host == "dns.quad9.net" && named.port == 443)
        let found = [
            try SocketAddress(ipAddress: "9.9.9.9", port: 0), try SocketAddress(ipAddress: "2620:fe::fe", port: 0),
        ]
        #expect(
            named.at(found).map(\.description) == [
                "https://9.9.9.9@dns.quad9.net/dns-query", "https://[2620:fe::fe]@dns.quad9.net/dns-query",
            ])
        guard case .named(let dot) = try UpstreamEntry.parse("tls://dns.quad9.net")[0] else {
            Issue.record("not an upstream written by name")
            return
        }
        #expect(
            dot.at(found).map(\.description) == [
                "tls://9.9.9.9:853@dns.quad9.net", "tls://[2620:fe::fe]:853@dns.quad9.net",
            ])
    }

    @Test func severalAddressesMakeOneUpstreamEach() throws {
        let upstreams = try UpstreamEntry.parse("https://9.9.9.9,[2620:fe::fe]@dns.quad9.net:8443/dns-query").map {
            entry -> Upstream in
            guard case .at(let upstream) = entry else { throw UpstreamSyntaxErrorExpected() }
            return upstream
        }
        #expect(upstreams.map { $0.address.port } == [8443, 8443])
        #expect(upstreams.map { $0.address.ipAddress } == ["9.9.9.9", "2620:fe::fe"])
        guard case .https(let peer, let path) = upstreams[1].transport else {
            Issue.record("not DNS over HTTPS")
            return
        }
        #expect(peer.serverName == "dns.quad9.net")
        #expect(path == "/dns-query")
        #expect(upstreams.allSatisfy { $0.isEncrypted })
        #expect(try UpstreamEntry.parse("9.9.9.9") == [.at(.plain(try SocketAddress(ipAddress: "9.9.9.9", port: 53)))])
    }

    private struct UpstreamSyntaxErrorExpected: Error {}

    @Test(arguments: [
        ("https://9.9.9.9", "no path"),
        ("https://9.9.9.9/dns-query?x=1", "without ?query"),
        ("https://1.1.1.1@9.9.9.9/dns-query", "the host is an address already"),
        ("tls://9.9.9.9@bad name", "'bad name' is not a server name"),
        ("tls://bad_name!", "'bad_name!' is neither an address nor a host name"),
        ("tls://9.9.9.9,dns.quad9.net", "'dns.quad9.net' is not an address"),
        ("tls://9.9.9.9#pin-sha256=short", "is not a SHA-256 pin"),
        ("tls://9.9.9.9#sha1=abc", "after # lockr expects pin-sha256=BASE64"),
        ("quic://9.9.9.9", "unknown scheme"),
        ("9.9.9.9:99999", "not an address"),
        ("https://9.9.9.9:0/dns-query", "bad port"),
    ])
    func aWronglyWrittenUpstreamIsRefusedWithTheReason(written: String, reason: String) {
        #expect {
            _ = try UpstreamEntry.parse(written)
        } throws: { error in
            "\(error)".contains(reason) && "\(error)".contains(written)
        }
    }
}
