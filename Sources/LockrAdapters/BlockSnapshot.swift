import DNSFilter
import Foundation

/// What one guarded app should look like on a backend: its rules, blocked or not.
public struct AppBlock: Codable, Sendable, Equatable {
    public let app: String
    public let blocked: Bool
    public let rules: [DomainRule]

    public init(app: String, blocked: Bool, rules: [DomainRule]) {
        self.app = app
        self.blocked = blocked
        self.rules = rules
    }
}

/// One person's apps, for their devices: what backends that tell clients apart enforce for them.
public struct PersonBlocks: Codable, Sendable, Equatable {
    public let person: String
    /// Their devices as backends name clients: addresses, networks (CIDR) and MAC addresses.
    public let clients: [String]
    public let apps: [AppBlock]

    public init(person: String, clients: [String], apps: [AppBlock]) {
        self.person = person
        self.clients = clients
        self.apps = apps
    }

    /// The apps to enforce for them now.
    public var blocked: [AppBlock] { apps.filter(\.blocked) }
}

/// The desired state of every backend at one moment: each guarded app, blocked or open, for the
/// default person (every device no person claims, or the backend's `clients`) and for each person
/// with devices.
///
/// Only blocked apps are enforced. An open app's entries are disabled where the backend can keep
/// them disabled (Pi-hole v6, NextDNS) and absent elsewhere; an app missing from the snapshot is not
/// guarded any more, and its entries are removed. Backends that cannot tell clients apart (Pi-hole
/// v5, NextDNS) enforce only the default person's apps.
public struct BlockSnapshot: Codable, Sendable, Equatable {
    /// The default person's apps.
    public let apps: [AppBlock]
    /// The other people's, in configuration order (those without devices are left out).
    public let people: [PersonBlocks]

    public init(apps: [AppBlock], people: [PersonBlocks] = []) {
        self.apps = apps
        self.people = people
    }

    /// An outbox entry written before people existed has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        apps = try container.decode([AppBlock].self, forKey: .apps)
        people = try container.decodeIfPresent([PersonBlocks].self, forKey: .people) ?? []
    }

    /// The default person's apps to enforce now.
    public var blocked: [AppBlock] { apps.filter(\.blocked) }

    /// Every device claimed by a person: the clients the default person's entries must leave alone.
    public var peoplesClients: [String] { people.flatMap(\.clients) }
}

/// How one app's state changed between two snapshots, for the default person or a named one.
public struct AppChange: Codable, Sendable, Equatable {
    public let app: String
    /// true: now blocked; false: now open; nil (JSON null): no longer guarded.
    public let blocked: Bool?
    /// Whose app it is; absent for the default person.
    public var person: String? = nil

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encode(blocked, forKey: .blocked)
        try container.encodeIfPresent(person, forKey: .person)
    }
}

/// One entry of the outbox: the snapshot a backend must reach, and what changed to make it.
public struct BlockChange: Codable, Sendable, Equatable {
    /// When the policy changed (wall clock).
    public let at: Date
    /// `sync` when lockr started (the whole set), `change` otherwise.
    public let event: String
    public let changed: [AppChange]
    public let snapshot: BlockSnapshot

    /// The change from `old` (nil at start) to `new`, or nil when nothing changed.
    public static func between(_ old: BlockSnapshot?, _ new: BlockSnapshot, at: Date) -> BlockChange? {
        guard let old else {
            let changed =
                new.apps.map { AppChange(app: $0.app, blocked: $0.blocked) }
                + new.people.flatMap { person in
                    person.apps.map { AppChange(app: $0.app, blocked: $0.blocked, person: person.person) }
                }
            return BlockChange(at: at, event: "sync", changed: changed, snapshot: new)
        }
        guard old != new else { return nil }
        var changed = changes(from: old.apps, to: new.apps, person: nil)
        let before = Dictionary(old.people.map { ($0.person, $0.apps) }, uniquingKeysWith: { first, _ in first })
        for person in new.people {
            changed += changes(from: before[person.person] ?? [], to: person.apps, person: person.person)
        }
        let after = Set(new.people.map(\.person))
        for person in old.people where !after.contains(person.person) {
            changed += changes(from: person.apps, to: [], person: person.person)
        }
        return BlockChange(at: at, event: "change", changed: changed, snapshot: new)
    }

    private static func changes(from old: [AppBlock], to new: [AppBlock], person: String?) -> [AppChange] {
        let before = Dictionary(old.map { ($0.app, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Set(new.map(\.app))
        return new.filter { before[$0.app] != $0 }.map { AppChange(app: $0.app, blocked: $0.blocked, person: person) }
            + old.filter { !after.contains($0.app) }.map { AppChange(app: $0.app, blocked: nil, person: person) }
    }
}

extension DomainRule {
    /// The rule as lockr's own lists write it: `example.com`, `*.example.com`, `/regex/`.
    public var listText: String {
        switch self {
        case .domain(let name): name
        case .subdomains(let name): "*.\(name)"
        case .regex(let pattern): "/\(pattern)/"
        }
    }

    /// A POSIX extended regex for the rule (Pi-hole's regex deny list).
    var posixRegex: String {
        switch self {
        case .domain(let name): "(\\.|^)\(Self.escaped(name))$"
        case .subdomains(let name): "\\.\(Self.escaped(name))$"
        case .regex(let pattern): pattern
        }
    }

    private static func escaped(_ name: String) -> String { name.replacing(".", with: "\\.") }
}
