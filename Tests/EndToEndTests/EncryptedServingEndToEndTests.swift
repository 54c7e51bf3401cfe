import DNSTestSupport
import Foundation
import Testing

/// lockr serving DNS over TLS and DNS over HTTPS, with a certificate from an authority the test
/// makes, asked by real clients: kdig and dig (knot-dnsutils, bind9-dnsutils) and curl.
@Suite struct EncryptedServingEndToEndTests {
    /// Alice's phone and Bob's laptop, known by their ClientIDs; the default person (hourly, so
    /// tiktok is locked) and Alice guard tiktok, Bob has time left.
    static let people = """

        [people.alice]
        devices = ["id:alice-phone"]

        [people.bob]
        devices = ["id:bob-laptop"]
        guard = ["youtube"]

        [people.bob.policy]
        mode = "time"

        """

    /// Runs `body` with lockr serving DNS over TLS and HTTPS as dns.test with a fresh certificate,
    /// closing connections idle for `idleMilliseconds`.
    func withServingLockr(
        idleMilliseconds: Int = 2000, _ body: (LockrProcess, Served) async throws -> Void
    ) async throws {
        let authority = try TestCertificates()
        defer { authority.remove() }
        let server = try authority.server("lockr", names: ["dns.test", "*.dns.test"])
        let sections = """

            [tls]
            certificate = "\(server.certificate)"
            key = "\(server.key)"
            name = "dns.test"

            [tcp]
            idle-timeout-ms = \(idleMilliseconds)
            """
        // Ports chosen ahead, as a home's are: its DDR answer names them. Another test may take
        // one between the choice and lockr's bind; then lockr says so and starts again on others.
        for attempt in 1...3 {
            let served = Served(
                authority: authority, server: server, tlsPort: try freeLoopbackPort(), httpsPort: try freeLoopbackPort()
            )
            let preamble = """
                listen-tls = ["127.0.0.1:\(served.tlsPort)"]
                listen-https = ["127.0.0.1:\(served.httpsPort)"]

                """
            do {
                try await PolicyEndToEndTests().withLockr(
                    mode: "hourly", preamble: preamble, sections: sections + Self.people
                ) { lockr, _ in try await body(lockr, served) }
                return
            } catch let failure as LockrProcess.Failure
                where attempt < 3 && failure.description.hasPrefix("lockr exited")
                && failure.description.contains("address already in use")
            {
                continue
            }
        }
    }

    /// Where and how lockr serves in one test.
    struct Served {
        let authority: TestCertificates
        let server: TestCertificates.Server
        let tlsPort: Int
        let httpsPort: Int

