import DNSTestSupport
import Foundation
import Testing

/// `lockr doctor` against the real binary: a stopped daemon, a dead upstream beside a live one,
/// and, in a network namespace of its own (whose /etc/resolv.conf `ip netns exec` puts in
/// place), a system resolver that goes through lockr and one that bypasses it.
@Suite struct DoctorEndToEndTests {
    @Test func aStoppedDaemonIsTheFirstLineAndItsFix() async throws {
        let empty = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let doctor = try await runAwaited(LockrProcess.binary, ["doctor", "--state-dir", empty])
        #expect(doctor.status == 1)
        #expect(doctor.output.hasPrefix("FAIL daemon: no lockr daemon found"), "\(doctor.output)")
        #expect(doctor.output.contains("fix: start it: lockr serve"))
        #expect(doctor.output.contains("(the other checks need the daemon)"))
    }

    @Test func aDeadUpstreamFailsBesideALiveOneAndTheListenersAnswer() async throws {
        let upstream = try await ScriptedUpstream(records: PolicyEndToEndTests.records)
        let lockr = try await LockrProcess(
            ["--upstream", "127.0.0.1:\(upstream.port)", "--upstream", "127.0.0.1:9", "--guard", "tiktok"],
            environment: ["TZ": ":Europe/Lisbon"])
        try await stoppingAfterwards(lockr, upstream) {
            let doctor = try await lockr.cli("doctor")
            #expect(doctor.status == 1, "a dead upstream fails the whole")
            let lines = doctor.output.split(separator: "\n").map(String.init)
            #expect(lines.first == "ok   daemon: answers")
            #expect(lines.contains("ok   DNS on 127.0.0.1:\(lockr.port): answers"), "\(doctor.output)")
            #expect(lines.contains("ok   upstream 127.0.0.1:\(upstream.port): answers"), "\(doctor.output)")
            #expect(lines.contains("FAIL upstream 127.0.0.1:9: no answer within 2 s"), "\(doctor.output)")
            #expect(lines.contains("     fix: check that it is reachable from here, or set other upstreams"))
            #expect(lines.contains("ok   state database: passes SQLite's quick check"))
            #expect(
                lines.contains { $0.hasPrefix("ok   app catalogue: ") && $0.hasSuffix("/blocklists") },
                "\(doctor.output)")
            #expect(lines.contains("ok   speech model: installed"), "\(doctor.output)")
            #expect(lines.contains { $0.hasPrefix("ok   clock: ") || $0.hasPrefix("FAIL clock: ") })
            #expect(lines.contains("ok   time zone: Europe/Lisbon (this machine's, from $TZ)"), "\(doctor.output)")
            let json = try await lockr.cli("doctor", "--json")
            let checks = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]] ?? []
            #expect(checks.first { $0["name"] as? String == "upstream 127.0.0.1:9" }?["ok"] as? Bool == false)
        }
    }

    @Test(
        .enabled(
            if: NetworkNamespaces.unavailable == nil,
            "needs network namespaces (root, iproute2, `ip netns add` allowed)"))
    func theSystemResolverIsSeenToGoThroughLockrOrToBypassIt() async throws {
        let network = try NetworkNamespaces()
        defer { network.remove() }
        try network.inside(network.router, ["ip", "link", "set", "lo", "up"])
        let resolvConf = "/etc/netns/\(network.router)/resolv.conf"
        try FileManager.default.createDirectory(
            atPath: "/etc/netns/\(network.router)", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: "/etc/netns/\(network.router)") }
        try "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n".write(
            toFile: resolvConf, atomically: true, encoding: .utf8)
        let lockr = try await LockrProcess(
            ["--listen", "127.0.0.1:53", "--upstream", "127.0.0.1:9"], namespace: network.router)
        defer { _ = lockr.stop() }

        let through = try await lockr.cli("doctor")
        #expect(through.output.contains("ok   system resolver: goes through lockr"), "\(through.output)")
        #expect(through.output.contains("ok   DNS on 127.0.0.1:53: answers"))

        // The machine's resolver names another server: lockr is bypassed.
        try "nameserver 127.0.0.2\noptions timeout:1 attempts:1\n".write(
            toFile: resolvConf, atomically: true, encoding: .utf8)
        let bypassed = try await lockr.cli("doctor")
        #expect(bypassed.status == 1)
        #expect(
            bypassed.output.contains(
                "FAIL system resolver: does not go through lockr: lockr-probe.internal was not answered"),
            "\(bypassed.output)")
        #expect(bypassed.output.contains("fix: point this machine's resolver at lockr"))
    }
}
