import CLdns
import DNSProxy
import DNSTestSupport
import DNSWire
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing

/// NOTIFY to a secondary on loopback: a fake that records what comes and answers, or keeps silent.
@Suite struct NotifySenderTests {
    /// A UDP socket that keeps every datagram and answers each NOTIFY when `answers` is set.
    final class FakeSecondary: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>

        let received = Mutex<[[UInt8]]>([])
        let sources = Mutex<[SocketAddress]>([])
        let answers: Bool

        init(answers: Bool) { self.answers = answers }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let packet = Array(envelope.data.readableBytesView)
            received.withLock { $0.append(packet) }
            sources.withLock { $0.append(envelope.remoteAddress) }
            guard answers, packet.count >= 12 else { return }
            var reply = packet
            reply[2] |= 0x80
            context.writeAndFlush(
                wrapOutboundOut(
                    AddressedEnvelope(
                        remoteAddress: envelope.remoteAddress, data: context.channel.allocator.buffer(bytes: reply))),
                promise: nil)
        }
    }

    static func secondary(answers: Bool) async throws -> (FakeSecondary, Channel) {
        let fake = FakeSecondary(answers: answers)
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { $0.pipeline.addHandler(fake) }
            .bind(host: "127.0.0.1", port: 0).get()
        return (fake, channel)
    }

    static func zone(serial: UInt32) -> ServedZone {
        ServedZone(
            origin: WireName.wire(fromPresentation: "alice.rpz.lockr")!,
            soa: StartOfAuthority(
                primary: [0], mailbox: [0], serial: serial, refresh: 300, retry: 60, expire: 3600, minimum: 30),
            soaTTL: 30, records: [])
    }

    @Test func aSecondaryThatAnswersIsToldOnceAndStandsAcknowledged() async throws {
        let (fake, channel) = try await Self.secondary(answers: true)
        let sender = try await NotifySender.start(
            secondaries: [channel.localAddress!], retryDelays: [.milliseconds(200), .milliseconds(200)],
            group: MultiThreadedEventLoopGroup.singleton)
        sender.notify(Self.zone(serial: 41))
        #expect(await eventually(5) { sender.standings.first?.acknowledged == true })
        try await Task.sleep(for: .milliseconds(600))
        let received = fake.received.withLock { $0 }
        #expect(received.count == 1, "not sent again once answered")
        let packet = try #require(received.first)
        var parsed: UnsafeMutablePointer<ldns_pkt>?
        #expect(packet.withUnsafeBufferPointer { ldns_wire2pkt(&parsed, $0.baseAddress, $0.count) } == LDNS_STATUS_OK)
        defer { ldns_pkt_free(parsed) }
        #expect(ldns_pkt_get_opcode(parsed) == LDNS_PACKET_NOTIFY && ldns_pkt_aa(parsed) != 0)
        #expect(ldns_rr_get_type(ldns_rr_list_rr(ldns_pkt_question(parsed), 0)) == LDNS_RR_TYPE_SOA)
        let answer = try LdnsPacket(wire: packet).answerRecords
        #expect(answer.count == 1 && answer[0].contains(" 41 300 60 3600 30"), "\(answer)")
        #expect(sender.standings.map(\.serial) == [41])
        await sender.stop()
        try await channel.close()
    }

    @Test func aSilentSecondaryIsToldAgainAfterEachDelayThenStandsUnanswered() async throws {
        let (fake, channel) = try await Self.secondary(answers: false)
        let sender = try await NotifySender.start(
            secondaries: [channel.localAddress!],
            retryDelays: [.milliseconds(100), .milliseconds(100), .milliseconds(100)],
            group: MultiThreadedEventLoopGroup.singleton)
        sender.notify(Self.zone(serial: 5))
        #expect(await eventually(5) { sender.standings.first?.unanswered == true })
        #expect(fake.received.withLock { $0.count } == 3)
        // A newer version is told of afresh.
        sender.notify(Self.zone(serial: 6))
        #expect(sender.standings.first?.unanswered == false && sender.standings.first?.serial == 6)
        await sender.stop()
        try await channel.close()
    }

    @Test func anAnswerFromAnotherAddressCountsForNothing() async throws {
        let (fake, channel) = try await Self.secondary(answers: false)
        // No retry while the test forges and answers (a retry asks anew: a loaded machine once
        // took longer than 5 s over these steps, and the answer was to the NOTIFY before).
        let sender = try await NotifySender.start(
            secondaries: [channel.localAddress!], retryDelays: [.seconds(120)],
            group: MultiThreadedEventLoopGroup.singleton)
        sender.notify(Self.zone(serial: 9))
        #expect(await eventually(5) { fake.received.withLock { !$0.isEmpty } })
        var reply = try #require(fake.received.withLock { $0.first })
        reply[2] |= 0x80
        let notifier = try #require(fake.sources.withLock { $0.first })
        // The right id, from another socket: not the secondary's answer.
        let (_, forger) = try await Self.secondary(answers: false)
        try await forger.writeAndFlush(
            AddressedEnvelope(remoteAddress: notifier, data: forger.allocator.buffer(bytes: reply)))
        try await Task.sleep(for: .milliseconds(300))
        #expect(sender.standings.first?.acknowledged == false)
        // The same from the secondary is its answer.
        try await channel.writeAndFlush(
            AddressedEnvelope(remoteAddress: notifier, data: channel.allocator.buffer(bytes: reply)))
        #expect(await eventually(5) { sender.standings.first?.acknowledged == true })
        await sender.stop()
        try await channel.close()
        try await forger.close()
    }
}
