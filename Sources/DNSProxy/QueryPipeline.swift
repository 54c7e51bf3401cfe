import DNSWire
import NIOCore

/// How a query arrived; UDP answers must fit the client's size, TCP answers need not.
public enum Transport: Sendable {
    case udp
    case tcp
    /// DNS over TLS (RFC 7858).
    case tls
    /// DNS over HTTPS (RFC 8484).
    case https
}

/// What became of one query: the typed outcome every answer carries (blocky's response type and
/// reason are the model), for the query log, stats and metrics.
public enum QueryOutcome: Sendable, Equatable {
    /// Answered locally: a rule, anti-bypass or the rationing policy blocks the name.
    case blocked(BlockReason)
    /// Answered from the cache.
    case cached
    /// Answered by an upstream just now.
    case forwarded
    /// An expired cached answer, because no upstream answered in time (RFC 8767).
    case stale
    /// Answered without asking anyone: the minimal answer to ANY (RFC 8482), the web pages' name, the
    /// home's own records, a locally served zone (RFC 6303).
    case synthesized
    /// REFUSED: the client is not on an allowed network.
    case refused
    /// What lockr does not serve: a class other than IN, a zone transfer, an EDNS version other than 0.
    case unsupported
    /// Not a well-formed query: FORMERR.
    case malformed
    /// No upstream answered and nothing stale was at hand: SERVFAIL.
    case failed

    /// Its word in the query log, the API and metrics.
    public var kind: AnswerOutcome {
        switch self {
        case .blocked: .blocked
        case .cached: .cached
        case .forwarded: .forwarded
        case .stale: .stale
        case .synthesized: .synthesized
        case .refused: .refused
        case .unsupported: .unsupported
        case .malformed: .malformed
        case .failed: .failed
        }
    }
}

/// An answer and what it is.
public struct PipelineAnswer: Sendable {
    public let bytes: [UInt8]
    public let outcome: QueryOutcome
}

/// What the network layer must do with a query.
public enum PipelineStep: Sendable {
    /// Send these bytes back; `QueryOutcome` says what they are.
    case reply([UInt8], QueryOutcome)
    /// Send nothing (not a query, or not worth an answer).
    case drop
    /// Ask upstream, then call `QueryPipeline.finish` with `verdict`. `stale` is an expired cached
    /// answer to fall back on if no upstream answers.
    case forward(DNSQuery, stale: StaleAnswer?, verdict: ResolveVerdict)
}

/// What the policy said about a name it let through, carried to `QueryPipeline.finish`.
public enum ResolveVerdict: Sendable, Equatable {
    /// Allowed for as long as the policy stands: the cache may remember it under `stamp`.
    case allowed(stamp: UInt64)
    /// Allowed for now (an app's name): TTLs capped at `ttlCap`, checked again on every query.
    case eachTime(ttlCap: UInt32?)
    /// A safe-search name, asked as its provider's host: the answer is the client's (see
    /// `SafeSearchAlias`), and the host's answer is remembered for every name that goes there.
    case aliased(SafeSearchAlias)

    var ttlCap: UInt32? {
        switch self {
        case .allowed: nil
        case .eachTime(let cap): cap
        case .aliased(let alias): alias.ttlCap
        }
    }
}

