import DNSProxy
import DNSWire
import LockrAPI
import LockrControl
import LockrPolicy
import Synchronization

/// Says what lockr would answer for a name now, and why (`lockr explain`): the DNS pipeline's filter
/// as it stands, with the guard stage asking each engine on a copy, so that nothing is metered,
/// counted or opened, and no upstream is asked.
final class Explainer: Sendable {
    /// What a dry run looks at: the pipeline in force (its filter with a gate that only looks, the
    /// home's own names, the locally served zones) and the `[[forward]]` tables.
    struct DryRun {
        let pipeline: QueryPipeline
        let forwards: [ForwardRule]
    }

    /// The dry run's makings; set once the DNS server runs.
    private let filter = Mutex<(@Sendable () -> DryRun)?>(nil)

    /// Explains with what `make` builds, each time the latest.
    func use(_ make: @escaping @Sendable () -> DryRun) { filter.withLock { $0 = make } }

    /// The explanation for `query` from `client`, `view` being the person's policy.
    func explain(
        _ query: DNSQuery, client: QueryClient, person: String, clientText: String?, view: PolicyView
    )
        throws -> Components.Schemas.ExplainBody
    {
        guard let make = filter.withLock({ $0 }) else {
            throw Components.Schemas.ErrorBody(
                error: "lockr answers no DNS here (no \"dns\" in backends): nothing to explain", code: .noDns)
        }
        let dryRun = make()
        let policy = dryRun.pipeline.policy
        let readout = view.policy
        let type = RecordType.mnemonic(query.type)
        func body(
            verdict: Components.Schemas.ExplainVerdict, answer: String, reason: String, rule: String? = nil,
            list: String? = nil, app: String? = nil,
            code: AccessCode? = nil, ttlCap: Int? = nil
        ) -> Components.Schemas.ExplainBody {
            Components.Schemas.ExplainBody(
                name: query.name, _type: type, person: person, client: clientText, mode: readout.settings.mode.rawValue,
                verdict: verdict, answer: answer, reason: reason, rule: rule, list: list, app: app,
                appName: app.map { readout.apps[$0] ?? $0 }, code: code, ttlCapSeconds: ttlCap)
        }
        switch policy.decide(query, client: client) {
        case .answer(let answer, let ttl, let reason):
            let text = policy.extendedError(for: reason, client: client, wireName: query.wireName).text
            let answered = Self.text(of: answer, type: query.type) + ", TTL \(ttl) s"
            switch (reason, policy.explanation(for: reason, client: client, wireName: query.wireName)) {
            case (.guarded(let block), _):
                return body(
                    verdict: .blocked, answer: answered, reason: text, app: block.app,
                    code: AccessCode(rawValue: block.code))
            case (_, .domainRule(let prefix, let length, let source)):
                let listed = WireName.presentation(of: query.wireName.suffix(length))
                return body(
                    verdict: .blocked, answer: answered, reason: text,
                    rule: prefix + listed + (prefix == "*." ? "" : "^"), list: source)
            default:
                return body(verdict: .blocked, answer: answered, reason: text)
            }
        case .pagesName(let answer, let ttl):
            return body(
                verdict: .lockr, answer: Self.text(of: answer, type: query.type) + ", TTL \(ttl) s",
                reason: "the name of lockr's web pages")
        case .resolve:
            if let home = ownAnswer(query, client: client, dryRun) {
                return body(verdict: .lockr, answer: home.answer, reason: home.reason)
            }
            var reason = "no rule blocks it"
            if let hit = policy.rules.hit(name: query.name), !hit.isBlock {
                reason = "allowed by \(policy.rules.describe(hit, wireName: query.wireName))"
            }
            return body(
                verdict: .allowed, answer: Self.asked(query, dryRun.forwards) + ", or the cache's", reason: reason)
        case .resolveEachTime(let ttlCap, let app):
            if let own = ownAnswer(query, client: client, dryRun) {
                return body(
                    verdict: .lockr, answer: own.answer, reason: own.reason, app: app, ttlCap: ttlCap.map(Int.init))
            }
            guard let ttlCap else {
                return body(
                    verdict: .allowed, answer: Self.asked(query, dryRun.forwards),
                    reason: "\(readout.apps[app] ?? app) is not guarded",
                    app: app)
            }
            let status = readout.status(at: view.now).apps.first { $0.id == app }
            return body(
                verdict: .appOpen, answer: "the upstream's answer, TTLs cut to \(ttlCap) s",
                reason: status?.reason ?? "open", app: app, ttlCap: Int(ttlCap))
        }
    }

    /// The answer and its reason when lockr answers `query` of `client` itself, in the pipeline's
    /// order: a safe-search name, a name of the home's own, a locally served zone.
    private func ownAnswer(
        _ query: DNSQuery, client: QueryClient, _ dryRun: DryRun
    ) -> (answer: String, reason: String)? {
        if let entry = dryRun.pipeline.policy.safeSearch(query, client: client) {
            let setting = dryRun.pipeline.policy.safeSearchSetting(of: client) ?? ""
            let answer =
                switch entry.target {
                case .host(let host, _): "a CNAME to \(host), with \(host)'s own records from the upstream"
                case .address(let address, let type, _): query.type == type ? address : "NODATA (no records)"
                }
            return (answer, "safe search (\(setting)): \(entry.provider)'s strict mode, \(entry.target.text)")
        }
        if let bytes = dryRun.pipeline.localRecords?.answer(to: query), let reply = try? LdnsPacket(wire: bytes) {
            let records = reply.answerRecords.map { $0.split(separator: "\t").suffix(2).joined(separator: " ") }
            return (
                records.isEmpty ? "NODATA (no records of this type)" : records.joined(separator: "; "),
                "a name of the home's own ([local] records, hosts files, `lockr records`), answered with authority"
            )
        }
        if let bytes = dryRun.pipeline.localZones?.answer(to: query), let reply = try? LdnsPacket(wire: bytes) {
            return (
                reply.rcode == 3 ? "NXDOMAIN" : "NODATA (no records)",
                "a locally served zone (private reverse lookups, local, home.arpa, onion, invalid): never asked of the upstreams"
            )
        }
        return nil
    }

    /// Whom a name is asked of: the servers of the `[[forward]]` domain that covers it, else the upstreams.
    static func asked(_ query: DNSQuery, _ forwards: [ForwardRule]) -> String {
        guard let route = ForwardRoutes(forwards).domain(for: query.name) else { return "the upstream's answer" }
        return
            "the answer of \(route.servers.map(AddressText.format).joined(separator: ", ")) ([[forward]] \(route.domain))"
    }

    /// "0.0.0.0", "NXDOMAIN", "NODATA (no records)", "REFUSED".
    static func text(of answer: SynthesizedAnswer, type: UInt16) -> String {
        switch answer {
        case .nameError: return "NXDOMAIN"
        case .noData: return "NODATA (no records)"
        case .refused: return "REFUSED"
        case .address(let ipv4, let ipv6):
            let bytes = type == RecordType.a ? ipv4 : type == RecordType.aaaa ? ipv6 : nil
            return bytes.map { IPAddressBytes.format($0) } ?? "NODATA (no records)"
        }
    }
}
