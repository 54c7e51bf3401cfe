import DNSProxy
import LockrPolicy

/// The DNS pipeline's gate for guarded apps' names: each query goes to the engine of the person
/// who asked, at the current policy time, and meters their use unless a backend's query log does.
struct DNSGate: GuardGate {
    let household: Household
    let clock: PolicyClock
    /// Whether the DNS lockr answers meters usage (false when a backend's query log does).
    let meters: Bool
    /// Whether it only says what it would answer (`lockr explain`): the engine is asked on a copy,
    /// so nothing is metered, counted or opened.
    var dryRun = false

    func admit(app: String, client: QueryClient) -> GuardAdmission {
        let now = clock.now()
        let person = household.policy(number: client.person)
        let admission =
            dryRun
            ? person.withEngine { engine in
                var copy = engine
                return copy.admit(app, at: now, metering: false)
            }
            : person.withEngine { $0.admit(app, at: now, metering: meters) }
        switch admission {
        case .notGuarded: return .notGuarded
        case .allow(let ttl): return .allow(ttl: clock.realSeconds(ttl))
        case .block(let access, let reason):
            return .block(PolicyBlock(app: app, code: access.code.rawValue, text: reason))
        }
    }
}
