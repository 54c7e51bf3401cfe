import DNSTestSupport
import Foundation
import Testing

/// `[[forward]]` as a home runs it: a real dnsmasq as the router, holding the names its DHCP would
/// hand out, and a public upstream that counts what it is asked.
@Suite struct ForwardEndToEndTests {
    @Test func theRoutersNamesComeFromTheRouterAndNeverReachThePublicUpstream() async throws {
        let router = try await DnsmasqProcess(lines: ["host-record=printer.lan,192.168.1.20", "local=/lan/"])
        defer { router.stop() }
        let upstream = try await ScriptedUpstream()
        let config = NSTemporaryDirectory() + "lockr-e2e-forward-\(UUID()).toml"
        try """
        [[forward]]
        domains = ["lan", "168.192.in-addr.arpa"]
        servers = ["127.0.0.1:\(router.port)"]

        [[forward]]
        domains = ["corp.example"]
        servers = ["127.0.0.1:9"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config, "--upstream", "127.0.0.1:\(upstream.port)"])
        try await stoppingAfterwards(lockr, upstream) { () async throws in
            #expect(
                try await dig(lockr.port, "printer.lan", "+short").trimmingCharacters(in: .whitespacesAndNewlines)
                    == "192.168.1.20")
            #expect(try await drill(lockr.port, "-x", "192.168.1.20").contains("printer.lan."))
            #expect(
                try await dig(lockr.port, "nothing.lan").contains("status: NXDOMAIN"),
                "the router's word on its own domain")
            #expect(try await dig(lockr.port, "www.test", "+short").contains("192.0.2.1"))
            #expect(try await dig(lockr.port, "-x", "10.0.0.5").contains("status: NXDOMAIN"), "no forward covers 10/8")
            #expect(try await dig(lockr.port, "-x", "fd00::1").contains("status: NXDOMAIN"))
            #expect(try await dig(lockr.port, "phone.local").contains("status: NXDOMAIN"))
            let private_ = [
                "5.0.0.10.in-addr.arpa.", "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.",
                "phone.local.",
            ]
            for name in ["printer.lan.", "nothing.lan.", "20.1.168.192.in-addr.arpa."] + private_ {
                #expect(upstream.queries(for: name) == 0, "\(name) never leaves the home")
            }
            #expect(upstream.queries(for: "www.test.") == 1)
            let doctor = try await lockr.cli("doctor").output
            #expect(doctor.contains("ok   forward lan to 127.0.0.1:\(router.port): answers"), "\(doctor)")
            #expect(doctor.contains("FAIL forward corp.example to 127.0.0.1:9: no answer within 2 s"), "\(doctor)")
            let explained = try await lockr.cli("explain", "printer.lan", "--person", "default")
            #expect(
                explained.output.contains("the answer of 127.0.0.1:\(router.port) ([[forward]] lan)"),
                "\(explained.output)")
        }
    }

    @Test func withLocalZonesOffAPrivateReverseLookupGoesUpstream() async throws {
        let upstream = try await ScriptedUpstream()
        let config = NSTemporaryDirectory() + "lockr-e2e-local-zones-\(UUID()).toml"
        try "[upstream]\nlocal-zones = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config, "--upstream", "127.0.0.1:\(upstream.port)"])
        try await stoppingAfterwards(lockr, upstream) { () async throws in
            _ = try await dig(lockr.port, "-x", "10.0.0.5")
            #expect(upstream.queries(for: "5.0.0.10.in-addr.arpa.") == 1)
        }
    }

    @Test(
        .enabled(
            if: NetworkNamespaces.unavailable == nil,
            "needs network namespaces (root, iproute2, `ip netns add` allowed)"))
    func onAHomeNetworkTheRouterAnswersItsNamesAndThePublicUpstreamLogsNoneOfThem() async throws {
        let network = try NetworkNamespaces()
        defer { network.remove() }
        let phone = try network.addClient("p", address: "10.77.0.2", mac: "02:00:00:77:00:02")
        let server = try network.addClient("s", address: "10.77.0.10", mac: "02:00:00:77:00:10")
        let internet = try network.addBeyondRouter("i", address: "10.78.0.2")
        let asked = NSTemporaryDirectory() + "lockr-e2e-public-\(UUID()).log"
        defer { try? FileManager.default.removeItem(atPath: asked) }
        let publicDNS = try await DnsmasqProcess(
            lines: [
                "listen-address=10.78.0.2", "address=/www.example/192.0.2.1", "log-queries", "log-facility=\(asked)",
            ], namespace: internet)
        defer { publicDNS.stop() }
        // The router's DNS, holding the names its DHCP handed out (and their reverse lookups).
        let routerDNS = try await DnsmasqProcess(
            lines: ["listen-address=10.77.0.1", "host-record=printer.lan,10.77.0.20", "local=/lan/"],
            namespace: network.router)
        defer { routerDNS.stop() }
        let config = NSTemporaryDirectory() + "lockr-e2e-home-forward-\(UUID()).toml"
        try """
        [[forward]]
        domains = ["lan", "77.10.in-addr.arpa"]
        servers = ["10.77.0.1:\(routerDNS.port)"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(
            ["--config", config, "--listen", "10.77.0.10:5335", "--upstream", "10.78.0.2:\(publicDNS.port)"],
            namespace: server)
        defer { lockr.stop() }

        func ask(_ arguments: String...) throws -> String {
            try network.inside(phone, ["dig", "@10.77.0.10", "-p", "5335", "+tries=1", "+time=2"] + arguments)
        }
        #expect(try ask("+short", "printer.lan").contains("10.77.0.20"))
        #expect(try ask("+short", "-x", "10.77.0.20").contains("printer.lan."))
        #expect(try ask("-x", "192.168.5.5").contains("status: NXDOMAIN"))
        #expect(try ask("-x", "fd00::5").contains("status: NXDOMAIN"))
        #expect(try ask("+short", "www.example").contains("192.0.2.1"))
        let log = try String(contentsOfFile: asked, encoding: .utf8)
        #expect(log.contains("www.example"), "the public upstream logs what it is asked")
        #expect(!log.contains(".lan") && !log.contains("in-addr.arpa") && !log.contains("ip6.arpa"), "\(log)")
    }
}
