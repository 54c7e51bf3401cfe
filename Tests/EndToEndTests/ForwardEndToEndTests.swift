import DNSTestSupport
import Foundation
import Testing

/// `[[forward]]` as a home runs it: a real dnsmasq as the router, holding the names its DHCP would
/// hand out, and a public upstream that counts what it is asked.
@Suite struct ForwardEndToEndTests {
    @Test func theRoutersNamesComeFromTheRouterAndNeverReachThePublicUpstream() async throws {
        let router = try DnsmasqProcess(lines: ["host-record=printer.lan,192.168.1.20", "local=/lan/"])
        defer { router.stop() }
        let upstream = try await ScriptedUpstream()
        let config = NSTemporaryDirectory() + "lockr-e2e-forward-\(UUID()).toml"
        try """
        [[forward]]
        domains = ["lan", "168.192.in-addr.arpa"]
        servers = ["127.0.0.1:\(router.port)"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config, "--upstream", "127.0.0.1:\(upstream.port)"])
        try await stoppingAfterwards(lockr, upstream) { () async throws in
            #expect(
                try dig(lockr.port, "printer.lan", "+short").trimmingCharacters(in: .whitespacesAndNewlines)
                    == "192.168.1.20")
            #expect(try drill(lockr.port, "-x", "192.168.1.20").contains("printer.lan."))
            #expect(
                try dig(lockr.port, "nothing.lan").contains("status: NXDOMAIN"), "the router's word on its own domain")
            #expect(try dig(lockr.port, "www.test", "+short").contains("192.0.2.1"))
            #expect(try dig(lockr.port, "-x", "10.0.0.5").contains("status: NXDOMAIN"), "no forward covers 10/8")
            #expect(try dig(lockr.port, "-x", "fd00::1").contains("status: NXDOMAIN"))
            #expect(try dig(lockr.port, "phone.local").contains("status: NXDOMAIN"))
            let private_ = [
                "5.0.0.10.in-addr.arpa.", "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.d.f.ip6.arpa.",
                "phone.local.",
            ]
            for name in ["printer.lan.", "nothing.lan.", "20.1.168.192.in-addr.arpa."] + private_ {
                #expect(upstream.queries(for: name) == 0, "\(name) never leaves the home")
            }
            #expect(upstream.queries(for: "www.test.") == 1)
        }
    }

    @Test func withLocalZonesOffAPrivateReverseLookupGoesUpstream() async throws {
        let upstream = try await ScriptedUpstream()
        let config = NSTemporaryDirectory() + "lockr-e2e-local-zones-\(UUID()).toml"
        try "[upstream]\nlocal-zones = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config, "--upstream", "127.0.0.1:\(upstream.port)"])
        try await stoppingAfterwards(lockr, upstream) { () async throws in
            _ = try dig(lockr.port, "-x", "10.0.0.5")
            #expect(upstream.queries(for: "5.0.0.10.in-addr.arpa.") == 1)
        }
    }
}
