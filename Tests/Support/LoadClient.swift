import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A paced UDP load for fault tests: sends queries at a steady rate from one socket and times each
/// answer, like dnsperf in small.
public enum LoadClient {
    /// Sends `packets` to 127.0.0.1:`port` at `rate` a second. Each packet's id must be its index.
    /// Returns each query's latency in seconds, or nil when no answer came within `grace` seconds
    /// after the last query was sent.
    public static func run(_ packets: [[UInt8]], port: Int, rate: Double, grace: Double) -> [Double?] {
        precondition(packets.count <= 65_536)
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        precondition(fd >= 0)
        defer { close(fd) }
        var size: Int32 = 8 * 1024 * 1024
        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")

        let sentAt = Mutex([Double](repeating: 0, count: packets.count))
        let latencies = Mutex([Double?](repeating: nil, count: packets.count))
        let sending = Atomic<Bool>(true)
        let finished = DispatchSemaphore(value: 0)
        let receiver = Thread {
            defer { finished.signal() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var quietSince: Double?
            while true {
                let got = recv(fd, &buffer, buffer.count, 0)
                let now = monotonicSeconds()
                if got >= 2 {
                    let id = Int(buffer[0]) << 8 | Int(buffer[1])
                    guard id < packets.count else { continue }
                    let sent = sentAt.withLock { $0[id] }
                    latencies.withLock { if $0[id] == nil { $0[id] = now - sent } }
                }
                if sending.load(ordering: .acquiring) { continue }
                if quietSince == nil { quietSince = now }
                if now - quietSince! > grace { break }
            }
        }
        receiver.start()
        let start = monotonicSeconds()
        for (index, packet) in packets.enumerated() {
            let due = start + Double(index) / rate
            let wait = due - monotonicSeconds()
            if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
            sentAt.withLock { $0[index] = monotonicSeconds() }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, packet, packet.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        sending.store(false, ordering: .releasing)
        finished.wait()
        return latencies.withLock { $0 }
    }

    static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
