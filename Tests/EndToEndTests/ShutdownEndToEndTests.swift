import DNSTestSupport
import Foundation
import Testing

/// A service that cannot start (an address in use, a backend that does not answer, a missing
/// speech model) leaves the others running and the daemon stoppable: SIGTERM and SIGINT end it
/// within seconds, as systemd's stop, restart and upgrade expect, instead of a timeout and a kill.
@Suite struct ShutdownEndToEndTests {
    @Test(arguments: [SIGTERM, SIGINT]) func aWebAddressInUseLeavesItStoppable(signal: Int32) async throws {
        let held = try HeldTCPPort()
        defer { held.close() }
        let upstream = try await ScriptedUpstream()
        defer { Task { await upstream.stop() } }
        let lockr = try await LockrProcess([
            "--upstream", "127.0.0.1:\(upstream.port)", "--web", "127.0.0.1:\(held.port)",
        ])
        #expect(lockr.log.contains("web pages not served"), "\(lockr.log)")
        // The rest runs: DNS answers and the CLI reaches the control API.
        #expect(try await dig(lockr.port, "www.test", "+short").contains("192.0.2.1"))
        #expect(try await lockr.cli("status").status == 0)
        let status = await lockr.stop(sending: signal, within: 15)
        #expect(status == 0, "lockr did not stop on signal \(signal): \(lockr.finalLog)")
    }

    @Test func unreachableBackendsAndAMissingSpeechModelLeaveItStoppable() async throws {
        let closed = try HeldTCPPort()
        let nobody = closed.port
        closed.close()
        let directory = NSTemporaryDirectory() + "lockr-e2e-shutdown-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "secret\n".write(toFile: directory + "/pihole.password", atomically: true, encoding: .utf8)
        try """
        guard = ["tiktok"]
        backends = ["dns", "pihole6", "webhook"]
        speech-model = "\(directory)/no-model"
        [policy]
        mode = "hourly"
        [pihole6]
        url = "http://127.0.0.1:\(nobody)"
        password-file = "\(directory)/pihole.password"
        [webhook]
        url = "http://127.0.0.1:\(nobody)/hook"
        events = "text"
        [adapters]
        reconcile-seconds = 1
        retry-max-seconds = 1
        timeout-seconds = 2
        """.write(toFile: directory + "/lockr.toml", atomically: true, encoding: .utf8)
        let upstream = try await ScriptedUpstream()
        defer { Task { await upstream.stop() } }
        let lockr = try await LockrProcess([
            "--config", directory + "/lockr.toml", "--upstream", "127.0.0.1:\(upstream.port)",
        ])
        #expect(try await lockr.cli("unlock", "tiktok").status == 0)
        let failed = await eventually(20) {
            lockr.log.contains("backend=pihole6 error=unreachable")
                && lockr.log.contains("backend=webhook error=unreachable")
        }
        #expect(failed, "\(lockr.log)")
        #expect(lockr.log.contains("spoken sentences cannot be heard"))
        let status = await lockr.stop(sending: SIGTERM, within: 15)
        #expect(status == 0, "lockr did not stop: \(lockr.finalLog)")
    }

    @Test func aControlAddressInUseEndsItSayingWhy() async throws {
        let held = try HeldTCPPort()
        defer { held.close() }
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let ended = try await runAwaited(
            LockrProcess.binary,
            [
                "serve", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:\(held.port)", "--web", "127.0.0.1:0",
                "--upstream", "127.0.0.1:9", "--state-dir", state,
            ])
        #expect(ended.status == 1)
        #expect(ended.output.contains("cannot serve the control API on 127.0.0.1:\(held.port)"), "\(ended.output)")
    }
}

/// A TCP port this test listens on (so lockr cannot), until `close()`.
struct HeldTCPPort {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 8) == 0
                    && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { throw LockrProcess.Failure("cannot hold a TCP port: errno \(errno)") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() { _ = Glibc.close(descriptor) }
}
