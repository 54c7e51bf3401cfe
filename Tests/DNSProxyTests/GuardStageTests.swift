import DNSFilter
import DNSTestSupport
import DNSWire
import NIOConcurrencyHelpers
import NIOCore
import Testing

@testable import DNSProxy

/// A gate whose verdict the test sets, counting how often it is asked.
final class ScriptedGate: GuardGate {
    private let state = NIOLockedValueBox<(verdict: GuardAdmission, asked: [String])>((.notGuarded, []))

    var verdict: GuardAdmission {
        get { state.withLockedValue { $0.verdict } }
        set { state.withLockedValue { $0.verdict = newValue } }
    }

    var asked: [String] { state.withLockedValue { $0.asked } }

    func admit(app: String, client: QueryClient) -> GuardAdmission {
        state.withLockedValue {
            $0.asked.append(app)
            return $0.verdict
        }
    }
}

@Suite struct GuardStageTests {
    let local = try! SocketAddress(ipAddress: "127.0.0.1", port: 40000)
    let gate = ScriptedGate()

    func app(_ id: String, _ rules: String) -> App {
        try! App(id: id, name: id, group: "test", ruleText: Array(rules.utf8), path: "\(id).txt")
    }

    func pipeline(overrides: String = "") -> QueryPipeline {
        let apps = GuardSet(
            apps: [app("social", "social.test\n/^media\\.[a-z0-9]+\\.cdn\\.test$/\n"), app("chat", "chat.test\n")],
            overrides: overrides.isEmpty ? [] : [("always_allow", Array(overrides.utf8))])
        return QueryPipeline(
            policy: FilterPolicy(people: [PersonFilter(apps: apps)], guardStage: GuardStage(gate: gate, blockTTL: 5)),
            cache: AnswerCache(settings: CacheSettings()))
    }

    func forwardAndAnswer(_ pipeline: QueryPipeline, _ query: [UInt8], ttl: Int = 3600) throws -> LdnsPacket {
        guard
            case .forward(let parsed, _, let verdict) = pipeline.begin(
                packet: query, client: local, transport: .udp, now: 0)
        else {
            Issue.record("expected the query to be forwarded")
            throw DNSClient.Timeout()
        }
        let name = WireName.presentation(of: parsed.wireName)
        let upstream = try #require(LdnsBuild.answer(to: query, records: ["\(name). \(ttl) IN A 192.0.2.7"]))
        let answer = try CachedAnswer(reply: upstream, toQuery: query, bounds: TTLBounds())
        return try LdnsPacket(
            wire: pipeline.finish(
                parsed, upstream: .success(answer), stale: nil, verdict: verdict, transport: .udp, now: 0
            ).bytes)
    }

    func reply(_ step: PipelineStep) throws -> LdnsPacket {
        guard case .reply(let bytes, _) = step else {
            Issue.record("expected a reply, got \(step)")
            throw DNSClient.Timeout()
        }
        return try LdnsPacket(wire: bytes)
    }

    @Test func aBlockedAppNameGetsTheBlockAnswerWithTheReason() throws {
        gate.verdict = .block(PolicyBlock(app: "social", code: "budget_spent", text: "social: daily budget spent (30/30 min)"))
        let query = LdnsBuild.query("www.social.test.", ednsPayload: 1232)
        let answer = try reply(pipeline().begin(packet: query, client: local, transport: .udp, now: 0))
        #expect(answer.answerRecords.first?.hasSuffix("0.0.0.0") == true)
        #expect(answer.answerRecords.first?.contains("\t5\t") == true)
        #expect(answer.extendedErrors.map(\.text) == ["social: daily budget spent (30/30 min)"])
        #expect(gate.asked == ["social"])
        // HTTPS records of a blocked app are blocked too.
        let https = LdnsBuild.query("social.test.", type: "HTTPS", ednsPayload: 1232)
        #expect(
            try reply(pipeline().begin(packet: https, client: local, transport: .udp, now: 0)).answerRecords.isEmpty)
    }

    @Test func anOpenAppIsCappedAndAskedAgainEvenWhenCached() throws {
        let pipe = pipeline()
        gate.verdict = .allow(ttl: 42)
        let query = LdnsBuild.query("social.test.")
        let first = try forwardAndAnswer(pipe, query)
        #expect(first.answerRecords.first?.contains("\t42\t") == true)
        gate.verdict = .allow(ttl: 7)
        let cached = try reply(pipe.begin(packet: query, client: local, transport: .udp, now: 1))
        #expect(cached.answerRecords.first?.contains("\t7\t") == true)
        gate.verdict = .block(PolicyBlock(app: "social", code: "hour_used", text: "social: hourly window used, next at 15:00"))
        let blocked = try reply(pipe.begin(packet: query, client: local, transport: .udp, now: 2))
        #expect(blocked.answerRecords.first?.hasSuffix("0.0.0.0") == true)
        #expect(gate.asked.count == 3)
    }

    @Test func anUnguardedAppResolvesUncappedButIsStillAskedEveryTime() throws {
        let pipe = pipeline()
        gate.verdict = .notGuarded
        let query = LdnsBuild.query("chat.test.")
        #expect(try forwardAndAnswer(pipe, query).answerRecords.first?.contains("\t3600\t") == true)
        _ = try reply(pipe.begin(packet: query, client: local, transport: .udp, now: 1))
        // Guarding it now must take effect on the cached answer at once.
        gate.verdict = .block(PolicyBlock(app: "chat", code: "locked", text: "chat: locked"))
        #expect(
            try reply(pipe.begin(packet: query, client: local, transport: .udp, now: 2)).answerRecords.first?
                .hasSuffix("0.0.0.0") == true)
        #expect(gate.asked == ["chat", "chat", "chat"])
    }

    @Test func otherNamesNeverReachTheGate() throws {
        _ = try forwardAndAnswer(pipeline(), LdnsBuild.query("www.example.test."))
        #expect(gate.asked.isEmpty)
    }

    @Test func overridesWinAtEqualSpecificityOnly() throws {
        let apps = GuardSet(
            apps: [
                app("social", "social.test\nimg.shared.test\n/^media\\.[a-z0-9]+\\.cdn\\.test$/\n"),
                app("video", "shared.test\n"),
            ],
            overrides: [("always_allow", Array("shared.test\ncdn.test\n".utf8))])
        #expect(apps.app(forName: "www.social.test") == "social")
        #expect(apps.app(forName: "x.img.shared.test") == "social")  // more specific than the override
        #expect(apps.app(forName: "shared.test") == nil)  // equal: the override wins
        #expect(apps.app(forName: "www.shared.test") == nil)
        #expect(apps.app(forName: "media.eu1.cdn.test") == "social")  // a regex is more specific than a name
        #expect(apps.app(forName: "other.test") == nil)
    }
}
