import DNSTestSupport
import Foundation
import Testing

/// dnstap in, policy out: resolvers lockr does not stand in front of log their clients' queries to
/// lockr by dnstap, and apply lockr's Response Policy Zone. A client's use through the resolver
/// spends its budget, and then the resolver blocks it; a restart of lockr loses nothing stored.
struct DnstapEndToEndTests {
    typealias Secondary = RPZEndToEndTests.Secondary

    /// A time-mode lockr guarding TikTok with a 5-minute budget (these tests run it at 60 times real
    /// time), serving its zones as the `[rpz]` keys in `rpz` say and taking dnstap as those in
    /// `dnstap` say.
    static func config(rpz: String, dnstap: String) -> String {
        """
        guard = ["tiktok"]
        backends = ["rpz"]
        [policy]
        mode = "time"
        [time]
        budget-minutes = 5
        [rpz]
        \(rpz)
        [dnstap]
        \(dnstap)
        """
    }

    /// TikTok's line in the default person's status.
    func tiktok(_ lockr: LockrProcess) async throws -> [String: Any] {
        (try await lockr.status()["apps"] as? [[String: Any]])?.first { $0["id"] as? String == "tiktok" } ?? [:]
    }

    /// The answers `unbound` gives to `count` questions for tiktok.com asked in a row by one dig, as
    /// an app asks: separate digs on a loaded machine come seconds apart, minutes of policy time at
    /// 60 times real time, which metering rightly takes for separate lookups.
    func burst(_ unbound: Secondary, _ count: Int = 10) async throws -> [String] {
        try await dig(unbound.port, ["+short"] + Array(repeating: "tiktok.com", count: count))
            .split(separator: "\n").map(String.init)
    }

