import Foundation
import LockrAPI
import LockrControl
import LockrLists
import LockrPolicy
import Synchronization

/// The lists given by URL: which lockr follows (the configuration's and those people's own entries
/// name), what each is used for, and, for the control API and `lockr doctor`, how their fetches go
/// (from `ListSubscriptions`, set once lockr answers DNS and keeps them up to date).
final class ListDesk: Sendable {
    /// What one list is given as: block or allow, everyone's or some people's.
    struct Use: Sendable, Equatable {
        var roles: Components.Schemas.ListBody.RolesPayload = []
        var shared = false
        var people: [String] = []
    }

    private struct Followed {
        var subscriptions: ListSubscriptions?
        var config: LockrConfiguration?
        /// The lists people's own entries name, by the people who have them.
        var runTime: [(list: FilterEntry, person: String)] = []
        var uses: [String: Use] = [:]
        var refresh = ListSettings.defaults.refresh
    }

    private let state = Mutex(Followed())

    /// Serves `subscriptions`' lists as `config` and people's own entries (`runTime`) give them.
    func use(
        _ subscriptions: ListSubscriptions, config: LockrConfiguration,
        runTime: [(list: FilterEntry, person: String)]
    ) {
        state.withLock { followed in
            (followed.subscriptions, followed.config, followed.runTime) = (subscriptions, config, runTime)
            followed.refresh = config.lists.refresh
            followed.uses = Self.uses(config, runTime: runTime)
        }
    }

    /// Every list to follow: the configuration's, then those of people's own entries.
    static func sources(_ config: LockrConfiguration, runTime: [(list: FilterEntry, person: String)]) -> [ListSource] {
        PolicyLoader.subscriptions(config) + runTime.compactMap { try? ListSource(entry: $0.list.value) }
    }

    /// Takes a reloaded configuration's lists; those not fetched yet are fetched now.
    func reconfigure(_ config: LockrConfiguration) async {
        await follow { $0.config = config }
    }

    /// Takes the lists people's own entries name now; those not fetched yet are fetched now.
    func follow(runTime: [(list: FilterEntry, person: String)]) async {
        await follow { $0.runTime = runTime }
    }

    private func follow(_ change: (inout Followed) -> Void) async {
        let wanted = state.withLock { followed -> (ListSubscriptions, [ListSource], ListSettings)? in
            change(&followed)
            guard let config = followed.config, let subscriptions = followed.subscriptions else { return nil }
            followed.refresh = config.lists.refresh
            followed.uses = Self.uses(config, runTime: followed.runTime)
            return (subscriptions, Self.sources(config, runTime: followed.runTime), config.lists)
        }
        guard let (subscriptions, sources, settings) = wanted else { return }
        await subscriptions.reconfigure(sources: sources, settings: settings)
    }

    func lists() async -> Components.Schemas.ListsResponse {
        let (subscriptions, uses, refresh) = state.withLock { ($0.subscriptions, $0.uses, $0.refresh) }
        return response(await subscriptions?.statuses() ?? [], uses: uses, refresh: refresh)
    }

    func update(named name: String?) async throws(ControlFailure) -> Components.Schemas.ListsResponse {
        let (subscriptions, uses, refresh) = state.withLock { ($0.subscriptions, $0.uses, $0.refresh) }
        guard let subscriptions else {
            throw .refused(.nothingToDo("lockr answers no DNS here (no \"dns\" in backends): it fetches no list"))
        }
        do {
            return response(try await subscriptions.update(name), uses: uses, refresh: refresh)
        } catch {
            throw .refused(.notFound(error.description))
        }
    }

    /// `lockr doctor`'s check of each list: fetched, and not more than a week ago.
    func checks(at now: Date = Date()) async -> [Components.Schemas.DoctorCheckBody] {
        let subscriptions = state.withLock { $0.subscriptions }
        return (await subscriptions?.statuses() ?? []).map { status in
            let name = "list \(status.name)"
            let error = status.record.lastError.map { " (\($0))" } ?? ""
            guard let checked = status.record.checked else {
                return Components.Schemas.DoctorCheckBody(
                    name: name, ok: false, detail: "never fetched" + error,
                    fix: "check that this machine reaches it (`lockr lists update` tries again now)")
            }
            let days = Int(now.timeIntervalSince(checked) / 86_400)
            guard days < 7 else {
                return Components.Schemas.DoctorCheckBody(
                    name: name, ok: false, detail: "not fetched for \(days) days\(error); the copy kept is in force",
                    fix: "check that this machine reaches it (`lockr lists update` tries again now)")
            }
            return Components.Schemas.DoctorCheckBody(
                name: name, ok: true, detail: "\(status.record.rules) rules", fix: nil)
        }
    }

    private func response(
        _ statuses: [ListStatus], uses: [String: Use], refresh: Duration
    ) -> Components.Schemas.ListsResponse {
        Components.Schemas.ListsResponse(
            refreshSeconds: Int(refresh.components.seconds),
            lists: statuses.map { status in
                let use = uses[status.name] ?? Use()
                return Components.Schemas.ListBody(status, roles: use.roles, shared: use.shared, people: use.people)
            })
    }

    private static func uses(
        _ config: LockrConfiguration, runTime: [(list: FilterEntry, person: String)]
    ) -> [String: Use] {
        var uses: [String: Use] = [:]
        func note(_ entries: [String], role: Components.Schemas.ListBody.RolesPayloadPayload, person: String?) {
            for entry in entries {
                guard let list = try? ListSource(entry: entry), case .url = list else { continue }
                var use = uses[list.displayName] ?? Use()
                if !use.roles.contains(role) { use.roles.append(role) }
                if let person {
                    if !use.people.contains(person) { use.people.append(person) }
                } else {
                    use.shared = true
                }
                uses[list.displayName] = use
            }
        }
        note(config.blocklists, role: .block, person: nil)
        note(config.allowlists, role: .allow, person: nil)
        for person in config.people {
            note(person.blocklists, role: .block, person: person.name)
            note(person.allowlists, role: .allow, person: person.name)
        }
        for (list, person) in runTime {
            note([list.value], role: list.kind.frees ? .allow : .block, person: person)
        }
        return uses
    }
}
