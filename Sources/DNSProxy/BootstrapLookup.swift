import DNSWire
import Glibc
import NIOCore

/// Where an upstream named by its host alone (`NamedUpstream`) is: its A and AAAA records, asked
/// over plain DNS of the bootstrap servers in turn until one gives addresses. Used when lockr
/// starts and reloads, before it answers with the new upstreams; blocks up to `timeout` a server.
public enum BootstrapLookup {
    /// Why no address was found.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The addresses of `host`, from the first of `servers` that has any.
    public static func addresses(
        of host: String, servers: [SocketAddress], timeout: Duration = .seconds(2)
    ) throws(Failure) -> [SocketAddress] {
        guard !servers.isEmpty else { throw Failure(description: "no bootstrap server to ask where \(host) is") }
        var problems: [String] = []
        for server in servers {
            switch ask(server, host: host, timeout: timeout) {
            case .success(let found) where !found.isEmpty: return found
            case .success: problems.append("\(server.ipAddress ?? "?") knows no address of it")
            case .failure(let problem): problems.append("\(server.ipAddress ?? "?"): \(problem.description)")
            }
        }
        throw Failure(description: "where \(host) is: " + problems.joined(separator: "; "))
    }

    /// A and AAAA of `host` asked at once of `server`; what both answers hold.
    private static func ask(
        _ server: SocketAddress, host: String, timeout: Duration
    ) -> Result<[SocketAddress], Failure> {
        let questions = [RecordType.a, RecordType.aaaa].compactMap { type -> [UInt8]? in
            guard var packet = DNSQuery.asking(host, type: type)?.packet else { return nil }
            let id = UInt16.random(in: 0 ... .max)
            packet[0] = UInt8(id >> 8)
            packet[1] = UInt8(truncatingIfNeeded: id)
            return packet
        }
        guard questions.count == 2 else { return .failure(Failure(description: "'\(host)' is not a name")) }
        let family = server.protocol == .inet6 ? AF_INET6 : AF_INET
        let handle = socket(family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard handle >= 0 else { return .failure(Failure(description: "no socket (errno \(errno))")) }
        defer { close(handle) }
        let connected = server.withSockAddr { connect(handle, $0, socklen_t($1)) }
        guard connected == 0 else { return .failure(Failure(description: "cannot send to it (errno \(errno))")) }
        for question in questions { _ = question.withUnsafeBytes { send(handle, $0.baseAddress, $0.count, 0) } }

        var addresses: [SocketAddress] = []
        var answered: Set<UInt16> = []
        let deadline = ContinuousClock.now + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        while answered.count < questions.count {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            var poller = pollfd(fd: handle, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, max(1, milliseconds)) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(handle, $0.baseAddress, $0.count, 0) }
            guard count >= 12 else {
                if count < 0 { return .failure(Failure(description: "refused the question (errno \(errno))")) }
                continue
            }
            let reply = Array(buffer[..<count])
            let id = UInt16(reply[0]) << 8 | UInt16(reply[1])
            guard let question = questions.first(where: { UInt16($0[0]) << 8 | UInt16($0[1]) == id }),
                reply.count >= question.count, reply[12..<question.count].elementsEqual(question[12...]),
                let packet = try? LdnsPacket(wire: reply)
            else { continue }
            answered.insert(id)
            guard packet.rcode == 0 || packet.rcode == 3 else {
                return .failure(Failure(description: "answered with rcode \(packet.rcode)"))
            }
            addresses += packet.answerRecords.compactMap(address(in:))
        }
        if answered.isEmpty { return .failure(Failure(description: "no answer within \(timeout)")) }
        return .success(addresses)
    }

    /// The address of an A or AAAA record in presentation form ("name. 300 IN A 192.0.2.1").
    private static func address(in record: String) -> SocketAddress? {
        let fields = record.split(whereSeparator: \.isWhitespace)
        guard fields.count == 5, fields[3] == "A" || fields[3] == "AAAA" else { return nil }
        return try? SocketAddress(ipAddress: String(fields[4]), port: 0)
    }
}
