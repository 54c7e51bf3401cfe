import DNSFilter
import DNSTestSupport
import DNSWire
import NIOCore
import Testing

@testable import DNSProxy

@Suite struct QueryPipelineTests {
    let local = try! SocketAddress(ipAddress: "127.0.0.1", port: 40000)
    let stranger = try! SocketAddress(ipAddress: "203.0.113.9", port: 40000)

    let cache = AnswerCache(settings: CacheSettings())

    private func pipeline(
        _ list: String = "ads.test\n", mode: BlockAnswer = .null, antiBypass: Bool = true,
        localNames: LocalNames = LocalNames(), pagesName: PagesName? = nil
    ) -> QueryPipeline {
        var builder = RuleSetBuilder()
        let source = builder.addSource("list.txt")
        _ = RuleListParser.parse(Array(list.utf8), role: .block, source: source, into: &builder)
        return QueryPipeline(
            policy: FilterPolicy(
                rules: builder.build(), blockAnswer: mode, blockTTL: 60, people: [PersonFilter(antiBypass: antiBypass)],
                pagesName: pagesName, localNames: localNames),
            cache: cache)
    }

    /// The reply `step` carries, checked to be what `outcome` says when given.
    private func reply(_ step: PipelineStep, _ outcome: QueryOutcome? = nil) throws -> LdnsPacket {
        guard case .reply(let bytes, let actual) = step else {
            Issue.record("expected a reply, got \(step)")
            throw DNSClient.Timeout()
        }
        if let outcome { #expect(actual == outcome) }
        return try LdnsPacket(wire: bytes)
    }

    @Test func aLocalAnswerTooBigForUDPIsTruncatedAndWholeOverTCP() throws {
        let texts = (1...40).map { "big.lan TXT \"\(String(repeating: "x", count: 40)) \($0)\"" }
        let local = QueryPipeline(
            policy: FilterPolicy(rules: RuleSetBuilder().build()), cache: cache,
            localRecords: LocalRecords(texts.map { try! LocalRecord($0) }, ttl: 300))
        let query = LdnsBuild.query("big.lan.", type: "TXT")
        let overUDP = try reply(local.begin(packet: query, client: self.local, transport: .udp, now: 0), .synthesized)
        #expect(overUDP.isTruncated && overUDP.answerRecords.isEmpty)
        let overTCP = try reply(local.begin(packet: query, client: self.local, transport: .tcp, now: 0), .synthesized)
        #expect(!overTCP.isTruncated && overTCP.answerRecords.count == 40)
    }

    @Test func strangersAreRefused() throws {
        let step = pipeline().begin(packet: LdnsBuild.query("www.test."), client: stranger, transport: .udp, now: 0)
        #expect(try reply(step, .refused).rcode == 5)
        let junk: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
        guard case .drop = pipeline().begin(packet: junk, client: stranger, transport: .udp, now: 0) else {
            Issue.record("junk from a stranger must be dropped")
            return
        }
        #expect(
            try reply(pipeline().begin(packet: junk, client: local, transport: .udp, now: 0), .malformed).rcode == 1)
    }

    @Test func mappedIPv4AndLocalNetworksAreAllowed() throws {
        let access = AccessControl()
        #expect(access.allows(try SocketAddress(ipAddress: "::ffff:192.168.1.4", port: 1)))
        #expect(access.allows(try SocketAddress(ipAddress: "fd12::1", port: 1)))
        #expect(access.allows(try SocketAddress(ipAddress: "fe80::1", port: 1)))
        #expect(!access.allows(try SocketAddress(ipAddress: "2001:db8::1", port: 1)))
        #expect(!access.allows(try SocketAddress(ipAddress: "8.8.8.8", port: 1)))
        let custom = AccessControl(networks: [IPNetwork("198.51.100.0/24")!])
        #expect(custom.allows(try SocketAddress(ipAddress: "198.51.100.77", port: 1)))
        #expect(!custom.allows(try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
    }

