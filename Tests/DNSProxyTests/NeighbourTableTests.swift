import DNSTestSupport
import DNSWire
import Foundation
import Testing

@testable import DNSProxy

/// The kernel's neighbour table over rtnetlink, checked against iproute2's view of it.
@Suite struct NeighbourTableTests {
    /// One RTM_NEWNEIGH message: family, NUD state, destination and link address attributes, and the
    /// kernel's ages (confirmed, used, updated, refcount) in ticks of 10 ms when given.
    func message(family: UInt8, state: UInt16, destination: [UInt8], mac: [UInt8]?, confirmedTicks: UInt32? = nil)
        -> [UInt8]
    {
        func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
            let length = UInt16(4 + value.count)
            let padding = [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
            return withUnsafeBytes(of: length) { Array($0) } + withUnsafeBytes(of: type) { Array($0) } + value + padding
        }
        let ndmsg = [family, 0, 0, 0] + withUnsafeBytes(of: Int32(2)) { Array($0) }
            + withUnsafeBytes(of: state) { Array($0) } + [0, 0]
        var body: [UInt8] = ndmsg + attribute(1, destination)
        if let mac { body += attribute(2, mac) }
        if let confirmedTicks {
            let ages: [UInt32] = [confirmedTicks, 0, 0, 1]
            body += attribute(3, ages.withUnsafeBytes { Array($0) })
        }
        let header = withUnsafeBytes(of: UInt32(16 + body.count)) { Array($0) } + withUnsafeBytes(of: UInt16(28)) { Array($0) }
            + [0, 0] + [UInt8](repeating: 0, count: 8)
        return header + body
    }

    @Test func messagesOfBothFamiliesAreRead() throws {
        let mac: [UInt8] = [0x02, 0x42, 0xAC, 0x11, 0x00, 0x0F]
        var datagram = message(family: 2, state: 0x02, destination: [192, 168, 1, 20], mac: mac, confirmedTicks: 150)
        datagram += message(
            family: 10, state: 0x04, destination: [0xFD, 0, 0, 1] + [UInt8](repeating: 0, count: 11) + [5], mac: mac,
            confirmedTicks: 6000)
        // Incomplete: no link address yet.
        datagram += message(family: 2, state: 0x01, destination: [192, 168, 1, 21], mac: nil)
        var entries: [UInt128: NeighbourTable.Entry] = [:]
        let now: UInt64 = 100_000_000_000
        #expect(try NeighbourTable.parse(datagram[...], now: now, into: &entries) == .more)
        let expected = MACAddress(value: 0x0242_AC11_000F)
        // Confirmed 1.5 s and a minute before the read, on interface 2.
        #expect(entries[0xFFFF_C0A8_0114] == NeighbourTable.Entry(mac: expected, interface: 2, confirmed: 98_500_000_000))
        #expect(entries[0xFD00_0001 << 96 | 5] == NeighbourTable.Entry(mac: expected, interface: 2, confirmed: 40_000_000_000))
        #expect(entries.count == 2)
        // A message longer than the datagram is refused, not read past its end.
        var broken = message(family: 2, state: 0x02, destination: [10, 0, 0, 1], mac: mac)
        broken[0] = 200
        #expect(throws: NeighbourError.self) { try NeighbourTable.parse(broken[...], now: now, into: &entries) }
    }

    @Test func theTableIsWhatIproute2Shows() throws {
        let table = NeighbourTable()
        try table.refresh()
        let result = try run("ip", ["-j", "neigh", "show"])
        try #require(result.status == 0, "ip neigh: \(result.output)")
        let shown = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] ?? []
        var expected: [String: String] = [:]
        for neighbour in shown {
            guard let address = neighbour["dst"] as? String, let mac = neighbour["lladdr"] as? String else { continue }
            expected[address] = mac
        }
        let read = Dictionary(
            uniqueKeysWithValues: table.entries.map { (QueryClient(address: $0.key).addressText, $0.value.mac.description) })
        #expect(read == expected)
    }
}
