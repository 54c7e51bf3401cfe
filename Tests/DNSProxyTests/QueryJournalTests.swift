import DNSFilter
import DNSTestSupport
import DNSWire
import NIOCore
import NIOPosix
import Testing

@testable import DNSProxy

/// The query log's DNS side: real listeners hand each answered query to the journal, with who
/// asked, the outcome, the reason, the upstream and the latency, as much as each person's privacy
/// level keeps; a journal that is full drops and counts.
@Suite struct QueryJournalTests {
    let gate = ScriptedGate()

    func app(_ id: String, _ rules: String) -> App {
        try! App(id: id, name: id, group: "test", ruleText: Array(rules.utf8), path: "\(id).txt")
    }

    /// A server whose default person (127.0.0.1) is logged in full, "kid" (127.0.0.2) names of
    /// apps only and "guest" (127.0.0.3) counts only.
    func withServer(
        journal: QueryJournal, _ body: (_ port: Int, _ upstream: ScriptedUpstream) async throws -> Void
    ) async throws -> Int {
        let upstream = try await ScriptedUpstream()
        var builder = RuleSetBuilder()
        let source = builder.addSource("list.txt")
        _ = RuleListParser.parse(Array("ads.test\n".utf8), role: .block, source: source, into: &builder)
        let apps = GuardSet(apps: [app("chat", "chat.test\n")], overrides: [])
        let filter = PersonFilter(apps: apps)
        let pipeline = QueryPipeline(
            policy: FilterPolicy(
                rules: builder.build(), people: [filter, filter, filter], guardStage: GuardStage(gate: gate)),
            devices: DeviceDirectory(devices: [
                (DeviceSpec("127.0.0.2")!, 1), (DeviceSpec("127.0.0.3")!, 2),
            ]),
            cache: AnswerCache(settings: CacheSettings()),
            logging: QueryLogging(privacy: [.full, .apps, .counts], people: ["default", "kid", "guest"]))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let server = try await DNSServer.start(
            listeners: ListenerSettings(addresses: [try SocketAddress(ipAddress: "127.0.0.1", port: 0)]),
            pipeline: pipeline,
            upstreams: UpstreamPool(servers: [try SocketAddress(ipAddress: "127.0.0.1", port: upstream.port)]),
            forwarding: ForwardSettings(attemptTimeout: .milliseconds(300), attempts: 2),
            group: group, journal: journal)
        do {
            try await body(server.boundAddresses[0].port!, upstream)
        } catch {
            await server.close()
            await upstream.stop()
            try? await group.shutdownGracefully()
            throw error
        }
        await server.close()
        await upstream.stop()
        try? await group.shutdownGracefully()
        return upstream.port
    }

    /// A domain rule as its prefix, the listed name's wire length (ads.test: 10) and its list.
    func explained(_ explanation: BlockExplanation?) -> String {
        switch explanation {
        case .text(let text)?: text
        case .domainRule(let prefix, let length, let source)?: "\(prefix) \(length) \(source)"
        case nil: "-"
        }
    }

    func ask(_ name: String, from source: String = "127.0.0.1", port: Int) throws {
        _ = try DNSClient.tcp([LdnsBuild.query(name)], port: port, from: source)
    }

    @Test func eachAnswerIsJournalledAsItsPersonsPrivacyAllows() async throws {
        let journal = QueryJournal()
        gate.verdict = .block(PolicyBlock(app: "chat", code: "budget_spent", text: "chat: daily budget spent"))
        let upstreamPort = try await withServer(journal: journal) { port, upstream in
            try ask("www.test.", port: port)
            try ask("WWW.test.", port: port)
            try ask("ads.test.", port: port)
            try ask("chat.test.", port: port)
            try ask("www.test.", from: "127.0.0.2", port: port)
            try ask("chat.test.", from: "127.0.0.2", port: port)
            try ask("chat.test.", from: "127.0.0.3", port: port)
            try ask("ads.test.", from: "127.0.0.3", port: port)
        }
        // Closing the server handed over what was left. Each event loop hands over its own batches,
        // so entries are compared without their order.
        let batches = journal.take()
        let entries = batches.flatMap { batch in batch.entries.map { (batch, $0) } }
        #expect(entries.count == 8)
        let lines = entries.map { batch, entry in
            [
                batch.logging.name(of: entry.client.person), entry.client.addressText,
                (entry.kept ? WireName.presentation(of: batch.wireName(of: entry)) : "-"),
                entry.outcome.kind.rawValue, entry.app ?? "-", explained(batch.explanation(of: entry)),
                entry.kept ? "kept" : "counted",
            ].joined(separator: " ")
        }
        #expect(
            lines.sorted() == [
                "default 127.0.0.1 ads.test blocked - || 10 list.txt kept",
                "default 127.0.0.1 chat.test blocked chat chat: daily budget spent kept",
                "default 127.0.0.1 www.test cached - - kept",
                "default 127.0.0.1 www.test forwarded - - kept",
                "guest 127.0.0.3 - blocked - || 10 list.txt counted",
                "guest 127.0.0.3 - blocked chat chat: daily budget spent counted",
                "kid 127.0.0.2 - cached - - counted",
                "kid 127.0.0.2 chat.test blocked chat chat: daily budget spent kept",
            ])
        let forwarded = try #require(entries.first { $0.1.outcome == .forwarded }?.1)
        #expect(forwarded.upstream?.port == upstreamPort && forwarded.latencyMicroseconds > 0)
        #expect(
            entries.filter { $0.1.outcome == .cached }.allSatisfy {
                $0.1.upstream == nil && $0.1.latencyMicroseconds == 0
            })
        #expect(entries.allSatisfy { $0.1.type == RecordType.a })
        let now = JournalBuffer.wallClockMilliseconds()
        #expect(entries.allSatisfy { now - $0.1.unixMilliseconds < 60_000 })
    }

    @Test func aJournalNobodyEmptiesDropsAndCountsButDNSIsStillAnswered() async throws {
        let journal = QueryJournal(capacity: 3)
        _ = try await withServer(journal: journal) { port, _ in
            for index in 0..<10 {
                let reply = try LdnsPacket(
                    wire: try DNSClient.tcp([LdnsBuild.query("ads.test.", id: UInt16(index))], port: port)[0])
                #expect(reply.answerRecords.first?.hasSuffix("0.0.0.0") == true)
                // Each query its own batch: the next is sent once the loop has handed this one over
                // (every quarter second), kept or dropped.
                let handedOver = await eventually(10) { journal.waitingEntries + journal.dropped == index + 1 }
                #expect(handedOver, "query \(index) handed over")
            }
        }
        #expect(journal.take().flatMap(\.entries).count == 3)
        #expect(journal.dropped == 7)
    }
}
