import DNSProxy
import DNSWire
import Foundation
import LockrAdapters
import LockrDnstap

/// Meters use from questions lockr did not answer itself: a backend's query log, or the dnstap of
/// resolvers it does not stand in front of. Each question for a guarded app's name counts for the
/// person whose device asked, told by its address as lockr's own DNS tells it.
struct UseMeter: Sendable {
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
        // A client the log names by something other than its address is the default person's.
        let counted = queries.filter { clients.isEmpty || clients.contains($0.client) }.compactMap { query in
            WireName.wire(fromPresentation: query.name).map {
                (IPAddressBytes.parse(query.client), $0, Optional(query.at))
            }
        }
        _ = meter(counted)
    }

    /// Takes the client questions dnstap told of; returns how many it metered.
    func observe(_ sightings: [DnstapSighting]) -> Int {
        meter(sightings.map { ($0.client, $0.wireName, $0.at) })
    }

    /// Meters each question (the client's address bytes, nil when not known: the default person's;
    /// the name in wire format; when it was asked, now when not known) and publishes the block sets
    /// when any was metered.
    private func meter(_ questions: [(client: [UInt8]?, wireName: [UInt8], at: Date?)]) -> Int {
        guard !questions.isEmpty else { return 0 }
        let directory = household.deviceDirectory()
        let now = clock.now()
        var metered = 0
        for question in questions {
            let number = question.client.map { directory.person(ofAddress: IPAddressBytes.number($0)) } ?? 0
            let person = household.policy(number: number)
            let guardSet = person.naming.guardSet
            guard let index = question.wireName.withUnsafeBufferPointer({ guardSet.app(forWireName: $0) }) else {
                continue
            }
            let app = guardSet.appIDs[index]
            let at = question.at.map { min(clock.instant(atWall: $0), now) } ?? now
            _ = person.withEngine { $0.observe(app, queriedAt: at, now: now) }
            metered += 1
        }
        if metered > 0 { propagation.publish() }
        return metered
    }
}
