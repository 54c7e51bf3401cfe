import DNSTestSupport
import Foundation
import Glibc
import Testing

/// The sd_notify protocol end to end, with a notify socket of the test's own standing in for
/// systemd: READY once lockr answers, WATCHDOG while it is healthy and none while its DNS loops are
/// stuck (stalled through a test-only switch), STOPPING on SIGTERM.
@Suite struct ServiceManagerEndToEndTests {
    /// A datagram socket bound to a fresh path, read without blocking.
    final class NotifySocket {
        let path = NSTemporaryDirectory() + "lockr-notify-\(UUID().uuidString.prefix(8)).sock"
        private let descriptor: Int32
        /// What came, with when it was taken in (`drain`).
        private(set) var received: [(at: Date, message: String)] = []

        init() throws {
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard descriptor >= 0, bound == 0 else { throw LockrProcess.Failure("cannot bind \(path)") }
        }

        deinit {
            close(descriptor)
            unlink(path)
        }

        /// Takes in what has come since the last look.
        func drain() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(descriptor, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                received.append((Date(), String(decoding: buffer[0..<count], as: UTF8.self)))
            }
        }

        /// Waits up to `seconds` for a message that `matches`.
        func wait(_ seconds: Double, for matches: (String) -> Bool) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                drain()
                if received.contains(where: { matches($0.message) }) { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        func count(_ message: String, after start: Date) -> Int {
            drain()
            return received.filter { $0.message == message && $0.at > start }.count
        }
    }

    func start(_ notify: NotifySocket, watchdogMicroseconds: Int, _ extra: [String] = []) async throws -> LockrProcess {
        let upstream = "127.0.0.1:9"
        return try await LockrProcess(
            ["--upstream", upstream, "--guard", "tiktok"] + extra,
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": String(watchdogMicroseconds)])
    }

    @Test func readyOnceAnsweringWatchdogWhileHealthyAndStoppingOnSigterm() async throws {
        let notify = try NotifySocket()
        let lockr = try await start(notify, watchdogMicroseconds: 400_000)
        #expect(await notify.wait(5) { $0.hasPrefix("READY=1") }, "READY once ready: \(notify.received)")
        let ready = try #require(notify.received.first { $0.message.hasPrefix("READY=1") })
        #expect(ready.message.contains("STATUS=answering"))
        try await Task.sleep(for: .seconds(2))
        #expect(notify.count("WATCHDOG=1", after: ready.at) >= 3, "a ping every 200 ms: \(notify.received.map(\.message))")
        #expect(await lockr.finish() == 0)
        #expect(await notify.wait(1) { $0 == "STOPPING=1" }, "STOPPING on SIGTERM: \(notify.received.map(\.message))")
    }

    @Test func noWatchdogPingWhileTheDNSLoopsAreStuck() async throws {
        let notify = try NotifySocket()
        let lockr = try await start(notify, watchdogMicroseconds: 400_000, ["--test-stall-dns-after", "2"])
        defer { lockr.kill9(); lockr.stop() }
        #expect(await notify.wait(5) { $0 == "WATCHDOG=1" }, "pinged while healthy")
        // Once the watchdog finds the loops stuck (it says so), no ping comes.
        let deadline = Date().addingTimeInterval(15)
        while !lockr.log.contains("not pinging the service manager's watchdog"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(lockr.log.contains("not pinging the service manager's watchdog"), "\(lockr.log)")
        notify.drain()  // what came while healthy is stamped now, before the silent stretch
        let stuck = Date()
        try await Task.sleep(for: .seconds(2))
        #expect(notify.count("WATCHDOG=1", after: stuck) == 0, "silent once stuck: \(notify.received.map(\.message))")
        #expect(lockr.log.contains("stuck-dns-loops="), "says what is stuck")
    }
}
