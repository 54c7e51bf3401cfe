import DNSTestSupport
import DNSWire
import Testing

@testable import DNSProxy

@Suite struct AnswerCacheTests {
    static let second: UInt64 = 1_000_000_000

    private func stored(_ name: String, ttl: Int, rcode: UInt8 = 0) throws -> (DNSQuery, CachedAnswer) {
        let packet = LdnsBuild.query(name, ednsPayload: 1232)
        let records = rcode == 0 ? ["\(name) \(ttl) IN A 192.0.2.1"] : []
        let authority = rcode == 0 ? [] : ["test. \(ttl) IN SOA ns.test. h.test. 1 3600 600 86400 \(ttl)"]
        let reply = try #require(LdnsBuild.answer(to: packet, rcode: rcode, records: records, authority: authority))
        return (try DNSQuery(packet: packet), try CachedAnswer(reply: reply, toQuery: packet, bounds: TTLBounds()))
    }

    /// The answer's records as ldns prints them, or nil for a miss; "stale" for an expired one.
    private func lookup(_ cache: AnswerCache, _ packet: [UInt8], at now: UInt64) throws -> [String]? {
        switch cache.answer(try DNSQuery(packet: packet), now: now, udpLimit: nil, check: .unchecked(stamp: 1)) {
        case .fresh(let bytes):
            try LdnsPacket(wire: bytes).answerRecords + ["rcode \(try LdnsPacket(wire: bytes).rcode)"]
        case .stale: ["stale"]
        case .unverified: ["unverified"]
        case .miss: nil
        }
    }

    @Test func expiresWithTheTTL() throws {
        let cache = AnswerCache(settings: CacheSettings(staleSeconds: 0))
        let (query, answer) = try stored("www.test.", ttl: 60)
        let start = 1_000 * Self.second
        cache.store(answer, for: query, now: start, stamp: 1)
        let hit = try #require(try lookup(cache, query.packet, at: start + 59 * Self.second))
        #expect(hit.first == "www.test.\t1\tIN\tA\t192.0.2.1")
        #expect(try lookup(cache, query.packet, at: start + 60 * Self.second) == nil)
    }

    @Test func negativeAnswersAreCachedForTheSOATime() throws {
        let cache = AnswerCache(settings: CacheSettings(staleSeconds: 0))
        let (query, answer) = try stored("nx.test.", ttl: 30, rcode: 3)
        cache.store(answer, for: query, now: 0, stamp: 1)
        #expect(try lookup(cache, query.packet, at: 29 * Self.second) == ["rcode 3"])
        #expect(try lookup(cache, query.packet, at: 30 * Self.second) == nil)
    }

    @Test func expiredAnswersStayForServeStale() throws {
        let cache = AnswerCache(settings: CacheSettings(staleSeconds: 100))
        let (query, answer) = try stored("www.test.", ttl: 10)
        cache.store(answer, for: query, now: 0, stamp: 1)
        #expect(try lookup(cache, query.packet, at: 50 * Self.second) == ["stale"])
        #expect(try lookup(cache, query.packet, at: 110 * Self.second) == nil)
    }

    @Test func keysIgnoreCaseButNotTypeOrDOBit() throws {
        let cache = AnswerCache(settings: CacheSettings())
        let (query, answer) = try stored("www.test.", ttl: 60)
        cache.store(answer, for: query, now: 0, stamp: 1)
        #expect(try lookup(cache, LdnsBuild.query("WWW.Test."), at: 0)?.first?.hasPrefix("WWW.Test.") == true)
        #expect(try lookup(cache, LdnsBuild.query("www.test.", type: "AAAA"), at: 0) == nil)
        #expect(try lookup(cache, LdnsBuild.query("www.test.", ednsPayload: 1232, dnssecOK: true), at: 0) == nil)
        #expect(try lookup(cache, LdnsBuild.query("www.test2."), at: 0) == nil)
    }

    @Test func staysWithinItsCapacityAndSparesWhatIsUsed() throws {
        let cache = AnswerCache(settings: CacheSettings(capacity: 1_000))
        var queries: [DNSQuery] = []
        for index in 0..<5_000 {
            let (query, answer) = try stored("n\(index).test.", ttl: 300)
            cache.store(answer, for: query, now: 0, stamp: 1)
            queries.append(query)
            if index.isMultiple(of: 10) { _ = try lookup(cache, LdnsBuild.query("n0.test."), at: 0) }
        }
        #expect(cache.count == 1_000)
        #expect(try lookup(cache, LdnsBuild.query("n0.test."), at: 0) != nil, "an entry in use survives eviction")
        // every entry the cache holds is still found through the index after all the evictions
        let found = try queries.filter { try lookup(cache, $0.packet, at: 0) != nil }.count
        #expect(found == 1_000)
    }

    @Test func anotherPolicyMustAllowTheNameAgain() throws {
        let cache = AnswerCache(settings: CacheSettings())
        let (query, answer) = try stored("www.test.", ttl: 60)
        cache.store(answer, for: query, now: 0, stamp: 1)
        guard case .unverified = cache.answer(query, now: 0, udpLimit: nil, check: .unchecked(stamp: 2)) else {
            Issue.record("an answer allowed under policy 1 must not be served under policy 2 unchecked")
            return
        }
        guard case .fresh = cache.answer(query, now: 0, udpLimit: nil, check: .allowed(stamp: 2)) else {
            Issue.record("once policy 2 allows the name the answer is served")
            return
        }
        guard case .fresh = cache.answer(query, now: 0, udpLimit: nil, check: .unchecked(stamp: 2)) else {
            Issue.record("and stays verified under policy 2")
            return
        }
    }

    @Test func zeroLifetimeIsNotStored() throws {
        let cache = AnswerCache(settings: CacheSettings())
        let packet = LdnsBuild.query("fail.test.")
        let reply = try #require(LdnsBuild.answer(to: packet, rcode: 2))
        cache.store(
            try CachedAnswer(reply: reply, toQuery: packet, bounds: TTLBounds()), for: try DNSQuery(packet: packet),
            now: 0, stamp: 1)
        #expect(cache.count == 0)
    }
}