        /// kdig's answer (+short) to `name` over TLS with `serverName` as SNI, or over HTTPS at `path`.
        func kdig(_ name: String, tls serverName: String? = nil, https path: String? = nil) async throws -> String {
            var arguments = [
                "@127.0.0.1", "+tls-ca=\(authority.authority)", "+tls-hostname=dns.test", "+short", "+timeout=3",
            ]
            if let path {
                arguments += ["-p", "\(httpsPort)", "+https=\(path)"]
            } else {
                arguments += ["-p", "\(tlsPort)", "+tls"] + (serverName.map { ["+tls-sni=\($0)"] } ?? [])
            }
            let result = try await runAwaited("kdig", arguments + [name, "A"])
            if result.status == 127 {
                throw LockrProcess.Failure("kdig is not installed (apt-get install knot-dnsutils)")
            }
            return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// curl's HTTP status and body for `target` on lockr's DNS-over-HTTPS port.
        func curl(_ target: String, _ options: [String] = []) async throws -> (status: Int, body: Data) {
            let output = NSTemporaryDirectory() + "lockr-e2e-doh-\(UUID())"
            defer { try? FileManager.default.removeItem(atPath: output) }
            let result = try await runAwaited(
                "curl",
                [
                    "-s", "--max-time", "5", "--cacert", authority.authority, "--resolve",
                    "dns.test:\(httpsPort):127.0.0.1", "-o", output, "-w", "%{http_code}",
                ] + options + ["https://dns.test:\(httpsPort)\(target)"])
            return (Int(result.output) ?? 0, (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data())
        }
    }

    /// `www.youtube.com A` as a DNS message, base64url without padding, for a GET.
    static let youtubeQuery = "AAABAAABAAAAAAAAA3d3dwd5b3V0dWJlA2NvbQAAAQAB"

    /// `lockr check-config` reads the certificate and key as `serve` would.
    @Test func checkConfigReadsTheCertificateAndSaysWhenTheKeyIsNotItsOwn() async throws {
        let authority = try TestCertificates()
        defer { authority.remove() }
        let lockrs = try authority.server("lockr", names: ["dns.test"])
        let other = try authority.server("other", names: ["other.test"])
        let config = NSTemporaryDirectory() + "lockr-e2e-tls-check-\(UUID()).toml"
        defer { try? FileManager.default.removeItem(atPath: config) }
        func check(certificate: String, key: String) async throws -> (status: Int32, output: String) {
            try """
            listen-tls = ["127.0.0.1:8853"]
            upstreams = ["192.0.2.53"]
            [tls]
            certificate = "\(certificate)"
            key = "\(key)"
            """.write(toFile: config, atomically: true, encoding: .utf8)
            return try await runAwaited(LockrProcess.binary, ["check-config", config])
        }
        let good = try await check(certificate: lockrs.certificate, key: lockrs.key)
        #expect(good.status == 0 && good.output.contains("\(config): OK"), "\(good.output)")
        let mismatched = try await check(certificate: lockrs.certificate, key: other.key)
        #expect(mismatched.status != 0)
        #expect(
            mismatched.output.contains("[tls] cannot use \(lockrs.certificate) with \(other.key)"),
            "\(mismatched.output)")
        let missing = try await check(certificate: lockrs.certificate, key: "/nonexistent/lockr.key")
        #expect(missing.status != 0)
        #expect(missing.output.contains("[tls] cannot read the key /nonexistent/lockr.key"), "\(missing.output)")
    }

    @Test func digKdigAndCurlGetLockrsAnswersOverTLSAndHTTPS() async throws {
        try await withServingLockr { lockr, served in
            await #expect(try served.kdig("www.youtube.com") == "0.0.0.0", "the default person's youtube is locked")
            await #expect(try served.kdig("news.example") == "192.0.2.24")
            await #expect(try served.kdig("news.example", https: "/dns-query") == "192.0.2.24")
            let dotByDig = try await runAwaited(
                "dig", ["@127.0.0.1", "-p", "\(served.tlsPort)", "+tls", "+short", "+time=3", "news.example"])
            #expect(dotByDig.output.contains("192.0.2.24"), "\(dotByDig.output)")
            let dohByDig = try await runAwaited(
                "dig", ["@127.0.0.1", "-p", "\(served.httpsPort)", "+https", "+short", "+time=3", "news.example"])
            #expect(dohByDig.output.contains("192.0.2.24"), "\(dohByDig.output)")
            for version in ["--http1.1", "--http2"] {
                let answer = try await served.curl("/dns-query?dns=\(Self.youtubeQuery)", [version])
                #expect(answer.status == 200, "\(version)")
                #expect(answer.body.count > 12 && Array(answer.body.suffix(4)) == [0, 0, 0, 0], "\(version): 0.0.0.0")
            }
            // Devices that look for an encrypted resolver (DDR) find lockr's own endpoints.
            let designated = try await dig(lockr.port, "_dns.resolver.arpa", "SVCB", "+short")
            #expect(designated.contains("1 dns.test. alpn=\"dot\" port=\(served.tlsPort)"), "\(designated)")
            #expect(
                designated.contains("2 dns.test. alpn=\"h2\" port=\(served.httpsPort) key7=\"/dns-query{?dns}\""),
                "\(designated)")
            #expect(try await dig(lockr.port, "resolver.arpa", "SVCB").contains("anti-bypass: no designated resolver"))
            #expect(lockr.log.contains("transport=tls"))
            #expect(lockr.log.contains("url=https://dns.test:\(served.httpsPort)/dns-query"), "\(lockr.log)")
        }
    }

