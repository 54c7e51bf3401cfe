import DNSTestSupport
import Foundation

/// A certificate authority made for one test with openssl, and server certificates it signs.
final class TestCertificates {
    let directory: String
    /// The authority's certificate (PEM), the file a client trusts.
    var authority: String { directory + "/ca.pem" }

    /// A server's certificate (PEM) and key, and the pin of its key (base64 SHA-256 of its SPKI).
    struct Server {
        let certificate: String
        let key: String
        let pin: String
    }

    init() throws {
        directory = NSTemporaryDirectory() + "lockr-e2e-ca-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            directory + "/ca.key", "-out", authority, "-days", "2", "-subj", "/CN=lockr test CA \(UUID())",
        ])
    }

    /// A certificate for `names` (DNS names, and IP addresses written as "IP:127.0.0.1").
    func server(_ file: String, names: [String]) throws -> Server {
        let base = directory + "/" + file
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", base + ".key",
            "-out", base + ".csr", "-subj", "/CN=\(names[0])",
        ])
        let alternatives = names.map { $0.hasPrefix("IP:") ? $0 : "DNS:" + $0 }.joined(separator: ",")
        try "subjectAltName=\(alternatives)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: base + ".ext", atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", base + ".csr", "-CA", authority, "-CAkey", directory + "/ca.key",
            "-CAcreateserial", "-out", base + ".pem", "-days", "2", "-extfile", base + ".ext",
        ])
        let pin = try run(
            "/bin/sh",
            [
                "-c",
                "openssl x509 -in '\(base).pem' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
            ])
        return Server(
            certificate: base + ".pem", key: base + ".key",
            pin: pin.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    private func openssl(_ arguments: [String]) throws {
        let result = try run("/usr/bin/openssl", arguments)
        guard result.status == 0 else { throw LockrProcess.Failure("openssl \(arguments[0]) failed: \(result.output)") }
    }
}

/// A real unbound serving plain DNS, DNS over TLS and DNS over HTTPS (HTTP/2) on free loopback
/// ports with a test certificate. It answers `www.unbound.test` itself and asks `forwardTo` everything else.
final class UnboundProcess {
    let plainPort: Int
    let tlsPort: Int
    let httpsPort: Int
    private let configPath: String
    private let certificate: TestCertificates.Server
    private let forwardTo: Int
    private var pid: pid_t

    static let binary = "/usr/sbin/unbound"

    /// The `server:` lines of an unbound a test runs: in the foreground as the test's user, logging
    /// nothing, answering loopback, asking upstreams on loopback, serving the names under test.
    static let inTheForeground = """
          do-daemonize: no
          username: ""
          chroot: ""
          pidfile: ""
          use-syslog: no
          logfile: "/dev/null"
          verbosity: 0
          directory: "\(NSTemporaryDirectory())"
          access-control: 127.0.0.0/8 allow
          do-not-query-localhost: no
          local-zone: "test." nodefault
        """

    init(certificate: TestCertificates.Server, forwardTo: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw LockrProcess.Failure("unbound is not installed (apt-get install unbound)")
        }
        (plainPort, tlsPort, httpsPort) = (try freeLoopbackPort(), try freeLoopbackPort(), try freeLoopbackPort())
        configPath = NSTemporaryDirectory() + "lockr-e2e-unbound-\(UUID()).conf"
        self.certificate = certificate
        self.forwardTo = forwardTo
        pid = 0
        try start()
    }

    /// Starts it again on the same ports (after `kill9`).
    func start() throws {
        try """
        server:
          interface: 127.0.0.1@\(plainPort)
          interface: 127.0.0.1@\(tlsPort)
          interface: 127.0.0.1@\(httpsPort)
          tls-port: \(tlsPort)
          https-port: \(httpsPort)
          tls-service-key: "\(certificate.key)"
          tls-service-pem: "\(certificate.certificate)"
        \(Self.inTheForeground)
          module-config: "iterator"
          local-zone: "unbound.test." static
          local-data: "www.unbound.test. 60 IN A 192.0.2.80"
        forward-zone:
          name: "."
          forward-addr: 127.0.0.1@\(forwardTo)
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        pid = try spawnWithDefaultSignals(Self.binary, ["-d", "-c", configPath])
        for _ in 0..<100 {
            let probe = ["@127.0.0.1", "-p", "\(plainPort)", "+tries=1", "+time=1", "www.unbound.test"]
            if (try? run("dig", probe))?.output.contains("192.0.2.80") == true { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw LockrProcess.Failure("unbound exited with status \((status >> 8) & 0xff)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        stop()
        throw LockrProcess.Failure("unbound did not start answering on port \(plainPort)")
    }

    /// Kills it at once, connections and all.
    func kill9() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: configPath)
    }
}
