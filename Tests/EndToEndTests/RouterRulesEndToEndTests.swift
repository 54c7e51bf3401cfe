import DNSTestSupport
import Foundation
import Testing

/// deploy/nftables/lockr.nft on a router the test builds in network namespaces: a router running
/// the rules and lockr, a client of a guarded person, one of an unguarded person, and a "rogue"
/// resolver beyond the router, over IPv4 and IPv6. Whatever resolver a guarded device names, lockr
/// answers it (its EDE says so), a DNS-over-HTTPS service's name is NXDOMAIN, its DNS over TLS and
/// its HTTPS to a DNS-over-HTTPS address are dropped; the unguarded device reaches the rogue
/// untouched.
@Suite(.serialized) struct RouterRulesEndToEndTests {
    static let rules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/nftables/lockr.nft").path

    @Test func theRulesFileChecks() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft") else {
            Issue.record("nftables is not installed (apt-get install nftables)")
            return
        }
        let checked = try await runAwaited("/usr/sbin/nft", ["-c", "-f", Self.rules])
        #expect(checked.status == 0, "\(checked.output)")
    }

    /// Runs `arguments` in namespace `device` without holding a concurrency thread while it waits
    /// (a dropped connection waits its whole timeout): its output.
    func inside(_ device: String, _ arguments: [String]) async throws -> String {
        try await runAwaited(NetworkNamespaces.ip, ["netns", "exec", device] + arguments).output
    }

    /// Connects over TCP from `source` to `target` (IPv4 or IPv6) in namespace `device`:
    /// "connected" or why not.
    func connect(from device: String, source: String, to target: String, port: Int) async throws -> String {
        let family = target.contains(":") ? "socket.AF_INET6" : "socket.AF_INET"
        let script = """
            import socket
            s = socket.socket(\(family)); s.settimeout(2); s.bind(("\(source)", 0))
            try:
                s.connect(("\(target)", \(port))); print("connected")
            except Exception as error:
                print(type(error).__name__)
            """
        return try await inside(device, ["python3", "-c", script]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(
        .enabled(
            if: NetworkNamespaces.unavailable == nil && FileManager.default.isExecutableFile(atPath: "/usr/sbin/nft"),
            "needs network namespaces and nftables"))
    func aGuardedDevicesDNSGoesToLockrWhateverItNamesAndItsDoTIsDropped() async throws {
        let network = try NetworkNamespaces()
        defer { network.remove() }
        let client = try network.addClient("c", address: "10.77.0.2", mac: "02:00:00:78:00:02")
        try network.inside(client, ["ip", "addr", "add", "10.77.0.3/24", "dev", "eth0"])  // an unguarded person's device
        let rogue = try network.addBeyondRouter("g", address: "10.78.0.2")
        // IPv6 beside IPv4: the LAN fd77::/64 (the guarded device ::2, the unguarded ::3), beyond
        // the router fd78::/64. The rogue host also answers at Google's DNS-over-HTTPS addresses.
        let ipv6: [(String, [String])] = [
            (network.router, ["ip", "addr", "add", "fd77::1/64", "dev", "lan0", "nodad"]),
            (network.router, ["ip", "addr", "add", "fd78::1/64", "dev", "wan0", "nodad"]),
            (network.router, ["sysctl", "-q", "-w", "net.ipv6.conf.all.forwarding=1"]),
            (network.router, ["ip", "route", "add", "8.8.8.8/32", "via", "10.78.0.2"]),
            (network.router, ["ip", "route", "add", "2001:4860:4860::8888/128", "via", "fd78::2"]),
            (client, ["ip", "addr", "add", "fd77::2/64", "dev", "eth0", "nodad"]),
            (client, ["ip", "addr", "add", "fd77::3/64", "dev", "eth0", "nodad"]),
            (client, ["ip", "route", "add", "default", "via", "fd77::1"]),
            (rogue, ["ip", "addr", "add", "fd78::2/64", "dev", "eth0", "nodad"]),
            (rogue, ["ip", "addr", "add", "8.8.8.8/32", "dev", "lo"]),
            (rogue, ["ip", "addr", "add", "2001:4860:4860::8888/128", "dev", "lo"]),
            (rogue, ["ip", "route", "add", "default", "via", "fd78::1"]),
        ]
        for (device, command) in ipv6 { try network.inside(device, command) }
        let resolver = try await DnsmasqProcess(
            lines: ["listen-address=10.78.0.2,fd78::2", "address=/tiktok.com/203.0.113.66"], namespace: rogue, port: 53)
        defer { resolver.stop() }
        // Something listening, on every address, where DNS over TLS and HTTPS would be, and on
        // another port as a control.
        let listener = """
            import socket, threading
            def listen(port):
                s = socket.socket(socket.AF_INET6); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                s.bind(("::", port)); s.listen()
                return s
            def serve(s):
                while True: s.accept()[0].close()
            for s in [listen(port) for port in (853, 443, 8443)]:
                threading.Thread(target=serve, args=(s,), daemon=True).start()
            print("listening", flush=True)
            threading.Event().wait(120)
            """
        let listening = Process()
        listening.executableURL = URL(fileURLWithPath: NetworkNamespaces.ip)
        listening.arguments = ["netns", "exec", rogue, "python3", "-c", listener]
        let started = Pipe()
        listening.standardOutput = started
        try listening.run()
        defer { listening.terminate() }
        _ = started.fileHandleForReading.availableData  // "listening", once every port is bound

        let rules = try String(contentsOfFile: Self.rules, encoding: .utf8)
            .replacingOccurrences(of: "define lan = \"br-lan\"", with: "define lan = \"lan0\"")
            .replacingOccurrences(of: "define lockr_ipv4 = 192.168.1.1", with: "define lockr_ipv4 = 10.77.0.1")
            .replacingOccurrences(of: "define lockr_ipv6 = fd00::1", with: "define lockr_ipv6 = fd77::1")
        let rulesPath = NSTemporaryDirectory() + "lockr-rules-\(UUID()).nft"
        try rules.write(toFile: rulesPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: rulesPath) }
        try network.inside(network.router, ["nft", "-f", rulesPath])
        try network.inside(
            network.router, ["nft", "add", "element", "inet", "lockr", "unguarded_ipv4", "{ 10.77.0.3 }"])
        try network.inside(network.router, ["nft", "add", "element", "inet", "lockr", "unguarded_ipv6", "{ fd77::3 }"])

        let config = NSTemporaryDirectory() + "lockr-rules-\(UUID()).toml"
        try "guard = [\"tiktok\"]\n[policy]\nmode = \"hourly\"\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(
            [
                "--config", config, "--listen", "10.77.0.1:5335", "--listen", "[fd77::1]:5335", "--upstream",
                "10.78.0.2",
            ],
            namespace: network.router)
        defer { lockr.stop() }

        // The guarded device asks the rogue resolver: lockr answers, and says why.
        let asked = try await inside(
            client, ["dig", "-b", "10.77.0.2", "@10.78.0.2", "+tries=1", "+time=2", "tiktok.com", "A"])
        #expect(
            asked.contains("0.0.0.0") && asked.contains("EDE: 15 (Blocked)") && asked.contains("tiktok"), "\(asked)")
        // Over TCP too.
        let overTCP = try await inside(
            client,
            ["dig", "+tcp", "-b", "10.77.0.2", "@10.78.0.2", "+tries=1", "+time=2", "+short", "tiktok.com", "A"])
        #expect(overTCP.contains("0.0.0.0"), "\(overTCP)")
        // A DNS-over-HTTPS service's name: NXDOMAIN from lockr, which says why.
        let doh = try await inside(
            client, ["dig", "-b", "10.77.0.2", "@10.78.0.2", "+tries=1", "+time=2", "dns.google", "A"])
        #expect(doh.contains("status: NXDOMAIN") && doh.contains("DNS-over-HTTPS service"), "\(doh)")
        // Its DNS over TLS is dropped; another port of the same host is not.
        #expect(try await connect(from: client, source: "10.77.0.2", to: "10.78.0.2", port: 853) != "connected")
        #expect(try await connect(from: client, source: "10.77.0.2", to: "10.78.0.2", port: 8443) == "connected")
        // The unguarded device reaches the rogue untouched.
        let free = try await inside(
            client, ["dig", "-b", "10.77.0.3", "@10.78.0.2", "+tries=1", "+time=2", "+short", "tiktok.com", "A"])
        #expect(free.contains("203.0.113.66"), "\(free)")
        #expect(try await connect(from: client, source: "10.77.0.3", to: "10.78.0.2", port: 853) == "connected")
        // HTTPS to a known DNS-over-HTTPS address is dropped for the guarded device only.
        #expect(try await connect(from: client, source: "10.77.0.2", to: "8.8.8.8", port: 443) != "connected")
        #expect(try await connect(from: client, source: "10.77.0.3", to: "8.8.8.8", port: 443) == "connected")

        // The same over IPv6.
        let asked6 = try await inside(
            client, ["dig", "-b", "fd77::2", "@fd78::2", "+tries=1", "+time=2", "tiktok.com", "AAAA"])
        #expect(asked6.contains(/IN\s+AAAA\s+::\s/) && asked6.contains("EDE: 15 (Blocked)"), "\(asked6)")
        let overTCP6 = try await inside(
            client, ["dig", "+tcp", "-b", "fd77::2", "@fd78::2", "+tries=1", "+time=2", "tiktok.com", "A"])
        #expect(overTCP6.contains("0.0.0.0") && overTCP6.contains("EDE: 15 (Blocked)"), "\(overTCP6)")
        #expect(try await connect(from: client, source: "fd77::2", to: "fd78::2", port: 853) != "connected")
        #expect(try await connect(from: client, source: "fd77::2", to: "fd78::2", port: 8443) == "connected")
        #expect(
            try await connect(from: client, source: "fd77::2", to: "2001:4860:4860::8888", port: 443) != "connected")
        let free6 = try await inside(
            client, ["dig", "-b", "fd77::3", "@fd78::2", "+tries=1", "+time=2", "+short", "tiktok.com", "A"])
        #expect(free6.contains("203.0.113.66"), "\(free6)")
        #expect(try await connect(from: client, source: "fd77::3", to: "fd78::2", port: 853) == "connected")
        #expect(
            try await connect(from: client, source: "fd77::3", to: "2001:4860:4860::8888", port: 443) == "connected")
    }
}