/// The order in which a query is handled, from the wire to an answer:
///
/// 1. validate the packet (FORMERR, NOTIMP, or drop);
/// 2. access control: strangers get REFUSED (lockr is not an open resolver);
/// 3. what lockr never forwards: non-IN classes (REFUSED), zone transfers (NOTIMP), EDNS versions
///    other than 0 (BADVERS);
/// 4. who asked: the device and its person (`DeviceDirectory`), noted with the time (`DeviceSightings`);
/// 5. the filter policy as that person has it, before the cache, so a cached answer can never
///    outlive a block (a fresh cached answer whose name this very policy already allowed for a
///    person with the same filter skips the rule lookup; names of apps are decided on every query,
///    as their verdict changes with time and person);
/// 6. the home's own names (`LocalRecords`) their records; a safe-search name (`SafeSearchAnswers`)
///    its provider's answer; ANY the minimal RFC 8482 answer; a locally served zone
///    (`LocallyServedZones`) its own;
/// 7. the cache; 8. the upstreams; and if they all fail, a stale answer or SERVFAIL.
///
/// Immutable and without I/O: the network layer carries out the steps it returns. A reload builds
/// a new pipeline around the same cache.
public final class QueryPipeline: Sendable {
    public let policy: FilterPolicy
    public let access: AccessControl
    public let devices: DeviceDirectory
    public let cacheSettings: CacheSettings
    public let cache: AnswerCache
    /// Where each query's device is noted, when someone watches devices.
    public let sightings: DeviceSightings?
    /// Whom the query log names and how much of each person's queries it keeps; nil when the
    /// query log is off.
    public let logging: QueryLogging?
    /// The home's own names; nil: none.
    public let localRecords: LocalRecords?
    /// The zones answered here rather than upstream; nil: none.
    public let localZones: LocallyServedZones?
    /// lockr's own encrypted endpoints, for devices that ask `_dns.resolver.arpa`; nil: none served.
    public let designatedResolver: DesignatedResolver?

    /// TTL of served-stale answers (RFC 8767 recommends 30 s).
    static let staleTTL: UInt32 = 30
    /// TTL of the synthesized answer to ANY.
    static let anyTTL: UInt32 = 3_600

    public init(
        policy: FilterPolicy,
        access: AccessControl = AccessControl(),
        devices: DeviceDirectory = DeviceDirectory(),
        cacheSettings: CacheSettings = .defaults,
        cache: AnswerCache,
        sightings: DeviceSightings? = nil,
        logging: QueryLogging? = nil,
        localRecords: LocalRecords? = nil,
        localZones: LocallyServedZones? = nil,
        designatedResolver: DesignatedResolver? = nil
    ) {
        self.policy = policy
        self.access = access
        self.devices = devices
        self.cacheSettings = cacheSettings
        self.cache = cache
        self.sightings = sightings
        self.logging = logging
        self.localRecords = localRecords
        self.localZones = localZones
        self.designatedResolver = designatedResolver
    }

    /// A pipeline with the same settings, for another event loop: each loop holding its own keeps
    /// the reference counting of the hot path on one core.
    func copy() -> QueryPipeline {
        QueryPipeline(
            policy: policy, access: access, devices: devices, cacheSettings: cacheSettings, cache: cache,
            sightings: sightings, logging: logging, localRecords: localRecords, localZones: localZones,
            designatedResolver: designatedResolver)
    }

