import DNSWire
import Glibc
import NIOCore
import Synchronization

/// The kernel's neighbour table (ARP for IPv4, NDP for IPv6): which MAC address each address on
/// this machine's links has, and when the kernel last heard from it. Read over rtnetlink by
/// `refresh` (the daemon calls it every few seconds) and kept as a snapshot that lookups read. An
/// address the snapshot lacks is looked up in the kernel's table at once (a device that just joined
/// had to ask for lockr's own address first, so the kernel knows it); an address a fresh read
/// lacked is not looked up again until the next regular read, and such reads are at least
/// `missReadSpacing` apart (each waiting at most `missReadTimeout`), so that a flood of unknown
/// sources costs at most one read every 20 ms.
public final class NeighbourTable: NeighbourLookup, NeighbourPresence {
    /// One neighbour.
    public struct Entry: Sendable, Equatable {
        public let mac: MACAddress
        /// The link it is on (its interface index).
        public let interface: Int32
        /// When the kernel last confirmed it reachable, in monotonic nanoseconds.
        public let confirmed: UInt64
    }

    private let snapshot = Mutex<[UInt128: Entry]>([:])
    private let readable = Atomic<Bool>(false)
    /// When the table was last read, in monotonic nanoseconds.
    private let lastRead = Atomic<UInt64>(0)
    /// Addresses a read made for them lacked: not read for again until the next regular read.
    private let absent = Mutex<Set<UInt128>>([])

    /// The shortest time between two reads that missing addresses make.
    static let missReadSpacing: UInt64 = 20_000_000
    /// The most absent addresses remembered (a flood of spoofed sources forgets and reads again).
    static let absentLimit = 4096

    public init() {}

    public func mac(for address: UInt128) -> MACAddress? {
        if let mac = snapshot.withLock({ $0[address]?.mac }) { return mac }
        return macAfterMiss(address)
    }

    /// Reads the kernel's table for an address the snapshot lacks, unless a read already found it
    /// absent, another read was just made, or another thread is at it.
    private func macAfterMiss(_ address: UInt128) -> MACAddress? {
        guard !absent.withLock({ $0.contains(address) }) else { return nil }
        let now = NIODeadline.now().uptimeNanoseconds
        let last = lastRead.load(ordering: .relaxed)
        guard now &- last >= Self.missReadSpacing,
            lastRead.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged
        else { return nil }
        guard let entries = try? Self.read(now: now, waiting: Self.missReadTimeout) else { return nil }
        snapshot.withLock { $0 = entries }
        if let mac = entries[address]?.mac { return mac }
        absent.withLock { absent in
            if absent.count >= Self.absentLimit { absent.removeAll() }
            absent.insert(address)
        }
        return nil
    }

    public var isReadable: Bool { readable.load(ordering: .relaxed) }

    public func lastConfirmed(mac: MACAddress?, address: UInt128) -> UInt64? {
        snapshot.withLock { table in
            guard let mac else { return table[address]?.confirmed }
            return table.values.filter { $0.mac == mac }.map(\.confirmed).max()
        }
    }

    public func probe(mac: MACAddress?, address: UInt128) {
        let targets = snapshot.withLock { table in
            guard let mac else { return table[address].map { [(address, $0.interface)] } ?? [] }
            return table.filter { $0.value.mac == mac }.map { ($0.key, $0.value.interface) }
        }
        for (address, interface) in targets { Self.knock(address, interface: interface) }
    }

