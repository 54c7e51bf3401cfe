import DNSWire
import NIOConcurrencyHelpers

/// What the cache can do for a query.
public enum CacheResult: Sendable {
    /// A fresh answer, already rendered for the query.
    case fresh([UInt8])
    /// A fresh answer whose name has not been checked against the policy in force.
    case unverified
    /// Only an expired answer, to fall back on if the upstreams fail.
    case stale(StaleAnswer)
    case miss
}

/// What the caller knows of the policy's verdict on a query's name when it asks the cache.
public enum CacheCheck: Sendable {
    /// Nothing yet: serve a fresh answer only if the name was allowed under this stamp before (see
    /// `FilterPolicy.stamp(for:)`).
    case unchecked(stamp: UInt64)
    /// The name has just been allowed under this stamp: remember that, and serve.
    case allowed(stamp: UInt64)
    /// A name allowed for now only (an app's): serve with TTLs of at most `ttlCap`, remember nothing.
    case eachTime(ttlCap: UInt32?)
}

/// An answer past its lifetime but within the stale window (RFC 8767).
public struct StaleAnswer: Sendable {
    public let answer: CachedAnswer
    /// Whole seconds since the answer was stored.
    public let age: UInt32
}

/// A bounded cache of upstream answers, positive and negative (RFC 2308), keyed by question name
/// (ignoring case), type, class and the DO and CD bits.
///
/// The policy decides before the cache, so a cached answer can never outlive a block. To spare
/// allowed names a rule lookup on every hit, each entry remembers the stamp under which its name was
/// last allowed (one per policy and person filter): a hit is served at once only under that same
/// stamp, and after a reload, or for a person whose filter differs, the first hit goes through the
/// policy again (`CacheResult.unverified`).
///
/// Sharded, each shard behind its own lock, so the event loops rarely wait on each other; answers
/// are rendered inside the lock, so a hit shares no reference count across cores. Time is passed
/// in (monotonic nanoseconds), never read here.
public final class AnswerCache: Sendable {
    private let shards: [NIOLockedValueBox<CacheTable>]

    public init(settings: CacheSettings) {
        let shardCount = settings.capacity >= 1024 ? 16 : 1
        let perShard = max(1, (settings.capacity + shardCount - 1) / shardCount)
        let stale = UInt64(settings.staleSeconds) * 1_000_000_000
        shards = (0..<shardCount).map { _ in NIOLockedValueBox(CacheTable(capacity: perShard, staleNanoseconds: stale))
        }
    }

    /// Number of answers held.
    public var count: Int { shards.reduce(0) { $0 + $1.withLockedValue { $0.count } } }

    /// What the cache holds for `query`, given what is known of the policy's verdict.
    public func answer(_ query: DNSQuery, now: UInt64, udpLimit: Int?, check: CacheCheck) -> CacheResult {
        let key = CacheKey(query)
        return shard(for: key).withLockedValue {
            $0.answer(key, query, now: now, udpLimit: udpLimit, check: check)
        }
    }

    /// A stamp no policy gives out: the entry's name must go through the policy on every hit.
    public static let alwaysCheck: UInt64 = 0

    /// Stores `answer` for `query`, its name allowed under `stamp` (or `alwaysCheck`),
    /// unless its lifetime is zero.
    public func store(_ answer: CachedAnswer, for query: DNSQuery, now: UInt64, stamp: UInt64) {
        guard answer.lifetime > 0 else { return }
        let key = CacheKey(query)
        shard(for: key).withLockedValue { $0.store(answer, key, query, now: now, stamp: stamp) }
    }

    private func shard(for key: CacheKey) -> NIOLockedValueBox<CacheTable> {
        shards[Int(key.hash >> 60) % shards.count]
    }
}

/// One shard: entries in a fixed ring, found through an open-addressing index of their hashes.
/// Eviction is CLOCK (second chance): a hit marks an entry, the hand spares marked entries once and
/// takes dead ones (past the stale window) first.
struct CacheTable: Sendable {
    struct Entry: Sendable {
        let hash: UInt64
        let type: UInt16
        let flags: UInt8
        let answer: CachedAnswer
        let storedAt: UInt64
        let expiresAt: UInt64
        /// The stamp under which the name was last allowed.
        var allowedBy: UInt64
        var referenced = false
    }

    private let capacity: Int
    private let staleNanoseconds: UInt64
    private var entries: [Entry] = []
    /// Open addressing with linear probing: 0 is empty, else `slot + 1`.
    private var index: [UInt32]
    private let indexMask: Int
    private var hand = 0

    init(capacity: Int, staleNanoseconds: UInt64) {
        self.capacity = capacity
        self.staleNanoseconds = staleNanoseconds
        var size = 8
        while size < capacity * 2 { size <<= 1 }
        index = [UInt32](repeating: 0, count: size)
        indexMask = size - 1
        entries.reserveCapacity(capacity)
    }

    var count: Int { entries.count }