    @Test func blockedNamesInEachMode() throws {
        let query = LdnsBuild.query("x.ads.test.", ednsPayload: 1232)
        let step = pipeline().begin(packet: query, client: local, transport: .udp, now: 0)
        guard case .reply(_, .blocked(.rule(let hit))) = step else {
            Issue.record("a listed name is blocked by its rule, got \(step)")
            return
        }
        let asked = WireName.wire(fromPresentation: "x.ads.test")!
        #expect(pipeline().policy.rules.describe(hit, wireName: asked) == "||ads.test^ (list.txt)")
        let null = try reply(step)
        #expect(null.answerRecords.first?.hasSuffix("0.0.0.0") == true)
        #expect(null.extendedErrors.first?.text == "blocked by ||ads.test^ (list.txt)")
        #expect(
            try reply(pipeline(mode: .nxdomain).begin(packet: query, client: local, transport: .udp, now: 0)).rcode == 3
        )
        #expect(
            try reply(pipeline(mode: .refused).begin(packet: query, client: local, transport: .udp, now: 0)).rcode == 5)
        let custom = try reply(
            pipeline(mode: BlockAnswer("192.0.2.99")!).begin(packet: query, client: local, transport: .udp, now: 0))
        #expect(custom.answerRecords.first?.hasSuffix("192.0.2.99") == true)
        let https = LdnsBuild.query("x.ads.test.", type: "HTTPS")
        for mode in [BlockAnswer.null, .nxdomain, .refused] {
            let answer = try reply(pipeline(mode: mode).begin(packet: https, client: local, transport: .udp, now: 0))
            #expect(answer.rcode == 0 && answer.answerCount == 0, "HTTPS of a blocked name is NODATA in \(mode) mode")
        }
    }

    @Test func dnsOverHTTPSServicesAreNXDOMAINWithAntiBypassAndThePagesNameIsLockrsAddress() throws {
        let doh = LocalNames(dnsOverHTTPS: ["dns.google", "cloudflare-dns.com"])
        for name in ["dns.google.", "DNS.Google.", "security.cloudflare-dns.com."] {
            let step = pipeline("", localNames: doh).begin(
                packet: LdnsBuild.query(name), client: local, transport: .udp, now: 0)
            guard case .reply(_, .blocked(.antiBypass(let why))) = step else {
                Issue.record("\(name) is a DNS-over-HTTPS service, got \(step)")
                continue
            }
            #expect(why.hasPrefix("anti-bypass: DNS-over-HTTPS service"))
            #expect(try reply(step).rcode == 3)
        }
        guard
            case .forward = pipeline("", antiBypass: false, localNames: doh).begin(
                packet: LdnsBuild.query("dns.google."), client: local, transport: .udp, now: 0)
        else {
            Issue.record("with anti-bypass off a DNS-over-HTTPS service is forwarded")
            return
        }
        // The web pages' name: lockr's own address, no block.
        let pages = pipeline("", pagesName: PagesName("lockr.lan", address: [192, 168, 1, 2]))
        let named = pages.begin(packet: LdnsBuild.query("LOCKR.lan."), client: local, transport: .udp, now: 0)
        let answer = try reply(named, .synthesized)
        #expect(answer.answerRecords.first?.hasSuffix("192.168.1.2") == true)
        guard
            case .forward = pages.begin(
                packet: LdnsBuild.query("lockr.lan.example."), client: local, transport: .udp, now: 0)
        else {
            Issue.record("a longer name is not the pages' name")
            return
        }
    }

    @Test func antiBypassNames() throws {
        let pipe = pipeline("")
        for name in ["use-application-dns.net.", "mask.icloud.com.", "mask-h2.icloud.com."] {
            let step = pipe.begin(packet: LdnsBuild.query(name), client: local, transport: .udp, now: 0)
            guard case .reply(_, .blocked(.antiBypass)) = step else {
                Issue.record("\(name) is an anti-bypass name, got \(step)")
                continue
            }
            #expect(try reply(step).rcode == 3)
        }
        let ddr = try reply(
            pipe.begin(
                packet: LdnsBuild.query("_dns.resolver.arpa.", type: "SVCB"), client: local, transport: .udp, now: 0))
        #expect(ddr.rcode == 0 && ddr.answerCount == 0)
        let off = pipeline("", antiBypass: false)
        guard
            case .forward = off.begin(
                packet: LdnsBuild.query("use-application-dns.net."), client: local, transport: .udp, now: 0)
        else {
            Issue.record("with anti-bypass off the canary is forwarded")
            return
        }
        // The doctor's probe is answered whatever anti-bypass says, with its own address.
        for pipe in [pipe, off] {
            let probe = pipe.begin(
                packet: LdnsBuild.query("p42.lockr-probe.internal."), client: local, transport: .udp, now: 0)
            let bytes = try #require({ if case .reply(let bytes, _) = probe { bytes } else { nil } }())
            #expect(LocalAnswers.isProbeAnswer(bytes))
            #expect(try reply(probe).answerRecords.first?.hasSuffix("127.76.75.82") == true)
        }
    }

    @Test func whatIsNeverForwarded() throws {
        var chaos = LdnsBuild.query("version.bind.", type: "TXT")
        chaos[chaos.count - 1] = 3  // class CH
        #expect(
            try reply(pipeline().begin(packet: chaos, client: local, transport: .udp, now: 0), .unsupported).rcode == 5)
        let axfr = LdnsBuild.query("test.", type: "AXFR")
        #expect(
            try reply(pipeline().begin(packet: axfr, client: local, transport: .tcp, now: 0), .unsupported).rcode == 4)
        let any = try reply(
            pipeline().begin(packet: LdnsBuild.query("www.test.", type: "ANY"), client: local, transport: .udp, now: 0),
            .synthesized)
        #expect(any.answerRecords.first?.contains("HINFO") == true)
        var version1 = LdnsBuild.query("www.test.", ednsPayload: 1232)
        version1[version1.count - 5] = 1  // EDNS version 1
        guard
            case .reply(let bytes, .unsupported) = pipeline().begin(
                packet: version1, client: local, transport: .udp, now: 0)
        else {
            Issue.record("BADVERS expected")
            return
        }
        #expect(bytes[bytes.count - 6] == 1)
    }

    @Test func theBlockComesBeforeTheCache() throws {
        let open = pipeline("")
        let query = LdnsBuild.query("ads.test.")
        guard
            case .forward(let parsed, _, let verdict) = open.begin(
                packet: query, client: local, transport: .udp, now: 0)
        else {
            Issue.record("expected forward")
            return
        }
        let upstream = try #require(LdnsBuild.answer(to: query, records: ["ads.test. 3600 IN A 192.0.2.3"]))
        let answer = try CachedAnswer(reply: upstream, toQuery: query, bounds: TTLBounds())
        let forwarded = open.finish(
            parsed, upstream: .success(answer), stale: nil, verdict: verdict, transport: .udp, now: 0)
        #expect(forwarded.outcome == .forwarded)
        // served from cache while allowed
        #expect(
            try reply(open.begin(packet: query, client: local, transport: .udp, now: 1), .cached).answerRecords.first?
                .hasSuffix("192.0.2.3") == true)
        // the same cache under a policy that blocks the name: the block wins
        let blocking = pipeline("ads.test\n")
        let blocked = blocking.begin(packet: query, client: local, transport: .udp, now: 2)
        guard case .reply(_, .blocked(.rule)) = blocked else {
            Issue.record("the block wins over the cache, got \(blocked)")
            return
        }
        #expect(try reply(blocked).answerRecords.first?.hasSuffix("0.0.0.0") == true)
    }

    @Test func upstreamFailureGivesStaleOrServfail() throws {
        let pipe = pipeline("")
        let query = try DNSQuery(packet: LdnsBuild.query("www.test.", ednsPayload: 1232))
        let answer = pipe.finish(
            query, upstream: .failure(ForwardError.noUpstreamAnswered), stale: nil, verdict: .allowed(stamp: 1),
            transport: .udp, now: 0)
        #expect(answer.outcome == .failed)
        let failed = try LdnsPacket(wire: answer.bytes)
        #expect(failed.rcode == 2)
        #expect(failed.extendedErrors.map(\.code) == [22])

        // An answer that expired is served, marked stale, when the upstreams fail.
        let second: UInt64 = 1_000_000_000
        let upstream = try #require(LdnsBuild.answer(to: query.packet, records: ["www.test. 5 IN A 192.0.2.5"]))
        let cached = try CachedAnswer(reply: upstream, toQuery: query.packet, bounds: TTLBounds())
        let stamp = pipe.policy.stamp(for: QueryClient(address: 0))
        _ = pipe.finish(
            query, upstream: .success(cached), stale: nil, verdict: .allowed(stamp: stamp), transport: .udp, now: 0)
        guard
            case .forward(let again, let stale?, let verdict) = pipe.begin(
                packet: query.packet, client: local, transport: .udp, now: 60 * second)
        else {
            Issue.record("an expired answer is forwarded with the stale one to fall back on")
            return
        }
        let served = pipe.finish(
            again, upstream: .failure(ForwardError.noUpstreamAnswered), stale: stale, verdict: verdict, transport: .udp,
            now: 60 * second)
        #expect(served.outcome == .stale)
        #expect(try LdnsPacket(wire: served.bytes).answerRecords == ["www.test.\t30\tIN\tA\t192.0.2.5"])
    }
}
