import DNSWire

#if canImport(Glibc)
import Glibc
#endif

/// A blocking DNS client over plain sockets, for tests: one query, one answer, with a timeout.
public enum DNSClient {
    public struct Timeout: Error { public init() {} }

    /// Sends `packet` over UDP to 127.0.0.1:`port` and returns the first datagram back, or throws
    /// `Timeout` after `seconds`.
    public static func udp(_ packet: [UInt8], port: Int, seconds: Double = 2) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        precondition(fd >= 0)
        defer { close(fd) }
        setTimeout(fd, seconds)
        var address = loopback(port)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(fd, packet, packet.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        precondition(sent == packet.count)
        var buffer = [UInt8](repeating: 0, count: 65_535)
        let got = recv(fd, &buffer, buffer.count, 0)
        guard got > 0 else { throw Timeout() }
        return Array(buffer[0..<got])
    }

    /// Asks for `name` over UDP (EDNS, 1232 bytes, so that extended errors can come back; up to
    /// `seconds`) and says how long the answer took, timed around the query alone.
    public static func timedQuery(_ name: String, port: Int, seconds: Double = 5) throws -> (
        reply: LdnsPacket, elapsed: Duration
    ) {
        let started = ContinuousClock.now
        let wire = try udp(LdnsBuild.query(name, ednsPayload: 1232), port: port, seconds: seconds)
        return (try LdnsPacket(wire: wire), ContinuousClock.now - started)
    }

    /// Sends all packets at once from one UDP socket and collects as many datagrams back (in the
    /// order they arrive), or throws `Timeout` when one is missing after `seconds`.
    public static func udpBurst(_ packets: [[UInt8]], port: Int, seconds: Double = 2) throws -> [[UInt8]] {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        precondition(fd >= 0)
        defer { close(fd) }
        setTimeout(fd, seconds)
        var address = loopback(port)
        for packet in packets {
            let sent = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, packet, packet.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            precondition(sent == packet.count)
        }
        var answers: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 65_535)
        for _ in packets {
            let got = recv(fd, &buffer, buffer.count, 0)
            guard got > 0 else { throw Timeout() }
            answers.append(Array(buffer[0..<got]))
        }
        return answers
    }

    /// Sends each packet over one TCP connection (2-byte framing) and reads as many answers.
    /// `raw` bytes are written as they are, before the framed packets, to test bad framing.
    public static func tcp(
        _ packets: [[UInt8]], port: Int, raw: [UInt8] = [], seconds: Double = 2, from source: String = "127.0.0.1"
    ) throws -> [[UInt8]] {
        guard let fd = connectTCP(port: port, seconds: seconds, from: source) else { throw Timeout() }
        defer { close(fd) }
        var out = raw
        for packet in packets {
            out += [UInt8(packet.count >> 8), UInt8(packet.count & 0xFF)] + packet
        }
        guard send(fd, out, out.count, Int32(MSG_NOSIGNAL)) == out.count else { throw Timeout() }
        var answers: [[UInt8]] = []
        for _ in packets {
            let header = try readExactly(fd, 2)
            answers.append(try readExactly(fd, Int(header[0]) << 8 | Int(header[1])))
        }
        return answers
    }

    /// True when the peer closes the TCP connection within `seconds` after `raw` is written.
    public static func tcpClosesAfter(_ raw: [UInt8], port: Int, seconds: Double) -> Bool {
        guard let fd = connectTCP(port: port, seconds: seconds) else { return false }
        defer { close(fd) }
        if !raw.isEmpty { _ = send(fd, raw, raw.count, Int32(MSG_NOSIGNAL)) }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    /// Opens a TCP connection from `source` (any 127.x.y.z address) and keeps it: the caller closes
    /// the descriptor. Nil when the connection is refused.
    public static func openTCP(port: Int, from source: String, seconds: Double = 2) -> Int32? {
        connectTCP(port: port, seconds: seconds, from: source)
    }

    /// True when the peer has closed `fd` by now (a read that does not wait returns end of file):
    /// for checking many connections at once after one pause, without blocking a thread on each.
    public static func isClosedNow(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_DONTWAIT) | Int32(MSG_PEEK)) == 0
    }

    /// True when the peer has closed `fd` (a read returns end of file within `seconds`).
    public static func isClosed(_ fd: Int32, seconds: Double) -> Bool {
        setTimeout(fd, seconds)
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    /// Sends a frame header announcing a 40-byte query, then one byte every `every` seconds, and
    /// returns how long the connection stayed open (nil: still open after `seconds`).
    public static func trickle(port: Int, every: Double, seconds: Double) -> Double? {
        guard let fd = connectTCP(port: port, seconds: every) else { return nil }
        defer { close(fd) }
        var started = timespec()
        clock_gettime(CLOCK_MONOTONIC, &started)
        func elapsed() -> Double {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Double(now.tv_sec - started.tv_sec) + Double(now.tv_nsec - started.tv_nsec) / 1e9
        }
        var bytes: [UInt8] = [0, 40] + [UInt8](repeating: 0, count: 40)
        while elapsed() < seconds, !bytes.isEmpty {
            guard send(fd, [bytes.removeFirst()], 1, Int32(MSG_NOSIGNAL)) == 1 else { return elapsed() }
            var byte: UInt8 = 0
            if recv(fd, &byte, 1, 0) == 0 { return elapsed() }  // waits `every` for the close
        }
        return nil
    }

    /// A TCP socket connected to 127.0.0.1:`port` from `source`, whose reads time out after `seconds`.
    private static func connectTCP(port: Int, seconds: Double, from source: String = "127.0.0.1") -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0)
        setTimeout(fd, seconds)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        precondition(bound == 0, "cannot bind to \(source)")
        var address = loopback(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    private static func readExactly(_ fd: Int32, _ count: Int) throws -> [UInt8] {
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = result.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + filled, count - filled, 0) }
            guard got > 0 else { throw Timeout() }
            filled += got
        }
        return result
    }

    private static func setTimeout(_ fd: Int32, _ seconds: Double) {
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