    mutating func answer(
        _ key: CacheKey, _ query: DNSQuery, now: UInt64, udpLimit: Int?, check: CacheCheck
    )
        -> CacheResult
    {
        guard let slot = find(key, query) else { return .miss }
        let expiresAt = entries[slot].expiresAt
        let storedAt = entries[slot].storedAt
        if now >= expiresAt, now - expiresAt >= staleNanoseconds { return .miss }
        var ttlCap: UInt32?
        switch check {
        case .unchecked(let stamp): if entries[slot].allowedBy != stamp { return .unverified }
        case .allowed(let stamp): entries[slot].allowedBy = stamp
        case .eachTime(let cap): ttlCap = cap
        }
        if !entries[slot].referenced { entries[slot].referenced = true }
        let age = now > storedAt ? UInt32(min((now - storedAt) / 1_000_000_000, UInt64(UInt32.max))) : 0
        if now >= expiresAt { return .stale(StaleAnswer(answer: entries[slot].answer, age: age)) }
        return .fresh(entries[slot].answer.render(for: query, age: age, ttlCap: ttlCap, udpLimit: udpLimit))
    }

    mutating func store(_ answer: CachedAnswer, _ key: CacheKey, _ query: DNSQuery, now: UInt64, stamp: UInt64) {
        let entry = Entry(
            hash: key.hash, type: query.type, flags: key.flags,
            answer: answer, storedAt: now, expiresAt: now + UInt64(answer.lifetime) * 1_000_000_000, allowedBy: stamp)
        if let slot = find(key, query) {
            entries[slot] = entry
        } else if entries.count < capacity {
            entries.append(entry)
            insertIntoIndex(slot: entries.count - 1)
        } else {
            let victim = nextVictim(now: now)
            removeFromIndex(slot: victim)
            entries[victim] = entry
            insertIntoIndex(slot: victim)
        }
    }
    private func find(_ key: CacheKey, _ query: DNSQuery) -> Int? {
        var position = Int(truncatingIfNeeded: key.hash) & indexMask
        while true {
            let stored = index[position]
            if stored == 0 { return nil }
            let slot = Int(stored) - 1
            if entries[slot].hash == key.hash, entries[slot].type == query.type, entries[slot].flags == key.flags,
                entries[slot].answer.asksForTheName(of: query)
            {
                return slot
            }
            position = (position + 1) & indexMask
        }
    }

    private func home(ofSlot slot: Int) -> Int { Int(truncatingIfNeeded: entries[slot].hash) & indexMask }

    private mutating func insertIntoIndex(slot: Int) {
        var position = home(ofSlot: slot)
        while index[position] != 0 { position = (position + 1) & indexMask }
        index[position] = UInt32(slot + 1)
    }

    /// Removes a slot from the index, shifting later entries of its probe run back (no tombstones).
    private mutating func removeFromIndex(slot: Int) {
        var hole = home(ofSlot: slot)
        while index[hole] != UInt32(slot + 1) { hole = (hole + 1) & indexMask }
        var next = hole
        while true {
            next = (next + 1) & indexMask
            guard index[next] != 0 else { break }
            let wanted = home(ofSlot: Int(index[next]) - 1)
            // move it back unless its home lies cyclically in (hole, next]
            let stays = hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next)
            if !stays {
                index[hole] = index[next]
                hole = next
            }
        }
        index[hole] = 0
    }

    /// Moves the hand to the first entry that is dead or unreferenced, clearing references on the way.
    private mutating func nextVictim(now: UInt64) -> Int {
        while true {
            let slot = hand
            hand = (hand + 1) % entries.count
            let expiresAt = entries[slot].expiresAt
            let dead = now >= expiresAt && now - expiresAt >= staleNanoseconds
            if dead || !entries[slot].referenced { return slot }
            entries[slot].referenced = false
        }
    }
}

/// The identity of a question for the cache and for joining queries in flight (name ignoring case,
/// type, DO and CD bits), hashed without copying the name.
struct CacheKey {
    let hash: UInt64
    /// DO and CD bits.
    let flags: UInt8

    init(_ query: DNSQuery) {
        flags = (query.edns?.dnssecOK == true ? 1 : 0) | (query.checkingDisabled ? 2 : 0)
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        query.packet.withUnsafeBufferPointer { packet in
            for index in DNSLimits.headerSize..<query.nameEnd {
                hash = (hash ^ UInt64(asciiLower(packet[index]))) &* 0x0000_0100_0000_01B3
            }
        }
        hash = (hash ^ UInt64(query.type) << 8 ^ UInt64(flags)) &* 0xFF51_AFD7_ED55_8CCD
        self.hash = hash ^ hash >> 29
    }

    /// True when two queries ask the same question in this sense.
    static func sameQuestion(_ lhs: DNSQuery, _ rhs: DNSQuery) -> Bool {
        lhs.type == rhs.type && CacheKey(lhs).flags == CacheKey(rhs).flags
            && WireName.equalIgnoringCase(lhs.wireName, rhs.wireName)
    }
}
