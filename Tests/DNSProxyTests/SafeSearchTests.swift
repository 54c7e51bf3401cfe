import DNSFilter
import DNSTestSupport
import DNSWire
import NIOCore
import Testing

@testable import DNSProxy

/// Safe search: a provider's file read, the names each setting answers, and the pipeline answering
/// them with the provider's host (a CNAME and the host's records) or its address, for one person
/// and not another.
@Suite struct SafeSearchTests {
    let google = try! SafeSearchProvider(
        text: """
            # provider: Google
            # applies-to: search
            # answer: forcesafesearch.google.com
            # source: https://support.google.com/websearch/answer/186669 (map each
            #   Google domain to it)

            www.google.com
            WWW.Google.DE.
            """)
    let youtube = try! SafeSearchProvider(
        text: """
            # provider: YouTube
            # applies-to: youtube
            # answer-strict: restrict.youtube.com
            # answer-moderate: restrictmoderate.youtube.com
            # source: https://support.google.com/a/answer/6214622
            www.youtube.com
            """)
    let yandex = try! SafeSearchProvider(
        text: """
            # provider: Yandex
            # applies-to: search
            # answer: 213.180.193.56
            # source: example
            ya.ru
            """)

    let kid = try! SocketAddress(ipAddress: "192.168.1.20", port: 40000)
    let parent = try! SocketAddress(ipAddress: "192.168.1.30", port: 40000)

