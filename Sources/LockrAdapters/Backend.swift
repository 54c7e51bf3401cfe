import Foundation

/// A query another blocker logged.
public struct LoggedQuery: Sendable, Equatable {
    /// The name asked for, lower case, without the final dot.
    public let name: String
    public let at: Date
    /// The client's address as the backend shows it.
    public let client: String

    public init(name: String, at: Date, client: String) {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        self.name = name
        self.at = at
        self.client = client
    }
}

/// An external blocker lockr drives: it brings the blocker to a snapshot, touching only entries it
/// owns, and may read the blocker's query log.
public protocol Backend: Sendable {
    /// The backend's name in the configuration and in `lockr status`.
    var name: String { get }

    /// Delivers one queued change. State-keeping backends bring themselves to `change.snapshot`
    /// (reading what is there first); the webhook posts the change.
    func apply(_ change: BlockChange) async throws(BackendError) -> SyncReport

    /// Whether each queued change must be delivered (a webhook's listener sees every event). When
    /// false, a backend that was away gets only the newest of its pending changes: it carries the
    /// whole set, and replaying older ones would briefly enforce decisions that no longer hold.
    var deliversEveryChange: Bool { get }

    /// Compares the backend with `snapshot` and repairs what drifted (a rule deleted by hand).
    func reconcile(_ snapshot: BlockSnapshot) async throws(BackendError) -> SyncReport

    /// Queries logged after `time`, oldest first (none for a backend without a query log).
    func queries(after time: Date) async throws(BackendError) -> [LoggedQuery]

    /// Ends the session, if the backend holds one; throws when the backend did not take the logout.
    func close() async throws(BackendError)
}

extension Backend {
    public func queries(after time: Date) async throws(BackendError) -> [LoggedQuery] { [] }

    public func close() async throws(BackendError) {}

    /// State-keeping backends apply a change by reconciling to its snapshot.
    public func apply(_ change: BlockChange) async throws(BackendError) -> SyncReport {
        try await reconcile(change.snapshot)
    }

    public var deliversEveryChange: Bool { false }
}

/// Which kind of blocker a backend is.
public enum BackendKind: String, Sendable, CaseIterable {
    case pihole6, pihole5, adguardhome, nextdns, webhook, rpz
}

/// One configured backend: its name, how long a request may take, and its kind's own settings.
public struct BackendSettings: Sendable, Equatable {
    /// Unique name (the kind unless several of one kind are configured).
    public var name: String
    public var timeout: Duration = .seconds(10)
    public var endpoint: Endpoint

    /// Each kind's own settings.
    public enum Endpoint: Sendable, Equatable {
        case pihole6(PiHole6Settings)
        case pihole5(PiHole5Settings)
        case adguardhome(AdGuardHomeSettings)
        case nextdns(NextDNSSettings)
        case webhook(WebhookSettings)
        case rpz(RPZSettings)
    }

    public var kind: BackendKind {
        switch endpoint {
        case .pihole6: .pihole6
        case .pihole5: .pihole5
        case .adguardhome: .adguardhome
        case .nextdns: .nextdns
        case .webhook: .webhook
        case .rpz: .rpz
        }
    }

    /// The clients its rules apply to, where its kind names them (none: every client).
    public var clients: [String] {
        switch endpoint {
        case .pihole6(let settings): settings.clients
        case .adguardhome(let settings): settings.clients
        case .pihole5, .nextdns, .webhook, .rpz: []
        }
    }

    /// Every secret its section names (read when the daemon starts).
    public var secrets: [SecretSource] {
        switch endpoint {
        case .pihole6(let settings): [settings.password].compactMap { $0 }
        case .pihole5(let settings): [settings.token]
        case .adguardhome(let settings): [settings.password].compactMap { $0 }
        case .nextdns(let settings): [settings.apiKey]
        case .webhook(let settings): [settings.token, settings.eventsToken].compactMap { $0 }
        case .rpz(let settings): [settings.tsigSecret].compactMap { $0 }
        }
    }

    /// Where it is reached.
    public var url: String {
        switch endpoint {
        case .pihole6(let settings): settings.url
        case .pihole5(let settings): settings.url
        case .adguardhome(let settings): settings.url
        case .nextdns(let settings): settings.url
        case .webhook(let settings): settings.url
        case .rpz(let settings): settings.listen.map { "dns://\($0)" }.joined(separator: " ")
        }
    }
}
