import DNSTestSupport
import Foundation
import Testing

/// The fleet of docs/fleet.md, built in network namespaces: lockr alone in one (10.77.0.1), three
/// resolvers on the fleet's network in namespaces of their own (unbound 10.77.0.11, BIND
/// 10.77.0.12, PowerDNS Recursor 10.77.0.13), each with a client behind it on a link of its own.
/// The resolvers apply lockr's Response Policy Zone; unbound (over TCP) and BIND (over a unix
/// socket) send their clients' queries to lockr by dnstap. Use at two resolvers spends the one
/// budget, and then all three block.
struct FleetEndToEndTests {
    /// Starts `command` in namespace `name` with its output in `log`; returns its PID.
    static func start(in name: String, _ command: String, log: String) throws -> pid_t {
        try spawnWithDefaultSignals(
            NetworkNamespaces.ip, ["netns", "exec", name, "/bin/sh", "-c", "exec \(command) >>\(log) 2>&1"])
    }

    /// The A records `client` gets for `name` from its resolver (at `.1` of its link), asked
    /// `times` in a row by one dig (as an app asks), the last answer's. Awaited, not waited for:
    /// a thread of Swift's concurrency blocked here is one the tests running meanwhile do not get.
    static func ask(_ client: String, resolver: String, _ name: String, times: Int = 1) async -> String {
        let output = try? await runAwaited(
            NetworkNamespaces.ip,
            ["netns", "exec", client, "dig", "@\(resolver)", "+tries=1", "+time=2", "+short"]
                + Array(repeating: name, count: times))
        return output?.output.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test(
        .enabled(
            if: NetworkNamespaces.unavailable == nil,
            "needs network namespaces (root, iproute2, `ip netns add` allowed)"))
    func useAtTwoResolversSpendsTheBudgetAndAllThreeBlock() async throws {
        for binary in ["/usr/sbin/unbound", "/usr/sbin/named", "/usr/sbin/pdns_recursor"] {
            guard FileManager.default.isExecutableFile(atPath: binary) else {
                throw LockrProcess.Failure("\(binary) is not installed (scripts/setup installs it)")
            }
        }
        let network = try NetworkNamespaces()
        defer { network.remove() }
        let directory = NSTemporaryDirectory() + "lockr-e2e-fleet-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let resolvers = [
            (name: "unbound", kind: PolicyZoneResolver.Kind.unbound, address: "10.77.0.11", link: "10.81.0"),
            (name: "bind", kind: .bind, address: "10.77.0.12", link: "10.82.0"),
            (name: "powerdns", kind: .powerDNS, address: "10.77.0.13", link: "10.83.0"),
        ]
        var namespaces: [String: (resolver: String, client: String)] = [:]
        for (index, resolver) in resolvers.enumerated() {
            let name = try network.addClient(
                String(resolver.name.prefix(1)), address: resolver.address, mac: "02:00:00:77:00:1\(index + 1)")
            let client = try network.addBehind(name, "c\(index + 1)", network: resolver.link)
            namespaces[resolver.name] = (name, client)
        }

        let upstream = try await DnsmasqProcess(
            lines: ["listen-address=10.77.0.1", "address=/tiktok.com/192.0.2.21", "address=/youtube.com/192.0.2.22"],
            namespace: network.router)
        defer { upstream.stop() }
        let socket = directory + "/dnstap.sock"
        let config = directory + "/lockr.toml"
        try DnstapEndToEndTests.config(
            rpz: """
                listen = ["10.77.0.1:5300"]
                secondaries = ["10.77.0.11", "10.77.0.12"]
                allow-transfer = ["10.77.0.13"]
                """,
            dnstap: """
                socket = "\(socket)"
                listen = ["10.77.0.1:6000"]
                allow-from = ["10.77.0.0/24"]
                """
        ).write(toFile: config, atomically: true, encoding: .utf8)
        let lockr = try await LockrProcess(
            ["--config", config, "--time-scale", "60"], answersDNS: false, namespace: network.router)
        defer { lockr.stop() }

        let extras: [PolicyZoneResolver.Kind: String] = [
            .unbound: """
            dnstap:
              dnstap-enable: yes
              dnstap-ip: 10.77.0.1@6000
              dnstap-tls: no
              dnstap-log-client-query-messages: yes
            """,
            .bind: """
            dnstap { client query; };
              dnstap-output unix "\(socket)";
            """,
        ]
        let setUps = resolvers.map { resolver in
            PolicyZoneResolver(
                kind: resolver.kind, directory: directory, address: "0.0.0.0", clients: "10.0.0.0/8",
                primary: .init(host: "10.77.0.1", port: 5300), upstream: .init(host: "10.77.0.1", port: upstream.port),
                extra: extras[resolver.kind] ?? "")
        }
        for setUp in setUps { try setUp.writeConfig() }
        var pids: [pid_t] = []
        defer {
            for pid in pids {
                kill(pid, SIGTERM)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            }
        }
        for (resolver, setUp) in zip(resolvers, setUps) {
            pids.append(
                try Self.start(
                    in: namespaces[resolver.name]!.resolver, setUp.command, log: "\(directory)/\(resolver.name).log"))
        }
        func logs() -> String {
            resolvers.map {
                "\($0.name): " + ((try? String(contentsOfFile: "\(directory)/\($0.name).log", encoding: .utf8)) ?? "")
            }
            .joined(separator: "\n")
        }

        // Every client gets TikTok's address through its resolver: the budget is not spent. The
        // zones came first (YouTube, never guarded, shows the resolver answers at all).
        for resolver in resolvers {
            let client = namespaces[resolver.name]!.client
            let answers = await eventually(30) {
                await Self.ask(client, resolver: resolver.link + ".1", "www.youtube.com") == "192.0.2.22"
            }
            #expect(answers, "\(resolver.name) answers its client: \(logs())")
            #expect(await Self.ask(client, resolver: resolver.link + ".1", "tiktok.com") == "192.0.2.21")
        }
        let bothSend = try await eventually(20) {
            (try await lockr.dnstapFigures())["connected"] as? Int == 2
        }
        let connected = try await lockr.dnstapFigures()
        #expect(bothSend, "unbound over TCP and BIND over the socket: \(connected)")

        // The clients behind unbound and BIND use TikTok in turn (ten questions every 0.1 s, 6
        // policy seconds), until all three resolvers block it for their clients.
        var blocked: Set<String> = []
        let start = Date()
        var turn = 0
        while blocked.count < 3, Date().timeIntervalSince(start) < 60 {
            let user = resolvers[turn % 2]
            _ = await Self.ask(namespaces[user.name]!.client, resolver: user.link + ".1", "tiktok.com", times: 10)
            turn += 1
            for resolver in resolvers {
                let answer = await Self.ask(
                    namespaces[resolver.name]!.client, resolver: resolver.link + ".1", "tiktok.com")
                if answer == "0.0.0.0" { blocked.insert(resolver.name) }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let figures = try await lockr.dnstapFigures()
        #expect(blocked == ["unbound", "bind", "powerdns"], "blocked at \(blocked.sorted()); dnstap \(figures)")
        #expect(figures["metered"] as? Int ?? 0 > 0, "\(figures)")
        let app = (try await lockr.status()["apps"] as? [[String: Any]])?.first { $0["id"] as? String == "tiktok" }
        #expect(app?["open"] as? Bool == false, "\(app ?? [:])")
        #expect(app?["used_seconds"] as? Int ?? 0 >= 280, "\(app ?? [:])")
        // YouTube, not guarded, is still answered everywhere.
        for resolver in resolvers {
            #expect(
                await Self.ask(namespaces[resolver.name]!.client, resolver: resolver.link + ".1", "www.youtube.com")
                    == "192.0.2.22")
        }
    }
}
