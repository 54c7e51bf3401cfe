import DNSTestSupport
import Foundation
import Testing

/// Upstreams over TLS and HTTPS, through a real unbound serving DNS over TLS and DNS over HTTPS
/// (HTTP/2) with a certificate from a certificate authority the test makes; unbound asks a scripted
/// plain upstream for every name it does not hold, so the test sees what went the whole way.
@Suite struct EncryptedUpstreamEndToEndTests {
    @Test func answersComeThroughUnboundOverTLSAndOverHTTPSOnOneKeptConnection() async throws {
        let (authority, server, origin, unbound) = try await unboundWithItsOrigin()
        defer {
            unbound.stop()
            authority.remove()
        }
        // The last is written by name alone: lockr asks the scripted server (its bootstrap) where
        // dns.test is.
        for upstream in [
            "tls://127.0.0.1:\(unbound.tlsPort)@dns.test#pin-sha256=\(server.pin)",
            "https://127.0.0.1@dns.test:\(unbound.httpsPort)/dns-query",
            "https://dns.test:\(unbound.httpsPort)/dns-query",
        ] {
            let config = try configFile(upstreams: [upstream], authority: authority.authority, bootstrap: origin.port)
            defer { try? FileManager.default.removeItem(atPath: config) }
            let lockr = try await LockrProcess(["--config", config])
            try await stoppingAfterwards(lockr) { () async throws in
                #expect(
                    try await dig(lockr.port, "www.unbound.test", "+short").contains("192.0.2.80"),
                    "unbound's own answer")
                #expect(try await dig(lockr.port, "example.test", "+short").contains("192.0.2.1"), "\(upstream)")
                #expect(origin.queries(for: "example.test.") >= 1, "asked through unbound")
                for index in 0..<20 { _ = try await dig(lockr.port, "n\(index).test", "+short") }
                let port = upstream.hasPrefix("tls") ? unbound.tlsPort : unbound.httpsPort
                let connections = try await runAwaited("ss", ["-Htn", "state", "established", "( dport = :\(port) )"])
                    .output
                    .split(separator: "\n").count
                #expect(connections == 1, "one kept connection for 22 questions over \(upstream)")
                let doctor = try await lockr.cli("doctor").output
                #expect(doctor.contains("ok   upstream \(upstream.prefix(5))"), "\(doctor)")
            }
        }
        await origin.stop()
    }

    /// unbound's origin falls silent: lockr gives the query up after its timeout and resets the
    /// query's HTTP/2 stream, while names unbound answers itself keep coming back on the same
    /// connection, which goes on answering once the origin is back.
    @Test func aQueryGivenUpOnOverHTTP2EndsItsStreamAndTheConnectionGoesOn() async throws {
        let (authority, _, origin, unbound) = try await unboundWithItsOrigin()
        defer {
            unbound.stop()
            authority.remove()
        }
        let config = try configFile(
            upstreams: ["https://127.0.0.1@dns.test:\(unbound.httpsPort)/dns-query"], authority: authority.authority,
            attempts: 1)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config])
        try await stoppingAfterwards(lockr, origin) { () async throws in
            #expect(try await dig(lockr.port, "example.test", "+short").contains("192.0.2.1"))
            origin.mode = .silent
            let port = lockr.port
            let asked = Date()
            let lost = Task {
                let dig = try await runAwaited(
                    "dig", ["@127.0.0.1", "-p", "\(port)", "+tries=1", "+time=5", "lost.test"])
                return (dig.output, Date().timeIntervalSince(asked))
            }
            for index in 0..<10 {
                // Answered by unbound itself (NXDOMAIN), each a name lockr has not cached.
                #expect(try await dig(lockr.port, "n\(index).unbound.test").contains("status: NXDOMAIN"))
                try await Task.sleep(for: .milliseconds(150))
            }
            let (answer, waited) = try await lost.value
            #expect(answer.contains("status: SERVFAIL"), "\(answer)")
            #expect(waited > 0.9, "given up by lockr's 1 s timeout, not sooner by unbound: \(waited) s")
            origin.mode = .answer
            #expect(try await dig(lockr.port, "before.test", "+short").contains("192.0.2.1"))
            let connections = try await runAwaited(
                "ss", ["-Htn", "state", "established", "( dport = :\(unbound.httpsPort) )"]
            ).output.split(separator: "\n").count
            #expect(connections == 1, "the connection was kept")
        }
    }

    @Test func aDoHServerThatSpeaksOnlyHTTP1GetsQueriesInTurnOnOneKeptConnection() async throws {
        let authority = try TestCertificates()
        defer { authority.remove() }
        let server = try authority.server("doh", names: ["doh.test"])
        let origin = try await ScriptedUpstream(records: Self.records)
        let doh = try ScriptServer("doh_http1.py", [server.certificate, server.key, "\(origin.port)"])
        let config = try configFile(
            upstreams: ["https://127.0.0.1@doh.test:\(doh.port)/dns-query"], authority: authority.authority)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config])
        try await stoppingAfterwards(lockr, origin) { () async throws in
            // Several at once: they wait their turn on the connection.
            let port = lockr.port
            async let first = runAwaited("dig", ["@127.0.0.1", "-p", "\(port)", "+short", "example.test"])
            async let second = runAwaited("dig", ["@127.0.0.1", "-p", "\(port)", "+short", "before.test"])
            async let third = runAwaited("dig", ["@127.0.0.1", "-p", "\(port)", "+short", "after.test"])
            for answer in try await [first, second, third] { #expect(answer.output.contains("192.0.2.1")) }
            #expect(doh.logLines.filter { $0 == "connection" }.count == 1, "\(doh.logLines)")
        }
    }

    @Test func aWrongCertificateNameOrPinIsRefusedAndTheNextUpstreamAnswers() async throws {
        // Named dns.test only: an upstream written by its address alone is refused too.
        let (authority, _, origin, unbound) = try await unboundWithItsOrigin()
        defer {
            unbound.stop()
            authority.remove()
        }
        let other = try TestCertificates()
        defer { other.remove() }
        let stranger = try other.server("stranger", names: ["dns.test"])
        let plain = try await ScriptedUpstream(records: Self.records)
        let refused = [
            "tls://127.0.0.1:\(unbound.tlsPort)@dns.test#pin-sha256=\(stranger.pin)":
                "the server's key does not match the pin",
            "tls://127.0.0.1:\(unbound.tlsPort)@wrong.test": "the certificate is not for this server",
            "https://127.0.0.1:\(unbound.httpsPort)/dns-query": "the certificate is not for this server",
        ]
        let config = try configFile(
            upstreams: Array(refused.keys) + ["127.0.0.1:\(plain.port)"], authority: authority.authority,
            attempts: 4)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config])
        try await stoppingAfterwards(lockr, plain, origin) { () async throws in
            #expect(try await dig(lockr.port, "example.test", "+short").contains("192.0.2.1"))
            #expect(origin.queries(for: "example.test.") == 0, "nothing went through a refused upstream")
            let doctor = try await lockr.cli("doctor").output
            for (upstream, reason) in refused {
                #expect(doctor.contains("FAIL upstream \(upstream): \(reason)"), "\(doctor)")
            }
        }
        // Another authority's certificate is not trusted at all.
        let untrusting = try configFile(
            upstreams: ["tls://127.0.0.1:\(unbound.tlsPort)@dns.test"], authority: other.authority)
        defer { try? FileManager.default.removeItem(atPath: untrusting) }
        let second = try await LockrProcess(["--config", untrusting])
        try await stoppingAfterwards(second) { () async throws in
            #expect(try await dig(second.port, "example.test").contains("status: SERVFAIL"))
            let doctor = try await second.cli("doctor").output
            #expect(doctor.contains("certificate not trusted"), "\(doctor)")
        }
    }

    @Test func anUpstreamKilledMidConnectionIsConnectedToAgain() async throws {
        let (authority, _, origin, unbound) = try await unboundWithItsOrigin()
        defer {
            unbound.stop()
            authority.remove()
        }
        let config = try configFile(
            upstreams: [
                "tls://127.0.0.1:\(unbound.tlsPort)@dns.test",
                "https://127.0.0.1@dns.test:\(unbound.httpsPort)/dns-query",
            ], authority: authority.authority)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config])
        try await stoppingAfterwards(lockr, origin) { () async throws in
            #expect(try await dig(lockr.port, "before.test", "+short").contains("192.0.2.1"))
            unbound.kill9()
            try unbound.start()
            #expect(try await dig(lockr.port, "after.test", "+short").contains("192.0.2.1"), "\(lockr.log)")
            #expect(origin.queries(for: "after.test.") >= 1)
        }
    }

    @Test func aCAFileThatCannotBeReadStopsLockrWithTheReason() async throws {
        let config = try configFile(upstreams: ["tls://127.0.0.1:853@dns.test"], authority: "/nonexistent/ca.pem")
        defer { try? FileManager.default.removeItem(atPath: config) }
        let checked = try await runAwaited(LockrProcess.binary, ["check-config", config])
        #expect(checked.status != 0)
        #expect(checked.output.contains("[upstream] cannot use the CA file /nonexistent/ca.pem"), "\(checked.output)")
        // Nothing answers where the bootstrap server should be (port 9 of loopback).
        let unnamed = try configFile(
            upstreams: ["https://dns.test/dns-query"], authority: "/nonexistent/ca.pem", bootstrap: 9)
        defer { try? FileManager.default.removeItem(atPath: unnamed) }
        let written = try await runAwaited(LockrProcess.binary, ["check-config", unnamed])
        #expect(written.status != 0)
        #expect(
            written.output.contains("no address found for https://dns.test/dns-query: where dns.test is: 127.0.0.1:"),
            "\(written.output)")
        // Beside a plain upstream, the name not found is left out, and check-config says so.
        let beside = try configFile(
            upstreams: ["https://dns.test/dns-query", "192.0.2.53"], authority: "/nonexistent/ca.pem", bootstrap: 9)
        defer { try? FileManager.default.removeItem(atPath: beside) }
        let partly = try await runAwaited(LockrProcess.binary, ["check-config", beside])
        #expect(partly.status == 0)
        #expect(
            partly.output.contains("upstreams: 192.0.2.53:53")
                && partly.output.contains("warning: upstream left out: https://dns.test/dns-query: where dns.test is"),
            "\(partly.output)")
        // The daemon starts with the one it has, and lockr doctor names the one left out.
        let lockr = try await LockrProcess(["--config", beside])
        try await stoppingAfterwards(lockr) { () async throws in
            let doctor = try await lockr.cli("doctor").output
            #expect(
                doctor.contains(
                    "FAIL upstream https://dns.test/dns-query: left out, its address not found: where dns.test is"),
                "\(doctor)")
            #expect(doctor.contains("set [upstream] bootstrap to a server that answers"), "\(doctor)")
        }
        let served = try await runAwaited(LockrProcess.binary, ["serve", "--upstream", "tls://127.0.0.1@bad name"])
        #expect(served.status != 0)
        #expect(served.output.contains("'bad name' is not a server name"), "\(served.output)")
    }

    /// The scripted server's names; dns.test, where unbound listens, for lockr's bootstrap.
    static let records = [
        "example.test.": ["example.test. 300 IN A 192.0.2.1"], "before.test.": ["before.test. 300 IN A 192.0.2.1"],
        "after.test.": ["after.test. 300 IN A 192.0.2.1"], "dns.test.": ["dns.test. 300 IN A 127.0.0.1"],
    ]

    /// A test authority, a real unbound with its certificate for dns.test (only), and the scripted
    /// upstream unbound asks.
    private func unboundWithItsOrigin() async throws -> (
        TestCertificates, TestCertificates.Server, ScriptedUpstream, UnboundProcess
    ) {
        let authority = try TestCertificates()
        let server = try authority.server("unbound", names: ["dns.test"])
        let origin = try await ScriptedUpstream(records: Self.records)
        return (authority, server, origin, try UnboundProcess(certificate: server, forwardTo: origin.port))
    }

    /// A config with `upstreams`, their certificates from `authority`, and the bootstrap server on
    /// `bootstrap`, a port of loopback.
    private func configFile(
        upstreams: [String], authority: String, attempts: Int = 3, bootstrap: Int? = nil
    ) throws -> String {
        let path = NSTemporaryDirectory() + "lockr-e2e-encrypted-\(UUID()).toml"
        try """
        upstreams = [\(upstreams.map { "\"\($0)\"" }.joined(separator: ", "))]
        threads = 1
        [upstream]
        ca-file = "\(authority)"
        attempts = \(attempts)
        \(bootstrap.map { "bootstrap = [\"127.0.0.1:\($0)\"]" } ?? "")
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