    /// A directory of the test's own for the socket and config; removed afterwards.
    func withDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "lockr-e2e-dnstap-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    @Test func aClientsUseThroughUnboundSpendsTheBudgetAcrossARestartAndThenUnboundBlocks() async throws {
        try await withDirectory { directory in
            let (rpzPort, unboundPort) = (try freeLoopbackPort(), try freeLoopbackPort())
            let socket = directory + "/dnstap.sock"
            let config = directory + "/lockr.toml"
            try Self.config(
                rpz: "listen = [\"127.0.0.1:\(rpzPort)\"]\nsecondaries = [\"127.0.0.1:\(unboundPort)\"]",
                dnstap: "socket = \"\(socket)\""
            ).write(toFile: config, atomically: true, encoding: .utf8)
            let upstream = try await ScriptedUpstream(records: RPZEndToEndTests.records)
            let state = LockrProcess.makeStateDirectory()
            defer { try? FileManager.default.removeItem(atPath: state) }
            let arguments = ["--config", config, "--time-scale", "60"]
            let first = try await LockrProcess(arguments, stateDirectory: state, answersDNS: false)
            try await stoppingAfterwards(first, upstream) {
                let unbound = try await Secondary(
                    .unbound, port: unboundPort, primary: rpzPort, upstream: upstream.port,
                    extra: """
                        dnstap:
                          dnstap-enable: yes
                          dnstap-socket-path: "\(socket)"
                          dnstap-log-client-query-messages: yes
                        """)
                defer { unbound.remove() }
                #expect(try await unbound.addresses("tiktok.com") == "192.0.2.21", "budget left: not blocked")
                #expect(try await eventually(10) { try await first.dnstapFigures()["connected"] as? Int == 1 })

                // Some use through unbound is metered.
                #expect(try await burst(unbound, 20) == Array(repeating: "192.0.2.21", count: 20))
                #expect(try await eventually(10) { try await tiktok(first)["used_seconds"] as? Int ?? 0 > 0 })
                let usedBefore = try await tiktok(first)["used_seconds"] as? Int ?? 0

                // lockr restarts on the same state; unbound connects again by itself.
                #expect(await first.finish() == 0)
                let lockr = try await LockrProcess(arguments, stateDirectory: state, answersDNS: false)
                defer { lockr.stop() }
                #expect(try await tiktok(lockr)["used_seconds"] as? Int ?? 0 >= usedBefore, "the use metered stays")
                #expect(try await eventually(20) { try await lockr.dnstapFigures()["connected"] as? Int == 1 })

                // The device goes on (ten questions every 0.1 s, 6 policy seconds) until unbound
                // blocks it.
                var blocked = false
                let start = Date()
                while !blocked, Date().timeIntervalSince(start) < 40 {
                    blocked = try await burst(unbound).last == "0.0.0.0"
                    try await Task.sleep(for: .milliseconds(100))
                }
                let app = try await tiktok(lockr)
                #expect(blocked, "\(app)")
                #expect(app["open"] as? Bool == false)
                #expect(app["used_seconds"] as? Int ?? 0 >= 280, "\(app)")
                let figures = try await lockr.dnstapFigures()
                #expect(figures["metered"] as? Int ?? 0 > 0, "\(figures)")
                #expect(figures["malformed"] as? Int == 0 && figures["broken"] as? Int == 0, "\(figures)")
                let text = try await lockr.cli("status").output
                #expect(text.contains("dnstap: listening on unix:\(socket); 1 resolver connected"), "\(text)")
            }
        }
    }

    @Test func bindsClientQueriesAreMeteredAndAWriterOfGarbageChangesNothing() async throws {
        try await withDirectory { directory in
            let (rpzPort, bindPort) = (try freeLoopbackPort(), try freeLoopbackPort())
            let socket = directory + "/dnstap.sock"
            let config = directory + "/lockr.toml"
            // BIND transfers with TSIG; this test is about its dnstap, so lockr accepts unsigned too.
            try Self.config(
                rpz: """
                    listen = ["127.0.0.1:\(rpzPort)"]
                    secondaries = ["127.0.0.1:\(bindPort)"]
                    allow-transfer = ["127.0.0.1"]
                    """,
                dnstap: "socket = \"\(socket)\""
            ).write(toFile: config, atomically: true, encoding: .utf8)
            let upstream = try await ScriptedUpstream(records: RPZEndToEndTests.records)
            let lockr = try await LockrProcess(["--config", config, "--time-scale", "60"], answersDNS: false)
            try await stoppingAfterwards(lockr, upstream) {
                // A writer of garbage, and one that connects and says nothing, come first.
                let garbage = try await runAwaited(
                    "python3",
                    [
                        "-c",
                        """
                        import socket, time
                        silent = socket.socket(socket.AF_UNIX); silent.connect("\(socket)")
                        s = socket.socket(socket.AF_UNIX); s.connect("\(socket)")
                        s.sendall(bytes(4) + b"\\xff" * 64); time.sleep(0.5)
                        """,
                    ])
                #expect(garbage.status == 0, "\(garbage.output)")
                let bind = try await Secondary(
                    .bind, port: bindPort, primary: rpzPort, upstream: upstream.port,
                    extra: """
                        dnstap { client query; };
                          dnstap-output unix "\(socket)";
                        """)
                defer { bind.remove() }
                // A device uses TikTok through BIND: 20 questions in a row, by one dig, as an app
                // asks (a loaded machine spaces separate digs seconds apart, minutes of policy
                // time, which metering rightly takes for separate lookups). BIND's writer sends
                // what it has every second.
                #expect(try await burst(bind, 20) == Array(repeating: "192.0.2.21", count: 20))
                let used = try await eventually(15) { try await tiktok(lockr)["used_seconds"] as? Int ?? 0 > 0 }
                let figures = try await lockr.dnstapFigures()
                #expect(used, "\(figures)")
                #expect(figures["metered"] as? Int ?? 0 >= 20, "\(figures)")
                #expect(figures["broken"] as? Int == 1, "the garbage writer was cut off: \(figures)")
                // The same figures in /metrics, as Prometheus reads them.
                let metrics = MetricsEndToEndTests()
                let (token, _) = try PolicyEndToEndTests().controlEndpoint(lockr)
                let samples = try await metrics.scrape(lockr, token: token).samples
                #expect(metrics.value(samples, "lockr_dnstap_up") == 1)
                #expect(metrics.value(samples, "lockr_dnstap_metered_total") ?? 0 >= 20)
                #expect(metrics.value(samples, "lockr_dnstap_connections_broken_total") == 1)
            }
        }
    }
}
