import DNSTestSupport
import Foundation
import Glibc
import Synchronization
import Testing

/// The sd_notify protocol end to end, with a notify socket of the test's own standing in for
/// systemd: READY once lockr answers, WATCHDOG while it is healthy and none while its DNS loops are
/// stuck (stalled through a test-only switch), STOPPING on SIGTERM.
@Suite struct ServiceManagerEndToEndTests {
    /// A datagram socket bound to a fresh path, read on a thread of its own as systemd reads it: a
    /// reader that is a task of Swift's concurrency lags on a loaded machine, and the socket holds
    /// only 10 datagrams (`net.unix.max_dgram_qlen`).
    final class NotifySocket: Sendable {
        let path = NSTemporaryDirectory() + "lockr-notify-\(UUID().uuidString.prefix(8)).sock"
        private let descriptor: Int32
        private let messages = Mutex<[(at: Date, message: String)]>([])
        private let reading = Atomic<Bool>(true)
        private let readerDone = DispatchSemaphore(value: 0)

        init() throws {
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
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
            let reader = Thread { [self] in readUntilClosed() }
            reader.name = "notify-socket"
            reader.start()
        }

        deinit {
            reading.store(false, ordering: .relaxed)
            readerDone.wait()
            close(descriptor)
            unlink(path)
        }

        /// Takes every datagram in as it comes, stamped with when it came, until `deinit`.
        private func readUntilClosed() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            while reading.load(ordering: .relaxed) {
                guard poll(&poller, 1, 50) > 0 else { continue }
                let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                guard count > 0 else { continue }
                let message = String(decoding: buffer[0..<count], as: UTF8.self)
                messages.withLock { $0.append((Date(), message)) }
            }
            readerDone.signal()
        }

        /// What came so far, with when it was taken in.
        var received: [(at: Date, message: String)] { messages.withLock { $0 } }

        /// Waits up to `seconds` for a message that `matches`.
        func wait(_ seconds: Double, for matches: (String) -> Bool) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if received.contains(where: { matches($0.message) }) { return true }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return false
        }

        func count(_ message: String, after start: Date) -> Int {
            received.filter { $0.message == message && $0.at > start }.count
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
        #expect(
            notify.count("WATCHDOG=1", after: ready.at) >= 3, "a ping every 200 ms: \(notify.received.map(\.message))")
        // lockr drops pings that do not fit in the socket and waits up to 2 s for room for STOPPING=1.
        lockr.signal(SIGTERM)
        #expect(
            await notify.wait(10) { $0 == "STOPPING=1" }, "STOPPING on SIGTERM: \(notify.received.map(\.message))")
        #expect(await eventually(10) { !lockr.process.isRunning })
        #expect(lockr.stop() == 0)
    }

    /// A service manager that does not read: lockr's messages are dropped, and it still stops.
    @Test func aManagerThatDoesNotReadHoldsNothingUp() async throws {
        let notify = try NotifySocket()
        let lockr = try await start(notify, watchdogMicroseconds: 100_000)
        defer { lockr.kill9(); lockr.stop() }
        // Pings every 50 ms fill the socket's 10 places in half a second; none is read.
        try await Task.sleep(for: .seconds(2))
        // DNS is answered: the web pages' name, which lockr answers itself.
        #expect(try await dig(lockr.port, "lockr.lan").contains("status: NOERROR"))
        lockr.signal(SIGTERM)
        #expect(await eventually(10) { !lockr.process.isRunning }, "it stopped: \(lockr.log)")
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
        let stuck = Date()
        try await Task.sleep(for: .seconds(2))
        #expect(notify.count("WATCHDOG=1", after: stuck) == 0, "silent once stuck: \(notify.received.map(\.message))")
        #expect(lockr.log.contains("stuck-dns-loops="), "says what is stuck")
    }
}
