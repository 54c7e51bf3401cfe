import DNSTestSupport
import DNSWire
import Foundation
import Testing

/// `lockr serve` as users run it, queried with dig and drill, forwarding to a local scripted upstream.
@Suite(.serialized) struct ServeEndToEndTests {
    /// Runs `body` with an upstream and a lockr pointed at it, blocking the names of `list`.
    func withLockr(
        list: String = "ads.test\n||tracker.test^\n",
        extra: [String] = [],
        _ body: (LockrProcess, ScriptedUpstream, String) async throws -> Void
    ) async throws {
        let upstream = try await ScriptedUpstream()
        let listPath = NSTemporaryDirectory() + "lockr-e2e-list-\(UUID()).txt"
        try list.write(toFile: listPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: listPath) }
        let lockr = try await LockrProcess(
            [
                "--upstream", "127.0.0.1:\(upstream.port)", "--blocklist", listPath,
            ] + extra)
        try await stoppingAfterwards(lockr, upstream) { try await body(lockr, upstream, listPath) }
    }

    /// True once `name` is answered 0.0.0.0, polled for up to 5 s (a reload runs in the background).
    func becomesBlocked(_ name: String, on lockr: LockrProcess) async throws -> Bool {
        for _ in 0..<100 {
            if try await dig(lockr.port, name, "+short").contains("0.0.0.0") { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func blockedAndAllowedNamesWithDigAndDrill() async throws {
        try await withLockr { lockr, upstream, _ in
            let blocked = try await dig(lockr.port, "x.ads.test", "A")
            #expect(blocked.contains("status: NOERROR"))
            #expect(blocked.contains("x.ads.test.\t\t60\tIN\tA\t0.0.0.0"))
            #expect(blocked.contains("EDE: 15 (Blocked): (blocked by ||ads.test^"))
            #expect(
                try await dig(lockr.port, "tracker.test", "AAAA", "+short").trimmingCharacters(
                    in: .whitespacesAndNewlines)
                    == "::")
            #expect(
                try await dig(lockr.port, "www.test", "+short").trimmingCharacters(in: .whitespacesAndNewlines)
                    == "192.0.2.1"
            )
            let viaDrill = try await drill(lockr.port, "www.test", "AAAA")
            #expect(viaDrill.contains("2001:db8::1"))
            #expect(try await drill(lockr.port, "ads.test", "A").contains("0.0.0.0"))
            #expect(upstream.queries(for: "ads.test.") == 0)
            let canary = try await dig(lockr.port, "use-application-dns.net")
            #expect(canary.contains("status: NXDOMAIN"))
        }
    }

    @Test(arguments: [("nxdomain", "status: NXDOMAIN"), ("refused", "status: REFUSED"), ("192.0.2.99", "\t192.0.2.99")])
    func blockModes(mode: String, expected: String) async throws {
        try await withLockr(extra: ["--block-mode", mode]) { lockr, _, _ in
            let blocked = try await dig(lockr.port, "ads.test")
            let allowed = try await dig(lockr.port, "www.test", "+short")
            #expect(blocked.contains(expected))
            #expect(allowed.contains("192.0.2.1"))
        }
    }

    @Test func allowlistsWin() async throws {
        let allowPath = NSTemporaryDirectory() + "lockr-e2e-allow-\(UUID()).txt"
        try "x.ads.test\n".write(toFile: allowPath, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: allowPath) }
        try await withLockr(extra: ["--allowlist", allowPath]) { lockr, _, _ in
            let allowed = try await dig(lockr.port, "x.ads.test", "+short")
            let blocked = try await dig(lockr.port, "ok.ads.test", "+short")
            #expect(allowed.contains("192.0.2.4"))
            #expect(blocked.contains("0.0.0.0"))
        }
    }

    @Test func answersOnIPv6() async throws {
        try await withLockr(extra: ["--listen", "[::1]:0"]) { lockr, _, _ in
            let port = try #require(lockr.log.firstMatch(of: /address=\[::1\]:(\d+)/).map { String($0.1) })
            let blocked = try await runAwaited(
                "dig", ["@::1", "-p", port, "+tries=1", "+time=3", "ads.test", "AAAA", "+short"])
            #expect(blocked.output.trimmingCharacters(in: .whitespacesAndNewlines) == "::")
            let allowed = try await runAwaited(
                "dig", ["@::1", "-p", port, "+tries=1", "+time=3", "+tcp", "www.test", "+short"])
            #expect(allowed.output.contains("192.0.2.1"))
        }
    }

    @Test func tcpAndTruncation() async throws {
        try await withLockr { lockr, upstream, _ in
            #expect(try await dig(lockr.port, "www.test", "+tcp", "+short").contains("192.0.2.1"))
            #expect(try await drill(lockr.port, "-t", "www.test").contains("192.0.2.1"))
            let big = try await dig(lockr.port, "big.test", "+bufsize=1232")
            #expect(big.contains("Truncated, retrying in TCP mode"))
            #expect(big.contains("ANSWER: 100"))
            #expect(upstream.tcpQueries >= 1)
        }
    }

    @Test func upstreamDownGivesServfail() async throws {
        try await withLockr { lockr, upstream, _ in
            upstream.mode = .silent
            // Timed from this process, not around a dig, whose start-up a loaded machine can stretch.
            let first = try DNSClient.timedQuery("app.test.", port: lockr.port, seconds: 10)
            #expect(first.reply.rcode == 2, "SERVFAIL")
            #expect(first.elapsed < .seconds(5), "3 attempts of 1 s, then SERVFAIL")
            // Three failures in a row: the upstream is down, and the next name does not wait 3 s.
            let quick = try DNSClient.timedQuery("www.test.", port: lockr.port)
            #expect(quick.reply.rcode == 2, "SERVFAIL")
            #expect(quick.reply.extendedErrors.contains { $0.code == 22 && $0.text == "every upstream is down" })
            #expect(quick.elapsed < .seconds(2), "a quarter second's wait, not 3 s")
            #expect(try await dig(lockr.port, "www.test").contains("every upstream is down"), "dig shows why")
            upstream.mode = .answer
            #expect(try await dig(lockr.port, "app.test", "+short").contains("192.0.2.6"))
        }
    }

    @Test func malformedPacketsThenAGoodQuery() async throws {
        try await withLockr { lockr, _, _ in
            _ = try? DNSClient.udp([0xde, 0xad], port: lockr.port, seconds: 0.2)
            var twoQuestions = LdnsBuild.query("www.test.")
            twoQuestions[5] = 2
            _ = try DNSClient.udp(twoQuestions, port: lockr.port)
            _ = try? DNSClient.udp([UInt8](repeating: 0xC0, count: 40), port: lockr.port, seconds: 0.2)
            #expect(DNSClient.tcpClosesAfter([0xFF, 0xFF, 1, 2], port: lockr.port, seconds: 3))
            #expect(try await dig(lockr.port, "www.test", "+short").contains("192.0.2.1"))
        }
    }

    @Test func reloadsDropNoQuery() async throws {
        try await withLockr { lockr, _, listPath in
            let port = lockr.port
            let asking = Task.detached {
                var unanswered = 0
                for index in 0..<1_000 {
                    let name = index.isMultiple(of: 2) ? "www.test." : "ads.test."
                    if (try? DNSClient.udp(LdnsBuild.query(name, id: UInt16(index)), port: port, seconds: 2)) == nil {
                        unanswered += 1
                    }
                }
                return unanswered
            }
            for round in 0..<5 {
                try await Task.sleep(for: .milliseconds(60))
                try "ads.test\nround\(round).test\n".write(toFile: listPath, atomically: true, encoding: .utf8)
                lockr.signal(SIGHUP)
            }
            #expect(await asking.value == 0)
            // signals sent close together may merge into one reload; the last list wins
            #expect(try await becomesBlocked("round4.test", on: lockr))
            #expect(lockr.log.contains("reloaded"))
        }
    }

    @Test func sighupReloadsListsAndSigtermStopsCleanly() async throws {
        try await withLockr { lockr, _, listPath in
            #expect(try await dig(lockr.port, "app.test", "+short").contains("192.0.2.6"))
            try "ads.test\napp.test\n".write(toFile: listPath, atomically: true, encoding: .utf8)
            lockr.signal(SIGHUP)
            #expect(try await becomesBlocked("app.test", on: lockr))
            #expect(lockr.log.contains("reloaded"))
            // a bad reload keeps the old rules
            try FileManager.default.removeItem(atPath: listPath)
            lockr.signal(SIGHUP)
            #expect(await eventually(10) { lockr.log.contains("reload failed") })
            #expect(try await dig(lockr.port, "app.test", "+short").contains("0.0.0.0"))
            try "".write(toFile: listPath, atomically: true, encoding: .utf8)
            #expect(lockr.stop() == 0)
        }
    }
}
