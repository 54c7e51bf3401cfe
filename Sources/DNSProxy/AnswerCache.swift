import DNSWire
import NIOConcurrencyHelpers

/// What the cache holds for a question.
public struct CacheLookup: Sendable {
    public let answer: CachedAnswer
    /// Whole seconds since the answer was stored.
    public let age: UInt32
    /// Past its lifetime: only good for serve-stale.
    public let isExpired: Bool
}

/// Cache settings.
public struct CacheSettings: Sendable, Equatable {
    /// Most answers held; the least recently useful are evicted first.
    public var capacity: Int
    /// TTL bounds applied when answers are stored.
    public var bounds: TTLBounds
    /// How long past expiry an answer may still be served when every upstream fails (RFC 8767); 0 = off.
    public var staleSeconds: UInt32

    public init(capacity: Int = 10_000, bounds: TTLBounds = TTLBounds(), staleSeconds: UInt32 = 86_400) {
        self.capacity = capacity
        self.bounds = bounds
        self.staleSeconds = staleSeconds
    }
}

/// A bounded cache of upstream answers, positive and negative (RFC 2308), keyed by question name
/// (ignoring case), type, class and the DO and CD bits.
///
/// Sharded, each shard behind its own lock, so the event loops rarely wait on each other. Eviction
/// is CLOCK (second chance): a hit marks an entry, the hand spares marked entries once.
/// Time is passed in (monotonic nanoseconds), never read here.
public final class AnswerCache: Sendable {
    private let shards: [NIOLockedValueBox<CacheShard>]
    private let staleNanoseconds: UInt64

    public init(settings: CacheSettings) {
        let shardCount = settings.capacity >= 1024 ? 16 : 1
        let perShard = max(1, settings.capacity / shardCount)
        shards = (0..<shardCount).map { _ in NIOLockedValueBox(CacheShard(capacity: perShard)) }
        staleNanoseconds = UInt64(settings.staleSeconds) * 1_000_000_000
    }

    /// The stored answer for `query`, fresh or (within the stale window) expired.
    public func lookup(_ query: DNSQuery, now: UInt64) -> CacheLookup? {
        let key = CacheKey(query)
        return shard(for: key).withLockedValue { $0.lookup(key, query: query, now: now, staleNanoseconds: staleNanoseconds) }
    }

    /// Stores `answer` for `query` unless its lifetime is zero.
    public func store(_ answer: CachedAnswer, for query: DNSQuery, now: UInt64) {
        guard answer.lifetime > 0 else { return }
        let key = CacheKey(query)
        let entry = CacheShard.Entry(
            hash: key.hash, name: key.lowerCasedName(query), type: query.type, flags: key.flags,
            answer: answer, storedAt: now, expiresAt: now + UInt64(answer.lifetime) * 1_000_000_000)
        shard(for: key).withLockedValue { $0.insert(entry, now: now, staleNanoseconds: staleNanoseconds) }
    }

    /// Number of answers held.
    public var count: Int { shards.reduce(0) { $0 + $1.withLockedValue { $0.count } } }

    private func shard(for key: CacheKey) -> NIOLockedValueBox<CacheShard> {
        shards[Int(key.hash >> 60) % shards.count]
    }
}

/// The identity of a cached question, hashed without copying the name.
struct CacheKey {
    let hash: UInt64
    /// DO and CD bits.
    let flags: UInt8

    init(_ query: DNSQuery) {
        flags = (query.edns?.dnssecOK == true ? 1 : 0) | (query.checkingDisabled ? 2 : 0)
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for index in DNSLimits.headerSize..<query.nameEnd {
            hash = (hash ^ UInt64(asciiLower(query.packet[index]))) &* 0x0000_0100_0000_01B3
        }
        hash = (hash ^ UInt64(query.type) << 8 ^ UInt64(flags)) &* 0xFF51_AFD7_ED55_8CCD
        self.hash = hash ^ hash >> 29
    }

    func lowerCasedName(_ query: DNSQuery) -> [UInt8] { query.wireName.map(asciiLower) }

    func matches(_ entry: CacheShard.Entry, _ query: DNSQuery) -> Bool {
        entry.hash == hash && entry.type == query.type && entry.flags == flags
            && WireName.equalIgnoringCase(entry.name[...], query.wireName)
    }
}

/// One lock's worth of cache: a hash index over a fixed ring of entries.
struct CacheShard: Sendable {
    struct Entry: Sendable {
        let hash: UInt64
        let name: [UInt8]
        let type: UInt16
        let flags: UInt8
        let answer: CachedAnswer
        let storedAt: UInt64
        let expiresAt: UInt64
        var referenced = false
    }

    private let capacity: Int
    private var entries: [Entry] = []
    private var index: [UInt64: Int] = [:]
    private var hand = 0

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    mutating func lookup(_ key: CacheKey, query: DNSQuery, now: UInt64, staleNanoseconds: UInt64) -> CacheLookup? {
        guard let slot = index[key.hash], key.matches(entries[slot], query) else { return nil }
        let entry = entries[slot]
        let expired = now >= entry.expiresAt
        if expired, now - entry.expiresAt >= staleNanoseconds { return nil }
        entries[slot].referenced = true
        let age = now > entry.storedAt ? UInt32(min((now - entry.storedAt) / 1_000_000_000, UInt64(UInt32.max))) : 0
        return CacheLookup(answer: entry.answer, age: age, isExpired: expired)
    }

    mutating func insert(_ entry: Entry, now: UInt64, staleNanoseconds: UInt64) {
        if let slot = index[entry.hash] {
            entries[slot] = entry
            return
        }
        if entries.count < capacity {
            index[entry.hash] = entries.count
            entries.append(entry)
            return
        }
        let victim = nextVictim(now: now, staleNanoseconds: staleNanoseconds)
        index[entries[victim].hash] = nil
        entries[victim] = entry
        index[entry.hash] = victim
    }

    /// Moves the hand to the first entry that is unreferenced or dead (past its stale window),
    /// clearing references on the way.
    private mutating func nextVictim(now: UInt64, staleNanoseconds: UInt64) -> Int {
        while true {
            let slot = hand
            hand = (hand + 1) % entries.count
            let entry = entries[slot]
            let dead = now >= entry.expiresAt && now - entry.expiresAt >= staleNanoseconds
            if dead || !entry.referenced { return slot }
            entries[slot].referenced = false
        }
    }
}
