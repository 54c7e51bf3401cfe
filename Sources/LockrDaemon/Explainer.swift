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
    /// The filter in force for a dry run; set once the DNS server runs.
    private let filter = Mutex<(@Sendable () -> FilterPolicy)?>(nil)

    /// Explains with the filters `make` builds, each time the latest.
    func use(_ make: @escaping @Sendable () -> FilterPolicy) { filter.withLock { $0 = make } }

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
        let policy = make()
        let engine = view.engine
        let type = RecordType.mnemonic(query.type)
        func body(
            verdict: Components.Schemas.ExplainVerdict, answer: String, reason: String, rule: String? = nil,
            list: String? = nil, app: String? = nil,
            code: AccessCode? = nil, ttlCap: Int? = nil
        ) -> Components.Schemas.ExplainBody {
            Components.Schemas.ExplainBody(
                name: query.name, _type: type, person: person, client: clientText, mode: engine.settings.mode.rawValue,
                verdict: verdict, answer: answer, reason: reason, rule: rule, list: list, app: app,
                appName: app.map { engine.apps[$0] ?? $0 }, code: code, ttlCapSeconds: ttlCap)
        }
        switch policy.decide(query, client: client) {
        case .answer(let answer, let ttl, let reason):
            let text = policy.extendedError(for: reason, client: client).text
            let answered = Self.text(of: answer, type: query.type) + ", TTL \(ttl) s"
            switch (reason, policy.explanation(for: reason, client: client)) {
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
            var reason = "no rule blocks it"
            if let hit = policy.rules.hit(name: query.name), !hit.isBlock {
                reason = "allowed by \(policy.rules.describe(hit))"
            }
            return body(verdict: .allowed, answer: "the upstream's answer, or the cache's", reason: reason)
        case .resolveEachTime(let ttlCap, let app):
            guard let ttlCap else {
                return body(
                    verdict: .allowed, answer: "the upstream's answer",
                    reason: "\(engine.apps[app] ?? app) is not guarded",
                    app: app)
            }
            let status = engine.status(at: view.now).apps.first { $0.id == app }
            return body(
                verdict: .appOpen, answer: "the upstream's answer, TTLs cut to \(ttlCap) s",
                reason: status?.reason ?? "open", app: app, ttlCap: Int(ttlCap))
        }
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
