import AllocationCounter
import DNSTestSupport
import Foundation
import Testing

@testable import DNSWire

/// The device facts dnsmasq's `add-mac` and `add-subnet` put into a forwarded query.
@Suite struct ForwardedClientTests {
    /// A query for a.test with an OPT record holding `options` (code, data).
    func query(_ options: [(code: UInt16, data: [UInt8])]) throws -> DNSQuery {
        try DNSQuery(packet: LdnsBuild.query("a.test.", options: options))
    }

    let mac: [UInt8] = [0x02, 0x42, 0xAC, 0x11, 0x00, 0x0F]
    let expected = MACAddress("02:42:ac:11:00:0f")

    @Test func theThreeFormsOfAddMacGiveTheSameAddress() throws {
        #expect(expected?.description == "02:42:ac:11:00:0f")
        #expect(try query([(65001, mac)]).forwardedClient().mac == expected)
        #expect(try query([(65073, Array("02:42:AC:11:00:0F".utf8))]).forwardedClient().mac == expected)
        let base64 = Array(Data(mac).base64EncodedString().utf8)
        #expect(base64.count == 8)
        #expect(try query([(65073, base64)]).forwardedClient().mac == expected)
        // Beside a cookie, as dnsmasq sends it.
        #expect(try query([(10, Array(repeating: 7, count: 8)), (65001, mac)]).forwardedClient().mac == expected)
    }

    @Test func readingTheOptionsAllocatesNothing() throws {
        let forms = [
            try query([(10, Array(repeating: 7, count: 8)), (65001, mac), (8, [0, 1, 24, 0, 192, 168, 1])]),
            try query([(65073, Array("02:42:AC:11:00:0F".utf8))]),
            try query([(65073, Array(Data(mac).base64EncodedString().utf8))]),
        ]
        // The counter sees allocations: a fresh array is one.
        allocation_counter_start()
        let made = [UInt8](repeating: 1, count: 64 + Int.random(in: 0...1))
        #expect(allocation_counter_stop() >= 1 && made.count >= 64)
        var found = 0
        let wanted = expected!.value
        // A first pass outside the count: the runtime may fill a cache of its own the first time
        // (seen once in a loaded full run), which is not the reading's doing.
        for index in 0..<3 { _ = forms[index].forwardedClient() }
        allocation_counter_start()
        for _ in 0..<1_000 {
            for index in 0..<3 where forms[index].forwardedClient().mac?.value == wanted { found += 1 }
        }
        let allocations = allocation_counter_stop()
        #expect(found == 3_000)
        #expect(allocations == 0, "\(allocations) allocations reading 3000 forwarded options")
    }

    @Test func aClientSubnetAsDnsmasqSendsIt() throws {
        // Captured from dnsmasq 2.90 with `add-subnet=32,128`, asked from 127.0.0.1: a cookie, then ECS.
        let hex =
            "cf4001200001000000000001076578616d706c6503636f6d000001000100002904d0000000000018000a0008"
            + "f3d485e228bba9c100080008000120007f000001"
        let bytes = stride(from: 0, to: hex.count, by: 2).map {
            UInt8(hex[hex.index(hex.startIndex, offsetBy: $0)..<hex.index(hex.startIndex, offsetBy: $0 + 2)], radix: 16)!
        }
        let client = try DNSQuery(packet: bytes).forwardedClient()
        #expect(client.mac == nil)
        #expect(client.subnet == ClientSubnet(address: 0xFFFF_7F00_0001, prefixLength: 32, isIPv4: true))
        // IPv6, /56: seven address bytes.
        let v6 = try query([(8, [0, 2, 56, 0, 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0x12])]).forwardedClient()
        #expect(v6.subnet == ClientSubnet(address: 0x2001_0DB8_0000_1200 << 64, prefixLength: 56, isIPv4: false))
    }

    @Test func theOptionsNeverGoUpstream() throws {
        let asked = try query([(65001, mac), (8, [0, 1, 24, 0, 192, 168, 1])])
        #expect(asked.forwardedClient().mac == expected)
        let sent = try DNSQuery(packet: makeUpstreamQuery(for: asked, id: 1))
        #expect(sent.forwardedClient() == ForwardedClient())
        #expect(sent.ednsOptions?.isEmpty == true)
    }

    @Test func malformedOptionsAreIgnored() throws {
        #expect(try query([(65001, Array(mac.prefix(5)))]).forwardedClient() == ForwardedClient())
        #expect(try query([(65073, Array("02:42:ac:11:00".utf8))]).forwardedClient() == ForwardedClient())
        #expect(try query([(65073, Array("zz:42:ac:11:00:0f".utf8))]).forwardedClient() == ForwardedClient())
        #expect(try query([(65073, Array("AkKs*QAP".utf8))]).forwardedClient() == ForwardedClient())
        // A /24 with four address bytes, a /40 IPv4 subnet, an unknown family.
        #expect(try query([(8, [0, 1, 24, 0, 10, 0, 0, 1])]).forwardedClient() == ForwardedClient())
        #expect(try query([(8, [0, 1, 40, 0, 10, 0, 0, 1, 0])]).forwardedClient() == ForwardedClient())
        #expect(try query([(8, [0, 3, 8, 0, 10])]).forwardedClient() == ForwardedClient())
        #expect(try DNSQuery(packet: LdnsBuild.query("a.test.")).forwardedClient() == ForwardedClient())
        #expect(try query([(65001, mac), (65073, Array("AkKs*QAP".utf8))]).forwardedClient().mac == expected)
        #expect(MACAddress("02:42:ac:11:00:0f:aa") == nil && MACAddress("02-42-AC-11-00-0F") == expected)
    }
}