    /// Handles a received packet as far as it can without an upstream.
    /// - Parameters:
    ///   - now: monotonic time in nanoseconds.
    ///   - note: filled in with what the query log needs: the query, who asked, the app.
    public func begin(
        packet: [UInt8], client: SocketAddress, transport: Transport, clientID: String? = nil, now: UInt64,
        note: inout QueryNote
    ) -> PipelineStep {
        let query: DNSQuery
        do {
            query = try DNSQuery(packet: packet)
        } catch {
            guard access.allows(client), let answer = Responses.answer(toInvalid: packet, problem: error) else {
                return .drop
            }
            return .reply(answer, .malformed)
        }
        note.query = query
        guard access.allows(client) else {
            return .reply(
                Responses.rcode(
                    .refused, to: query, reason: ExtendedError(code: .prohibited, text: "not an allowed network")),
                .refused)
        }
        if query.recordClass != RecordClass.internet {
            return .reply(
                Responses.rcode(.refused, to: query, reason: ExtendedError(code: .notSupported, text: "only class IN")),
                .unsupported)
        }
        if query.type == RecordType.axfr || query.type == RecordType.ixfr {
            return .reply(Responses.rcode(.notImplemented, to: query), .unsupported)
        }
        if let edns = query.edns, edns.version != 0 { return .reply(Responses.badVersion(to: query), .unsupported) }
        if let designatedResolver, let answer = designatedResolver.answer(to: query) {
            return .reply(answer, .synthesized)
        }

        let asker = devices.identify(query, source: client, clientID: clientID)
        note.client = asker
        sightings?.record(asker, now: now)
        let stamp = policy.stamp(for: asker)
        let limit = udpLimit(query, transport)
        let cached = cache.answer(query, now: now, udpLimit: limit, check: .unchecked(stamp: stamp))
        if case .fresh(let bytes) = cached { return .reply(bytes, .cached) }

        let verdict: ResolveVerdict
        switch policy.decide(query, client: asker) {
        case .answer(let answer, let ttl, let reason):
            if case .guarded(let block) = reason { note.app = block.app }
            let explanation =
                query.edns == nil ? nil : policy.extendedError(for: reason, client: asker, wireName: query.wireName)
            return .reply(Responses.synthesized(answer, to: query, ttl: ttl, reason: explanation), .blocked(reason))
        case .pagesName(let answer, let ttl):
            return .reply(Responses.synthesized(answer, to: query, ttl: ttl, reason: nil), .synthesized)
        case .resolve:
            verdict = .allowed(stamp: stamp)
        case .resolveEachTime(let ttlCap, let app):
            note.app = app
            verdict = .eachTime(ttlCap: ttlCap)
        }
        // Safe search before the home's own names: no local record leads around it.
        if let entry = policy.safeSearch(query, client: asker) {
            note.safeSearch = entry
            return safeSearch(query, entry.target, ttlCap: verdict.ttlCap, limit: limit, now: now)
        }
        if let local = localRecords?.answer(to: query) {
            // Too big for the client's UDP size: TC, and the client asks again over TCP.
            let fits = limit.map { local.count <= $0 } ?? true
            return .reply(fits ? local : Responses.truncated(to: query), .synthesized)
        }
        if query.type == RecordType.any {
            return .reply(Responses.minimalAny(to: query, ttl: Self.anyTTL), .synthesized)
        }

        switch cached {
        case .unverified:
            let check: CacheCheck
            switch verdict {
            case .allowed(let stamp): check = .allowed(stamp: stamp)
            case .eachTime, .aliased: check = .eachTime(ttlCap: verdict.ttlCap)
            }
            switch cache.answer(query, now: now, udpLimit: limit, check: check) {
            case .fresh(let bytes): return .reply(bytes, .cached)
            case .stale(let stale): return forward(query, stale: stale, verdict: verdict)
            case .unverified, .miss: return forward(query, stale: nil, verdict: verdict)
            }
        case .stale(let stale): return forward(query, stale: stale, verdict: verdict)
        case .fresh, .miss: return forward(query, stale: nil, verdict: verdict)
        }
    }

    /// A safe-search name's answer: the provider's address, or a CNAME to its host followed by the
    /// host's records, from the cache or asked upstream (any type: an HTTPS record of the name
    /// asked must not lead around it either).
    private func safeSearch(
        _ query: DNSQuery, _ target: SafeSearchTarget, ttlCap: UInt32?, limit: Int?, now: UInt64
    ) -> PipelineStep {
        switch target {
        case .address(_, let type, let rdata):
            let ttl = min(SafeSearchAlias.ttl, ttlCap ?? .max)
            let records = query.type == type ? [(owner: [UInt8]?.none, type: type, ttl: ttl, rdata: rdata)] : []
            let answer = Responses.local(records, to: query, negativeTTL: ttl, authoritative: false)
            return .reply(
                limit.map { answer.count <= $0 } ?? true ? answer : Responses.truncated(to: query), .synthesized)
        case .host(_, let wire):
            let alias = SafeSearchAlias(query: query, target: wire, ttlCap: ttlCap)
            guard query.type != RecordType.cname else {
                return .reply(alias.answer(nil, udpLimit: limit), .synthesized)
            }
            guard let asked = DNSQuery.asking(wire: wire, type: query.type) else {
                return .reply(Responses.rcode(.serverFailure, to: query), .failed)
            }
            switch cache.answer(asked, now: now, udpLimit: nil, check: .eachTime(ttlCap: ttlCap)) {
            case .fresh(let bytes): return .reply(alias.answer(bytes, udpLimit: limit), .cached)
            case .stale(let stale): return forward(asked, stale: stale, verdict: .aliased(alias))
            case .unverified, .miss: return forward(asked, stale: nil, verdict: .aliased(alias))
            }
        }
    }

