import DNSProxy
import Foundation
import LockrAdapters

/// Meters use from the backends' query logs, when a backend answers the household's DNS: each
/// query for a guarded app's name counts for the person whose device asked.
struct BackendMeter: Sendable {
    let household: Household
    let clock: PolicyClock
    let propagation: PolicyPropagation
    /// Which clients each backend's query log counts, by backend name (all when none are named).
    let clients: [String: [String]]

    init(household: Household, clock: PolicyClock, propagation: PolicyPropagation, backends: [BackendSettings]) {
        self.household = household
        self.clock = clock
        self.propagation = propagation
        clients = Dictionary(backends.map { ($0.name, $0.clients) }, uniquingKeysWith: { first, _ in first })
    }

    /// Takes the queries `backend` logged and publishes the block sets when any was metered.
    func observe(_ queries: [LoggedQuery], from backend: String) {
        let clients = clients[backend] ?? []
        let directory = household.deviceDirectory()
        let now = clock.now()
        var observed = false
        for query in queries where clients.isEmpty || clients.contains(query.client) {
            let number = IPAddressBytes.parse(query.client).map {
                directory.person(ofAddress: IPAddressBytes.number($0))
            }
            let person = household.policy(number: number ?? 0)
            guard let app = person.naming.guardSet.app(forName: query.name) else { continue }
            _ = person.withEngine { $0.observe(app, queriedAt: clock.instant(atWall: query.at), now: now) }
            observed = true
        }
        if observed { propagation.publish() }
    }
}
