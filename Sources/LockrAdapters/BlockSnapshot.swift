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

/// The desired state of every backend at one moment: each guarded app, blocked or open.
///
/// Only blocked apps are enforced. An open app's entries are disabled where the backend can keep
/// them disabled (Pi-hole v6, NextDNS) and absent elsewhere; an app missing from the snapshot is not
/// guarded any more, and its entries are removed.
public struct BlockSnapshot: Codable, Sendable, Equatable {
    public let apps: [AppBlock]

    public init(apps: [AppBlock]) { self.apps = apps }

    /// The apps to enforce now.
    public var blocked: [AppBlock] { apps.filter(\.blocked) }
}

/// How one app's state changed between two snapshots.
public struct AppChange: Codable, Sendable, Equatable {
    public let app: String
    /// true: now blocked; false: now open; nil (JSON null): no longer guarded.
    public let blocked: Bool?

    public init(app: String, blocked: Bool?) {
        self.app = app
        self.blocked = blocked
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encode(blocked, forKey: .blocked)
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
            return BlockChange(
                at: at, event: "sync", changed: new.apps.map { AppChange(app: $0.app, blocked: $0.blocked) },
                snapshot: new)
        }
        guard old != new else { return nil }
        let before = Dictionary(old.apps.map { ($0.app, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Set(new.apps.map(\.app))
        var changed = new.apps.filter { before[$0.app] != $0 }.map { AppChange(app: $0.app, blocked: $0.blocked) }
        changed += old.apps.filter { !after.contains($0.app) }.map { AppChange(app: $0.app, blocked: nil) }
        return BlockChange(at: at, event: "change", changed: changed, snapshot: new)
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

    private static func escaped(_ name: String) -> String { name.replacingOccurrences(of: ".", with: "\\.") }
}