    /// Asks upstream about `query`, unless its name is a locally served zone's: then it is answered here.
    private func forward(_ query: DNSQuery, stale: StaleAnswer?, verdict: ResolveVerdict) -> PipelineStep {
        if let local = localZones?.answer(to: query) { return .reply(local, .synthesized) }
        return .forward(query, stale: stale, verdict: verdict)
    }

    /// The answer once the upstreams have answered or failed.
    public func finish(
        _ query: DNSQuery,
        upstream: Result<CachedAnswer, Error>,
        stale: StaleAnswer?,
        verdict: ResolveVerdict,
        transport: Transport,
        now: UInt64
    ) -> PipelineAnswer {
        var stamp = AnswerCache.alwaysCheck
        if case .allowed(let allowedStamp) = verdict { stamp = allowedStamp }
        switch upstream {
        case .success(let answer):
            cache.store(answer, for: query, now: now, stamp: stamp)
            let limit = udpLimit(query, transport)
            if case .aliased(let alias) = verdict {
                // The client's own UDP size, not that of the question asked for it.
                let hosts = answer.render(for: query, age: 0, ttlCap: verdict.ttlCap)
                return PipelineAnswer(
                    bytes: alias.answer(hosts, udpLimit: udpLimit(alias.query, transport)), outcome: .forwarded)
            }
            return PipelineAnswer(
                bytes: answer.render(for: query, age: 0, ttlCap: verdict.ttlCap, udpLimit: limit), outcome: .forwarded)
        case .failure(let error):
            if let stale { return staleAnswer(query, stale: stale, verdict: verdict, transport: transport) }
            var client = query
            if case .aliased(let alias) = verdict { client = alias.query }
            let text = error as? ForwardError == .upstreamsDown ? "every upstream is down" : "no upstream answered"
            return PipelineAnswer(
                bytes: Responses.rcode(
                    .serverFailure, to: client, reason: ExtendedError(code: .noReachableAuthority, text: text)),
                outcome: .failed)
        }
    }

    /// An expired cached answer, served because the upstreams failed or are slow (RFC 8767): TTL 30 s
    /// (or the app's cap), with EDE 3 (stale answer).
    public func staleAnswer(
        _ query: DNSQuery, stale: StaleAnswer, verdict: ResolveVerdict, transport: Transport
    ) -> PipelineAnswer {
        let limit = udpLimit(query, transport)
        if case .aliased(let alias) = verdict {
            let hosts = stale.answer.render(for: query, age: stale.age, ttlCap: verdict.ttlCap, staleTTL: Self.staleTTL)
            return PipelineAnswer(
                bytes: alias.answer(hosts, udpLimit: udpLimit(alias.query, transport)), outcome: .stale)
        }
        return PipelineAnswer(
            bytes: stale.answer.render(
                for: query, age: stale.age, ttlCap: verdict.ttlCap, staleTTL: Self.staleTTL, udpLimit: limit),
            outcome: .stale)
    }

    private func udpLimit(_ query: DNSQuery, _ transport: Transport) -> Int? {
        transport == .udp ? query.udpSizeLimit() : nil
    }
}
