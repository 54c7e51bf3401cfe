import CLdns
import DNSProxy
import DNSTestSupport
import DNSWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import Testing

/// TSIG (RFC 8945) on the zone port: requests signed by ldns and dig, answers checked by them.
@Suite struct ZoneSigningTests {
    static let secret = "TG9ja3IncyBSUFogc2VjcmV0IGZvciB0aGUgdGVzdHMh"
    static let key = TSIGKey(name: "lockr-rpz", secret: secret)!
    static let now = UInt64(time(nil))

    /// A query for `type` of the zone, signed by ldns with `keyName` and `secret`; and its MAC.
    static func signedQuery(
        _ type: ldns_rr_type, keyName: String = "lockr-rpz.", secret: String = secret
    )
        -> (wire: [UInt8], packet: UnsafeMutablePointer<ldns_pkt>)
    {
        var packet: UnsafeMutablePointer<ldns_pkt>?
        precondition(
            ldns_pkt_query_new_frm_str(&packet, "alice.rpz.lockr.", type, LDNS_RR_CLASS_IN, 0) == LDNS_STATUS_OK)
        precondition(ldns_pkt_tsig_sign(packet, keyName, secret, 300, "hmac-sha256.", nil) == LDNS_STATUS_OK)
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        precondition(ldns_pkt2wire(&bytes, packet, &size) == LDNS_STATUS_OK)
        defer { free(bytes) }
        return (Array(UnsafeBufferPointer(start: bytes, count: size)), packet!)
    }

    /// The answer's response code and TSIG error.
    func outcome(_ answer: [UInt8]) throws -> (rcode: UInt8, tsigError: UInt16?) {
        (answer[3] & 0x0F, try TSIGRecord.find(in: answer)?.error)
    }

    @Test func aSignedQueryGetsAnAnswerLdnsVerifies() throws {
        let (query, packet) = Self.signedQuery(LDNS_RR_TYPE_SOA)
        defer { ldns_pkt_free(packet) }
        let signing = ZoneSigning(key: Self.key, required: true)
        let answer = try #require(
            ZoneResponder.answer(
                query, zones: ZoneResponderTests.zones(), overTCP: false, signing: signing, now: Self.now
            ).messages.first)
        var parsed: UnsafeMutablePointer<ldns_pkt>?
        #expect(answer.withUnsafeBufferPointer { ldns_wire2pkt(&parsed, $0.baseAddress, $0.count) } == LDNS_STATUS_OK)
        defer { ldns_pkt_free(parsed) }
        #expect(ldns_pkt_get_rcode(parsed) == LDNS_RCODE_NOERROR && ldns_pkt_ancount(parsed) == 1)
        let requestMAC = ldns_rr_rdf(ldns_pkt_tsig(packet), 3)
        #expect(
            answer.withUnsafeBufferPointer {
                ldns_pkt_tsig_verify(parsed, $0.baseAddress, $0.count, "lockr-rpz.", Self.secret, requestMAC) != 0
            })
    }

    @Test func aWrongKeySignatureOrClockIsNotAuthAndAnUnsignedQueryIsRefusedWhereSigningIsRequired() throws {
        let zones = ZoneResponderTests.zones()
        let required = ZoneSigning(key: Self.key, required: true)
        func answer(_ query: [UInt8], _ signing: ZoneSigning, now: UInt64 = Self.now) throws -> (UInt8, UInt16?) {
            try outcome(
                try #require(
                    ZoneResponder.answer(query, zones: zones, overTCP: true, signing: signing, now: now).messages.first)
            )
        }
        let wrongSecret = Self.signedQuery(LDNS_RR_TYPE_SOA, secret: "d3Jvbmcgc2VjcmV0IHdyb25nIHNlY3JldCE=")
        defer { ldns_pkt_free(wrongSecret.packet) }
        #expect(try answer(wrongSecret.wire, required) == (9, 16), "NOTAUTH, BADSIG")
        let otherKey = Self.signedQuery(LDNS_RR_TYPE_SOA, keyName: "someone-else.")
        defer { ldns_pkt_free(otherKey.packet) }
        #expect(try answer(otherKey.wire, required) == (9, 17), "NOTAUTH, BADKEY")
        #expect(try answer(otherKey.wire, .none) == (9, 17), "a key lockr does not hold at all")
        let good = Self.signedQuery(LDNS_RR_TYPE_SOA)
        defer { ldns_pkt_free(good.packet) }
        #expect(try answer(good.wire, required, now: Self.now + 1_000) == (9, 18), "NOTAUTH, BADTIME")
        #expect(try answer(good.wire, required) == (0, 0))
        let unsigned = LdnsBuild.query("alice.rpz.lockr.", type: "SOA")
        #expect(try answer(unsigned, required) == (5, nil), "REFUSED")
        #expect(try answer(unsigned, ZoneSigning(key: Self.key, required: false)) == (0, nil))
        // A signature that is not the last record, or cut short: FORMERR.
        var cut = good.wire
        cut.removeLast(3)
        #expect(try answer(cut, required).0 == 1)
    }

    @Test func digVerifiesEveryMessageOfASignedTransferAndIsRefusedWithTheWrongKey() async throws {
        let zones = ZoneResponderTests.zones(triggers: 3_000)
        let server = try await ZoneServer.start(
            on: [try SocketAddress(ipAddress: "127.0.0.1", port: 0)], zones: zones,
            access: AccessControl(networks: [IPNetwork("127.0.0.1")!]),
            signing: ZoneSigning(key: Self.key, required: true), group: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "test"))
        defer { Task { await server.stop() } }
        let port = try #require(server.addresses.first?.port)
        let signed = try run(
            "dig",
            ["@127.0.0.1", "-p", "\(port)", "-y", "hmac-sha256:lockr-rpz:\(Self.secret)", "alice.rpz.lockr", "AXFR"])
        #expect(signed.output.components(separatedBy: "\tCNAME\t").count - 1 == 3_000, "\(signed.output.suffix(800))")
        #expect(!signed.output.contains("failure") && !signed.output.contains("Transfer failed"))
        let wrong = try run(
            "dig",
            [
                "@127.0.0.1", "-p", "\(port)", "-y", "hmac-sha256:lockr-rpz:d3Jvbmcgc2VjcmV0IHdyb25nIHNlY3JldCE=",
                "alice.rpz.lockr", "AXFR",
            ])
        #expect(!wrong.output.contains("\tCNAME\t"), "\(wrong.output)")
        let unsigned = try run("dig", ["@127.0.0.1", "-p", "\(port)", "alice.rpz.lockr", "AXFR"])
        #expect(!unsigned.output.contains("\tCNAME\t"), "\(unsigned.output)")
    }
}
