import Foundation

/// A webhook's section: its URL and token (sent as a bearer), and how live events are sent, where
/// (nil: `url`) and with which token (with `eventsURL`; else `token`).
public struct WebhookSettings: Sendable, Equatable {
    public var url: String
    public var token: SecretSource?
    public var events = WebhookEvents.json
    public var eventsURL: String?
    public var eventsToken: SecretSource?
}

/// A generic JSON POST, for home automation: each change with the full active set.
///
/// Body: `{"event": "sync"|"change", "at": ISO 8601, "changed": [{"app", "blocked", "person"?}],
/// "blocked": [{"app", "rules"}], "people": [{"person", "clients", "blocked"}]}` (`blocked` null in
/// `changed` means no longer guarded; `person` is absent for the default person, whose apps are
/// `blocked`; rules as lockr's lists write them). A `token` is sent as `Authorization: Bearer`. Any 2xx is success;
/// changes are delivered in order, each until it succeeds. There is nothing to read back, so
/// reconciling sends nothing. Live events go to the webhook too, through `WebhookNotifier`.
public struct WebhookBackend: Backend {
    public let name: String
    private let settings: WebhookSettings
    private let http: BackendHTTP

    public init(name: String, settings: WebhookSettings, timeout: Duration) {
        self.name = name
        self.settings = settings
        http = BackendHTTP(baseURL: settings.url, timeout: timeout)
    }

    public var deliversEveryChange: Bool { true }

    public func apply(_ change: BlockChange) async throws(BackendError) -> SyncReport {
        var headers: [(String, String)] = []
        if let secret = settings.token { headers.append(("Authorization", "Bearer \(try secret.read())")) }
        let body = WebhookBody(
            event: change.event, at: change.at.formatted(.iso8601), changed: change.changed,
            blocked: change.snapshot.blocked.map(WebhookBody.App.init),
            people: change.snapshot.people.map { person in
                WebhookBody.Person(
                    person: person.person, clients: person.clients, blocked: person.blocked.map(WebhookBody.App.init))
            })
        let reply = try await http.send(.POST, "", headers: headers, json: BackendHTTP.json(body))
        switch reply.status {
        case 200..<300: return SyncReport(writes: 1)
        case 401, 403: throw .unauthorized("the webhook refused the token")
        case 429: throw .rateLimited("the webhook answered 429")
        default: throw .failed("webhook: HTTP \(reply.status)")
        }
    }

    public func reconcile(_ snapshot: BlockSnapshot) async throws(BackendError) -> SyncReport { SyncReport() }
}

/// What the webhook receives.
public struct WebhookBody: Codable, Sendable, Equatable {
    public struct App: Codable, Sendable, Equatable {
        public let app: String
        public let rules: [String]

        init(_ block: AppBlock) {
            app = block.app
            rules = block.rules.map(\.listText)
        }
    }

    /// A person's devices and the apps blocked for them.
    public struct Person: Codable, Sendable, Equatable {
        public let person: String
        public let clients: [String]
        public let blocked: [App]
    }

    public let event: String
    public let at: String
    public let changed: [AppChange]
    /// The default person's blocked apps.
    public let blocked: [App]
    public let people: [Person]
}