    @Test func aProvidersFileIsReadWithItsSourceAndNames() throws {
        #expect(google.name == "Google" && google.appliesTo == .search)
        #expect(google.names == ["www.google.com", "www.google.de"])
        #expect(google.source == "https://support.google.com/websearch/answer/186669 (map each Google domain to it)")
        #expect(google.answers[""] == SafeSearchTarget("forcesafesearch.google.com"))
        #expect(youtube.target(at: "strict")?.text == "restrict.youtube.com")
        guard case .address(_, let type, let rdata) = try #require(yandex.target(at: "")) else {
            Issue.record("an address")
            return
        }
        #expect(type == RecordType.a && rdata == [213, 180, 193, 56])
    }

    @Test func aBrokenFileSaysWhatIsWrong() {
        let cases: [(String, String)] = [
            ("# applies-to: search\n# answer: a.b\n# source: s\nx.com", "no '# provider:' line"),
            (
                "# provider: P\n# applies-to: video\n# answer: a.b\n# source: s\nx.com",
                "'# applies-to:' must be search or youtube"
            ),
            ("# provider: P\n# applies-to: search\n# source: s\nx.com", "no '# answer:' line"),
            (
                "# provider: P\n# applies-to: youtube\n# answer-strict: a.b\n# source: s\nx.com",
                "no '# answer-moderate:' line"
            ),
            (
                "# provider: P\n# applies-to: search\n# answer: a.b\nx.com",
                "no '# source:' line (where the provider documents it)"
            ),
            (
                "# provider: P\n# applies-to: search\n# answer: a.b\n# source: s\nnot a name",
                "line 5: 'not a name' is not a domain name"
            ),
            ("# provider: P\n# applies-to: search\n# answer: a.b\n# source: s\n", "no names"),
        ]
        for (text, message) in cases {
            #expect(throws: SafeSearchFileError.self) { try SafeSearchProvider(text: text) }
            do { _ = try SafeSearchProvider(text: text) } catch { #expect(error.description == message) }
        }
    }

    @Test func eachSettingAnswersItsOwnNames() throws {
        let providers = [google, youtube, yandex]
        #expect(SafeSearchAnswers(providers: providers, searchEngines: false, youtube: nil) == nil)
        let search = try #require(SafeSearchAnswers(providers: providers, searchEngines: true, youtube: nil))
        let strict = try #require(SafeSearchAnswers(providers: providers, searchEngines: false, youtube: "strict"))
        #expect(search.setting == "search engines" && strict.setting == "YouTube strict")
        func entry(_ answers: SafeSearchAnswers, _ name: String) -> SafeSearchAnswers.Entry? {
            WireName.wire(fromPresentation: name)!.withUnsafeBufferPointer { answers.entry(for: $0) }
        }
        #expect(entry(search, "WWW.GOOGLE.com")?.target.text == "forcesafesearch.google.com")
        #expect(entry(search, "mail.google.com") == nil && entry(search, "google.com") == nil)
        #expect(entry(search, "www.youtube.com") == nil)
        #expect(entry(strict, "www.youtube.com")?.target.text == "restrict.youtube.com")
        #expect(entry(strict, "www.google.com") == nil)
    }

    /// A pipeline where the kid has safe search on (and YouTube strict) and the parent has none.
    func pipeline(cache: AnswerCache) -> QueryPipeline {
        let providers = [google, youtube, yandex]
        let answers = SafeSearchAnswers(providers: providers, searchEngines: true, youtube: "strict")
        let directory = DeviceDirectory(devices: [(DeviceSpec("192.168.1.20")!, 1)])
        return QueryPipeline(
            policy: FilterPolicy(people: [PersonFilter(), PersonFilter(safeSearch: answers)]),
            access: AccessControl(), devices: directory, cache: cache)
    }

    @Test func theKidsSearchGoesToTheProvidersHostAndTheParentsDoesNot() throws {
        let cache = AnswerCache(settings: CacheSettings())
        let pipe = pipeline(cache: cache)
        let query = LdnsBuild.query("www.Google.com.", type: "AAAA", ednsPayload: 1232)
        // The parent's query goes upstream as it was asked.
        guard case .forward(let asked, nil, _) = pipe.begin(packet: query, client: parent, transport: .udp, now: 0)
        else {
            Issue.record("the parent's query is forwarded")
            return
        }
        #expect(asked.name == "www.google.com")
        // The kid's is asked as the provider's host, and answered as a CNAME to it.
        var note = QueryNote()
        guard
            case .forward(let host, nil, let verdict) = pipe.begin(
                packet: query, client: kid, transport: .udp, now: 0, note: &note)
        else {
            Issue.record("the kid's query is forwarded as the host's")
            return
        }
        #expect(host.name == "forcesafesearch.google.com" && host.type == RecordType.aaaa)
        #expect(note.safeSearch?.text == "safe search: Google, forcesafesearch.google.com")
        let upstream = try #require(
            LdnsBuild.answer(
                to: host.packet, records: ["forcesafesearch.google.com. 600 IN AAAA 2001:4860:4802:32::78"]))
        let answer = try CachedAnswer(reply: upstream, toQuery: host.packet, bounds: TTLBounds())
        let finished = pipe.finish(
            host, upstream: .success(answer), stale: nil, verdict: verdict, transport: .udp, now: 0)
        #expect(finished.outcome == .forwarded)
        let reply = try LdnsPacket(wire: finished.bytes)
        #expect(reply.id == (try DNSQuery(packet: query)).id && reply.rcode == 0 && reply.hasEDNS)
        #expect(
            reply.answerRecords == [
                "www.Google.com.\t600\tIN\tCNAME\tforcesafesearch.google.com.",
                "forcesafesearch.google.com.\t600\tIN\tAAAA\t2001:4860:4802:32::78",
            ])
        // The host's answer is cached: the next query of the kid's is answered from it.
        let again = pipe.begin(packet: query, client: kid, transport: .udp, now: 5_000_000_000)
        guard case .reply(let bytes, .cached) = again else {
            Issue.record("the second query is answered from the cache")
            return
        }
        #expect(
            try LdnsPacket(wire: bytes).answerRecords.first
                == "www.Google.com.\t595\tIN\tCNAME\tforcesafesearch.google.com.")
        // ... and the parent's still goes upstream as it was asked.
        guard case .forward(let parents, nil, _) = pipe.begin(packet: query, client: parent, transport: .udp, now: 1)
        else {
            Issue.record("the parent's query is still forwarded")
            return
        }
        #expect(parents.name == "www.google.com")
    }

    @Test func aCNAMEQueryAnAddressProviderAndAFailedHostAreAnsweredToo() throws {
        let pipe = pipeline(cache: AnswerCache(settings: CacheSettings()))
        let cname = pipe.begin(
            packet: LdnsBuild.query("www.youtube.com.", type: "CNAME"), client: kid, transport: .udp, now: 0)
        guard case .reply(let bytes, .synthesized) = cname else {
            Issue.record("a CNAME query is answered here")
            return
        }
        #expect(
            try LdnsPacket(wire: bytes).answerRecords == ["www.youtube.com.\t3600\tIN\tCNAME\trestrict.youtube.com."])

        let address = pipe.begin(packet: LdnsBuild.query("ya.ru."), client: kid, transport: .udp, now: 0)
        guard case .reply(let a, .synthesized) = address else {
            Issue.record("an address provider is answered here")
            return
        }
        let reply = try LdnsPacket(wire: a)
        #expect(reply.answerRecords == ["ya.ru.\t3600\tIN\tA\t213.180.193.56"] && !reply.isAuthoritative)
        guard
            case .reply(let aaaa, .synthesized) = pipe.begin(
                packet: LdnsBuild.query("ya.ru.", type: "AAAA"), client: kid, transport: .udp, now: 0)
        else {
            Issue.record("AAAA of an address provider is answered here")
            return
        }
        #expect(try LdnsPacket(wire: aaaa).answerRecords.isEmpty)

        let query = LdnsBuild.query("www.google.de.")
        guard
            case .forward(let host, nil, let verdict) = pipe.begin(packet: query, client: kid, transport: .udp, now: 0)
        else {
            Issue.record("forwarded as the host's")
            return
        }
        let failed = pipe.finish(
            host, upstream: .failure(ForwardError.noUpstreamAnswered), stale: nil, verdict: verdict, transport: .udp,
            now: 0)
        let servfail = try LdnsPacket(wire: failed.bytes)
        #expect(failed.outcome == .failed && servfail.rcode == 2)
        #expect(servfail.id == (try DNSQuery(packet: query)).id)
    }

    /// The answer fits the client's own UDP size (1232 here), not the 512 of the question asked
    /// for it; a client without EDNS gets TC and asks again over TCP.
    @Test func theClientsUDPSizeDecidesWhetherTheAnswerIsTruncated() throws {
        // The host's records are written whole (no compression): 20 of them are over 512 bytes.
        let many = (1...20).map { "forcesafesearch.google.com. 300 IN A 198.51.100.\($0)" }
        for (query, truncated) in [
            (LdnsBuild.query("www.google.com.", ednsPayload: 1232), false), (LdnsBuild.query("www.google.com."), true),
        ] {
            let pipe = pipeline(cache: AnswerCache(settings: CacheSettings()))
            guard
                case .forward(let host, nil, let verdict) = pipe.begin(
                    packet: query, client: kid, transport: .udp, now: 0)
            else {
                Issue.record("forwarded as the host's")
                return
            }
            let upstream = try #require(LdnsBuild.answer(to: host.packet, records: many))
            let answer = try CachedAnswer(reply: upstream, toQuery: host.packet, bounds: TTLBounds())
            let finished = pipe.finish(
                host, upstream: .success(answer), stale: nil, verdict: verdict, transport: .udp, now: 0)
            let reply = try LdnsPacket(wire: finished.bytes)
            #expect(reply.isTruncated == truncated && (finished.bytes.count > 512) != truncated)
            #expect(reply.answerRecords.count == (truncated ? 0 : 21))
        }
    }
}
