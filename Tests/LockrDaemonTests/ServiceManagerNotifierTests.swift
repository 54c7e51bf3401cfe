import Foundation
import Testing

@testable import LockrDaemon

/// A service manager's socket that is full: a ping is dropped at once, a change of state waits for
/// room (here, a reader that frees a place after 300 ms), for a bounded time.
@Suite struct ServiceManagerNotifierTests {
    @Test func aFullSocketDropsAPingAndAChangeOfStateWaitsForRoom() throws {
        let path = NSTemporaryDirectory() + "lockr-notify-\(UUID().uuidString.prefix(8))"
        let reader = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(reader >= 0)
        defer {
            close(reader)
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(reader, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        #expect(bound == 0)
        let notifier = try #require(ServiceManagerNotifier(environment: ["NOTIFY_SOCKET": path]))
        var queued = 0
        while notifier.send("WATCHDOG=1"), queued < 10_000 { queued += 1 }
        #expect(queued >= 1 && queued < 10_000, "the queue fills: \(queued)")
        #expect(!notifier.send("WATCHDOG=1"), "a ping finds no room and is dropped")
        #expect(!notifier.send("STOPPING=1", patience: .milliseconds(100)), "nobody reads: dropped after the wait")
        // A reader frees one place after 300 ms: the change of state gets it.
        let freeing = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            var buffer = [UInt8](repeating: 0, count: 64)
            _ = recv(reader, &buffer, buffer.count, 0)
        }
        freeing.start()
        #expect(notifier.send("STOPPING=1", patience: .seconds(2)))
        var buffer = [UInt8](repeating: 0, count: 64)
        var last = ""
        for _ in 0..<queued {
            let got = recv(reader, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if got > 0 { last = String(decoding: buffer[0..<got], as: UTF8.self) }
        }
        #expect(last == "STOPPING=1")
    }
}
