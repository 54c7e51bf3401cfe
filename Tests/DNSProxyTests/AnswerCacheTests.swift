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

    @Test func expiresWithTheTTL() throws {
        let cache = AnswerCache(settings: CacheSettings(staleSeconds: 0))
        let (query, answer) = try stored("www.test.", ttl: 60)
        let start = 1_000 * Self.second
        cache.store(answer, for: query, now: start)
        let hit = try #require(cache.lookup(query, now: start + 59 * Self.second))
        #expect(hit.age == 59)
        #expect(!hit.isExpired)
        #expect(cache.lookup(query, now: start + 60 * Self.second) == nil)
    }

    @Test func negativeAnswersAreCachedForTheSOATime() throws {
        let cache = AnswerCache(settings: CacheSettings(staleSeconds: 0))
        let (query, answer) = try stored("nx.test.", ttl: 30, rcode: 3)
        cache.store(answer, for: query, now: 0)
        #expect(cache.lookup(query, now: 29 * Self.second)?.answer.rcode == .nameError)
        #expect(cache.lookup(query, now: 30 * Self.second) == nil)
    }

    @Test func expiredAnswersStayForServeStale() throws {
        let cache = AnswerCache(settings: CacheSettings(staleSeconds: 100))
        let (query, answer) = try stored("www.test.", ttl: 10)
        cache.store(answer, for: query, now: 0)
        let stale = try #require(cache.lookup(query, now: 50 * Self.second))
        #expect(stale.isExpired)
        #expect(cache.lookup(query, now: 110 * Self.second) == nil)
    }

    @Test func keysIgnoreCaseButNotTypeOrDOBit() throws {
        let cache = AnswerCache(settings: CacheSettings())
        let (query, answer) = try stored("www.test.", ttl: 60)
        cache.store(answer, for: query, now: 0)
        #expect(cache.lookup(try DNSQuery(packet: LdnsBuild.query("WWW.Test.")), now: 0) != nil)
        #expect(cache.lookup(try DNSQuery(packet: LdnsBuild.query("www.test.", type: "AAAA")), now: 0) == nil)
        let withDO = try DNSQuery(packet: LdnsBuild.query("www.test.", ednsPayload: 1232, dnssecOK: true))
        #expect(cache.lookup(withDO, now: 0) == nil)
    }

    @Test func staysWithinItsCapacity() throws {
        let cache = AnswerCache(settings: CacheSettings(capacity: 2_048))
        for index in 0..<5_000 {
            let (query, answer) = try stored("n\(index).test.", ttl: 300)
            cache.store(answer, for: query, now: 0)
            if index.isMultiple(of: 10) { _ = cache.lookup(try DNSQuery(packet: LdnsBuild.query("n0.test.")), now: 0) }
        }
        #expect(cache.count <= 2_048)
        #expect(cache.count > 1_900)
        // an entry that keeps being used survives eviction (second chance)
        #expect(cache.lookup(try DNSQuery(packet: LdnsBuild.query("n0.test.")), now: 0) != nil)
    }

    @Test func zeroLifetimeIsNotStored() throws {
        let cache = AnswerCache(settings: CacheSettings())
        let packet = LdnsBuild.query("fail.test.")
        let reply = try #require(LdnsBuild.answer(to: packet, rcode: 2))
        cache.store(try CachedAnswer(reply: reply, toQuery: packet, bounds: TTLBounds()), for: try DNSQuery(packet: packet), now: 0)
        #expect(cache.count == 0)
    }
}
