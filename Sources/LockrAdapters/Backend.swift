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
    case pihole6, pihole5, adguardhome, nextdns, webhook
}

/// One configured backend.
public struct BackendSettings: Sendable, Equatable {
    /// Unique name (the kind unless several of one kind are configured).
    public var name: String
    public var kind: BackendKind
    /// Base URL: `http://pi.hole` (Pi-hole), `http://192.168.1.2:3000` (AdGuard Home),
    /// `https://api.nextdns.io` (NextDNS), the full URL for a webhook.
    public var url: String
    /// Password (Pi-hole v6, AdGuard Home), token (Pi-hole v5, webhook) or API key (NextDNS).
    public var secret: SecretSource?
    /// AdGuard Home's user name.
    public var username: String?
    /// NextDNS profile id.
    public var profile: String?
    /// Clients the rules apply to (addresses); empty means every client.
    public var clients: [String] = []
    /// Pi-hole v6 group holding lockr's entries.
    public var group = "lockr"
    public var timeout: Duration = .seconds(10)
    /// Webhook: how live events are sent, where (nil: `url`) and with which token (with
    /// `eventsURL`; else `secret`).
    public var events = WebhookEvents.json
    public var eventsURL: String?
    public var eventsSecret: SecretSource?

    public init(name: String, kind: BackendKind, url: String) {
        self.name = name
        self.kind = kind
        self.url = url
    }
}