    /// Sends one empty datagram to the discard port (9) of `address`: the kernel then confirms the
    /// neighbour (ARP or NDP) unless it did lately. The device's answer to the datagram itself, if
    /// any, does not matter.
    private static func knock(_ address: UInt128, interface: Int32) {
        let mapped = address >> 32 == 0xFFFF
        let handle = socket(mapped ? AF_INET : AF_INET6, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard handle >= 0 else { return }
        defer { close(handle) }
        if mapped {
            var target = sockaddr_in()
            target.sin_family = sa_family_t(AF_INET)
            target.sin_port = UInt16(9).bigEndian
            target.sin_addr.s_addr = UInt32(truncatingIfNeeded: address).bigEndian
            _ = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(handle, nil, 0, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        } else {
            var target = sockaddr_in6()
            target.sin6_family = sa_family_t(AF_INET6)
            target.sin6_port = UInt16(9).bigEndian
            withUnsafeMutableBytes(of: &target.sin6_addr) { bytes in
                for index in 0..<16 { bytes[index] = UInt8(truncatingIfNeeded: address >> (8 * (15 - index))) }
            }
            // A link-local address means something only on its link.
            if address >> 118 == 0x3FA { target.sin6_scope_id = UInt32(bitPattern: interface) }
            _ = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(handle, nil, 0, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// Every neighbour by address (IPv4 mapped into IPv6).
    public var entries: [UInt128: Entry] { snapshot.withLock { $0 } }

    /// Reads the kernel's table anew.
    public func refresh() throws(NeighbourError) {
        let entries: [UInt128: Entry]
        let now = NIODeadline.now().uptimeNanoseconds
        lastRead.store(now, ordering: .relaxed)
        do { entries = try Self.read(now: now, waiting: timeval(tv_sec: 2, tv_usec: 0)) } catch {
            readable.store(false, ordering: .relaxed)
            throw error
        }
        snapshot.withLock { $0 = entries }
        absent.withLock { $0.removeAll() }
        readable.store(true, ordering: .relaxed)
    }

    /// Refreshes every `interval` until cancelled; `report` hears of the first failure of a run of
    /// them (with the error) and of the first success after it (nil).
    public func keepFresh(every interval: Duration, report: (NeighbourError?) -> Void) async {
        var failing = false
        while !Task.isCancelled {
            do throws(NeighbourError) {
                try refresh()
                if failing { report(nil) }
                failing = false
            } catch {
                if !failing { report(error) }
                failing = true
            }
            try? await Task.sleep(for: interval)
        }
    }

    // rtnetlink, from <linux/netlink.h>, <linux/rtnetlink.h> and <linux/neighbour.h>.
    private static let getNeighbours: UInt16 = 30  // RTM_GETNEIGH
    private static let newNeighbour: UInt16 = 28  // RTM_NEWNEIGH
    private static let done: UInt16 = 3  // NLMSG_DONE
    private static let error: UInt16 = 2  // NLMSG_ERROR
    private static let request: UInt16 = 0x001  // NLM_F_REQUEST
    private static let dump: UInt16 = 0x300  // NLM_F_ROOT | NLM_F_MATCH
    private static let destination: UInt16 = 1  // NDA_DST
    private static let linkAddress: UInt16 = 2  // NDA_LLADDR
    private static let cacheInfo: UInt16 = 3  // NDA_CACHEINFO
    /// The kernel's ages in NDA_CACHEINFO are clock ticks of USER_HZ (100 a second on Linux).
    private static let nanosecondsPerTick: UInt64 = 10_000_000
    /// NUD_INCOMPLETE | NUD_FAILED (no address known) | NUD_NOARP (loopback, multicast: no device;
    /// iproute2 hides them too).
    private static let unknown: UInt16 = 0x01 | 0x20 | 0x40

    /// How long a read for a missing address waits for the kernel: it runs where queries are
    /// answered.
    static let missReadTimeout = timeval(tv_sec: 0, tv_usec: 50_000)

    /// The table, with the kernel's ages turned into times before `now` (monotonic nanoseconds),
    /// waiting at most `timeout` for each of the kernel's answers.
    private static func read(now: UInt64, waiting timeout: timeval) throws(NeighbourError) -> [UInt128: Entry] {
        let handle = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0 /* NETLINK_ROUTE */)
        guard handle >= 0 else {
            throw NeighbourError("cannot open a netlink socket: \(String(cString: strerror(errno)))")
        }
        defer { close(handle) }
        var timeout = timeout
        setsockopt(handle, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // nlmsghdr (16 bytes) + ndmsg (12 bytes, family AF_UNSPEC: both families).
        var message = [UInt8](repeating: 0, count: 28)
        message.store(UInt32(28), at: 0)
        message.store(getNeighbours, at: 4)
        message.store(request | dump, at: 6)
        message.store(UInt32(1), at: 8)
        guard message.withUnsafeBytes({ send(handle, $0.baseAddress, $0.count, 0) }) == 28 else {
            throw NeighbourError("cannot ask the kernel for its neighbours: \(String(cString: strerror(errno)))")
        }
        var entries: [UInt128: Entry] = [:]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(handle, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                throw NeighbourError("the kernel's neighbour table did not come: \(String(cString: strerror(errno)))")
            }
            switch try parse(buffer[..<count], now: now, into: &entries) {
            case .more: continue
            case .finished: return entries
            }
        }
    }

    enum Progress { case more, finished }

    /// Reads the messages of one netlink datagram, read at `now`, into `entries`.
    static func parse(
        _ datagram: ArraySlice<UInt8>, now: UInt64, into entries: inout [UInt128: Entry]
    ) throws(NeighbourError) -> Progress {
        var offset = datagram.startIndex
        while offset + 16 <= datagram.endIndex {
            let length = Int(datagram.load(UInt32.self, at: offset))
            let type = datagram.load(UInt16.self, at: offset + 4)
            guard length >= 16, offset + length <= datagram.endIndex else {
                throw NeighbourError("a malformed netlink message")
            }
            switch type {
            case done: return .finished
            case error:
                let code =
                    offset + 20 <= datagram.endIndex
                    ? Int32(bitPattern: datagram.load(UInt32.self, at: offset + 16)) : 0
                if code == 0 { break }
                throw NeighbourError("the kernel refused to list its neighbours: \(String(cString: strerror(-code)))")
            case newNeighbour where length >= 28:
                if let (address, entry) = neighbour(datagram[(offset + 16)..<(offset + length)], now: now) {
                    entries[address] = entry
                }
            default: break
            }
            offset += (length + 3) & ~3
        }
        return .more
    }

    /// One RTM_NEWNEIGH body: ndmsg, then attributes.
    private static func neighbour(_ body: ArraySlice<UInt8>, now: UInt64) -> (UInt128, Entry)? {
        let family = body[body.startIndex]
        let interface = Int32(bitPattern: body.load(UInt32.self, at: body.startIndex + 4))
        let state = body.load(UInt16.self, at: body.startIndex + 8)
        guard state & unknown == 0 else { return nil }
        var address: UInt128?
        var mac: MACAddress?
        var confirmedAgo: UInt64 = .max
        var offset = body.startIndex + 12
        while offset + 4 <= body.endIndex {
            let length = Int(body.load(UInt16.self, at: offset))
            let type = body.load(UInt16.self, at: offset + 2) & 0x3FFF
            guard length >= 4, offset + length <= body.endIndex else { return nil }
            let value = body[(offset + 4)..<(offset + length)]
            if type == destination, family == UInt8(AF_INET), value.count == 4 {
                address = value.reduce(UInt128(0xFFFF)) { $0 << 8 | UInt128($1) }
            } else if type == destination, family == UInt8(AF_INET6), value.count == 16 {
                address = value.reduce(UInt128(0)) { $0 << 8 | UInt128($1) }
            } else if type == linkAddress, value.count == 6 {
                mac = MACAddress(value: value.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            } else if type == cacheInfo, value.count >= 4 {
                confirmedAgo = UInt64(value.load(UInt32.self, at: value.startIndex)) * nanosecondsPerTick
            }
            offset += (length + 3) & ~3
        }
        guard let address, let mac else { return nil }
        let confirmed = now > confirmedAgo ? now - confirmedAgo : 0
        return (address, Entry(mac: mac, interface: interface, confirmed: confirmed))
    }
}

/// The neighbour table could not be read, in words.
public struct NeighbourError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension ArraySlice<UInt8> {
    /// A native-endian integer at `offset` (netlink speaks the host's byte order).
    fileprivate func load<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) -> T {
        var value: T = 0
        Swift.withUnsafeMutableBytes(of: &value) { target in
            for index in 0..<MemoryLayout<T>.size { target[index] = self[offset + index] }
        }
        return value
    }
}

extension [UInt8] {
    fileprivate mutating func store<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        Swift.withUnsafeBytes(of: value) { bytes in
            for index in 0..<bytes.count { self[offset + index] = bytes[index] }
        }
    }
}