    @Test func eachDeviceIsItsPersonByItsClientIDInThePathOrTheServerName() async throws {
        try await withServingLockr { lockr, served in
            await #expect(try served.kdig("tiktok.com", https: "/dns-query/alice-phone") == "0.0.0.0")
            await #expect(try served.kdig("tiktok.com", https: "/dns-query/bob-laptop") == "192.0.2.21")
            await #expect(
                try served.kdig("www.youtube.com", https: "/dns-query/bob-laptop") == "192.0.2.22", "time left")
            await #expect(try served.kdig("tiktok.com", tls: "alice-phone.dns.test") == "0.0.0.0")
            await #expect(try served.kdig("tiktok.com", tls: "bob-laptop.dns.test") == "192.0.2.21")
            // The same address, so only the ClientID tells them apart.
            let devices = try await lockr.cli("devices").output
            let lines = devices.split(separator: "\n")
            for (person, id) in [("alice", "alice-phone"), ("bob", "bob-laptop")] {
                #expect(
                    lines.contains {
                        $0.hasPrefix(person) && $0.contains("id:\(id) (127.0.0.1)") && $0.contains("by client-id")
                    }, "\(devices)")
            }
            // A path that is no ClientID is refused; an unknown ClientID is the default person's.
            await #expect(try served.curl("/dns-query/not_an_id?dns=\(Self.youtubeQuery)").status == 404)
            await #expect(try served.kdig("tiktok.com", https: "/dns-query/carols-tablet") == "0.0.0.0")
        }
    }

    @Test func aRenewedCertificateIsServedToTheNextConnectionAndOpenOnesGoOn() async throws {
        // Connections idle for 20 s are closed: the kept one must not be, however slow the machine.
        try await withServingLockr(idleMilliseconds: 20_000) { lockr, served in
            let open = try KeptDoTConnection(served: served, asking: "news.example")
            defer { open.stop() }
            #expect(open.next() == "192.0.2.24")
            await #expect(try servedPin(served) == served.server.pin)
            // A renewal: a new key and certificate written over the old files, as certbot's hook does.
            let renewed = try served.authority.server("renewed", names: ["dns.test", "*.dns.test"])
            try FileManager.default.removeItem(atPath: served.server.certificate)
            try FileManager.default.removeItem(atPath: served.server.key)
            try FileManager.default.copyItem(atPath: renewed.key, toPath: served.server.key)
            try FileManager.default.copyItem(atPath: renewed.certificate, toPath: served.server.certificate)
            // The open connection keeps asking meanwhile.
            var answers: [String?] = []
            #expect(
                await eventually(20) {
                    open.ask()
                    answers.append(open.next())
                    return (try? await servedPin(served)) == renewed.pin
                }, "\(lockr.log)")
            #expect(answers.allSatisfy { $0 == "192.0.2.24" }, "\(answers)")
            #expect(lockr.log.contains("certificate read again"))
            open.ask()
            #expect(open.next() == "192.0.2.24", "the connection opened before goes on")
            await #expect(try served.kdig("news.example") == "192.0.2.24")
            // A broken file keeps the certificate in force.
            try "not a certificate".write(toFile: served.server.certificate, atomically: true, encoding: .utf8)
            #expect(await eventually(20) { lockr.log.contains("the changed certificate cannot be used") })
            await #expect(try servedPin(served) == renewed.pin)
        }
    }

    /// The pin of the certificate lockr's DNS-over-TLS port serves now.
    private func servedPin(_ served: Served) async throws -> String {
        try await runAwaited(
            "/bin/sh",
            [
                "-c",
                "openssl s_client -connect 127.0.0.1:\(served.tlsPort) -servername dns.test </dev/null 2>/dev/null | openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
            ]
        ).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// HTTP/2 clients split a request into frames in more ways than kdig, dig and curl do
    /// (Tests/Scripts/h2_frames.py, with Debian's python3-h2): every way is answered, a reset stream
    /// leaves its connection working, and a connection that sends more than its first 64 KiB
    /// of requests gets its receive window back.
    @Test func aRequestIsAnsweredHoweverItsFramesAreSplit() async throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/h2_frames.py").path
        try await withServingLockr { _, served in
            let result = try await runAwaited(
                script, ["\(served.httpsPort)", served.authority.authority, "news.example"])
            #expect(
                result.output.split(separator: "\n") == [
                    "get-end-later 200 192.0.2.24", "get-end-later 200 192.0.2.24", "post-in-pieces 200 192.0.2.24",
                    "post-trailers 200 192.0.2.24", "reset-then-ask 200 192.0.2.24", "many-posts 120",
                ], "\(result.output)")
        }
    }

    @Test func badRequestsAreRefusedAndDNSGoesOn() async throws {
        try await withServingLockr { lockr, served in
            await #expect(try served.curl("/dns-query?dns=%%%not-base64").status == 400)
            await #expect(try served.curl("/dns-query").status == 400)
            await #expect(try served.curl("/elsewhere?dns=\(Self.youtubeQuery)").status == 404)
            let big = NSTemporaryDirectory() + "lockr-e2e-big-\(UUID())"
            try Data(count: 70_000).write(to: URL(fileURLWithPath: big))
            defer { try? FileManager.default.removeItem(atPath: big) }
            for version in ["--http1.1", "--http2"] {
                let posted = try await served.curl(
                    "/dns-query",
                    [version, "-X", "POST", "-H", "content-type: application/dns-message", "--data-binary", "@\(big)"])
                #expect(posted.status == 413, "\(version): a 70 KB body")
            }
            await #expect(
                try served.curl("/dns-query", ["-X", "POST", "-H", "content-type: text/plain", "--data", "x"]).status
                    == 415)
            // Connections that never say hello are closed within the idle timeout (2 s here), and
            // meanwhile everyone else is answered.
            let silent = [served.tlsPort, served.httpsPort].compactMap {
                DNSClient.openTCP(port: $0, from: "127.0.0.1")
            }
            #expect(silent.count == 2)
            await #expect(try served.kdig("news.example") == "192.0.2.24")
            #expect(try await dig(lockr.port, "news.example", "+short").contains("192.0.2.24"))
            for fd in silent {
                #expect(DNSClient.isClosed(fd, seconds: 4), "a handshake that never finishes")
                close(fd)
            }
            // Many streams on one HTTP/2 connection, as many at once as lockr allows (64): all
            // answered. (Asking curl for more at once made it open more connections, which sat
            // idle past this lockr's 2-second idle timeout on a loaded machine and were reset.)
            let url = "https://dns.test:\(served.httpsPort)/dns-query?dns=\(Self.youtubeQuery)"
            let urls = (0..<300).flatMap { _ in ["-o", "/dev/null", url] }
            let flood = try await runAwaited(
                "curl",
                [
                    // A loaded machine (the suite runs its tests side by side) may take seconds for
                    // the handshake and the queue of streams beyond 64: a generous time, and curl's
                    // reason for any that failed.
                    "-s", "--no-progress-meter", "--http2", "--parallel", "--parallel-max", "64", "--max-time", "60",
                    "--cacert", served.authority.authority, "--resolve", "dns.test:\(served.httpsPort):127.0.0.1",
                    "-w", "%{http_code} %{errormsg}\\n",
                ] + urls)
            let codes = flood.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(codes.count == 300 && codes.allSatisfy { $0 == "200" }, "\(Set(codes))")
            await #expect(try served.kdig("news.example", https: "/dns-query") == "192.0.2.24")
        }
    }
}

/// Tests/Scripts/dot_client.py: one DNS-over-TLS connection kept open, asking again on demand.
final class KeptDoTConnection {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(served: EncryptedServingEndToEndTests.Served, asking name: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/dot_client.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, served.authority.authority, "\(served.tlsPort)", "dns.test", name]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// Asks once more on the same connection (nothing when the client has ended: `next` says so).
    func ask() { try? input.fileHandleForWriting.write(contentsOf: Data("again\n".utf8)) }

    /// The next answer's address, or nil when the connection ended.
    func next() -> String? {
        var line = Data()
        while let byte = try? output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 10 {
            line.append(first)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
