import DNSTestSupport
import Foundation
import Testing

/// The README's set-ups for a Pi-hole in front of lockr, through a real dnsmasq (Pi-hole's FTL is a
/// fork of it and takes the same lines): an open app's answers must reach clients with lockr's TTL,
/// not the upstream's, so that a relock reaches them as soon as through lockr's own DNS.
@Suite struct PiHoleSetUpEndToEndTests {
    /// The TTL of the first A record in dig's answer for `name` through `port`, and its address.
    func answer(_ name: String, _ port: Int) async throws -> (ttl: Int, address: String)? {
        let output = try await dig(port, name, "A", "+noall", "+answer")
        guard let line = output.split(separator: "\n").first(where: { $0.contains("\tA\t") }) else { return nil }
        let fields = line.split(whereSeparator: { $0 == "\t" || $0 == " " })
        guard fields.count >= 5, let ttl = Int(fields[1]) else { return nil }
        return (ttl, String(fields[4]))
    }

    @Test func theDocumentedLinesBringLockrsTTLAndTheRelockThroughDnsmasq() async throws {
        let upstream = try await ScriptedUpstream(records: ["tiktok.com.": ["tiktok.com. 300 IN A 192.0.2.21"]])
        let configPath = NSTemporaryDirectory() + "lockr-e2e-pihole-\(UUID()).toml"
        defer { try? FileManager.default.removeItem(atPath: configPath) }
        try "guard = [\"tiktok\"]\n[policy]\nmode = \"time\"\nmax-ttl = 3\n".write(
            toFile: configPath, atomically: true, encoding: .utf8)
        let lockr = try await LockrProcess(["--config", configPath, "--upstream", "127.0.0.1:\(upstream.port)"])
        try await stoppingAfterwards(lockr, upstream) {
            let everything = "server=127.0.0.1#\(upstream.port)"
            // As Pi-hole is: the upstream's TTL reaches the client.
            let plain = try await DnsmasqProcess(lines: [everything])
            defer { plain.stop() }
            #expect(try await answer("tiktok.com", plain.port)?.ttl == 300)
            // Capped: no answer lives longer than 30 s in a client.
            let capped = try await DnsmasqProcess(lines: [everything, "max-ttl=30"])
            defer { capped.stop() }
            #expect(
                try await answer("tiktok.com", capped.port).map { $0.ttl <= 30 && $0.address == "192.0.2.21" } == true)
            // The app's domains forwarded to lockr: lockr's clamp, and lockr's relock.
            let forwarded = try await DnsmasqProcess(lines: ["server=/tiktok.com/127.0.0.1#\(lockr.port)", everything])
            defer { forwarded.stop() }
            let open = try #require(try await answer("tiktok.com", forwarded.port))
            #expect(open.address == "192.0.2.21" && open.ttl <= 3, "\(open)")
            #expect(try await lockr.cli("mode", "extreme").status == 0)
            let locked = Date()
            while try await answer("tiktok.com", forwarded.port)?.address != "0.0.0.0",
                Date().timeIntervalSince(locked) < 60
            {
                try await Task.sleep(for: .milliseconds(100))
            }
            let seconds = Date().timeIntervalSince(locked)
            #expect(try await answer("tiktok.com", forwarded.port)?.address == "0.0.0.0")
            // The cached open answer lives at most lockr's 3 s; the rest is slack for a loaded machine
            // (each check spawns dig, the whole suite runs beside), still far below the upstream's 300 s
            // that dnsmasq would keep without lockr's clamp.
            #expect(seconds <= 30, "the relock took \(seconds) s through dnsmasq; lockr's TTL is 3 s")
        }
    }
}
