import Foundation
import Logging

/// How a webhook is told live events (`[webhook] events`).
public enum WebhookEvents: String, Sendable, Equatable, CaseIterable {
    /// Not at all.
    case off
    /// Every live event as JSON: `{"event": "live", "at": ISO 8601, "live": {...}}`, `live` as the
    /// control API's `GET events` gives it.
    case json
    /// Only those worth a notification, as plain text with `Title`, `Priority` and `Tags` headers:
    /// what ntfy (and push services like it) take.
    case text
}

/// A live event on its way to a webhook: the whole event as JSON, and the notification it makes
/// when it is one worth pushing.
public struct WebhookNotice: Sendable {
    public struct Push: Sendable, Equatable {
        public let title: String
        public let message: String
        /// ntfy's words: `low`, `default`, `urgent`.
        public let priority: String
        /// ntfy tags (emoji short codes): `hourglass`, `lock`, `warning`, ...
        public let tags: [String]

        public init(title: String, message: String, priority: String, tags: [String]) {
            self.title = title
            self.message = message
            self.priority = priority
            self.tags = tags
        }
    }

    public let json: Data
    public let push: Push?
    /// When it was published, for dropping what became stale while the webhook was down.
    let made = ContinuousClock.now

    public init(json: Data, push: Push?) {
        self.json = json
        self.push = push
    }
}

/// Delivers live events to a webhook one at a time, in order, as they happen. They are news, not
/// state: one the webhook has not taken after three tries, or that waited more than two minutes,
/// is dropped (and said so in the log once per outage), so a webhook that comes back is not
/// flooded with stale warnings.
public struct WebhookNotifier: Sendable {
    public let name: String
    private let secret: SecretSource?
    private let url: String
    private let format: WebhookEvents
    private let http: BackendHTTP
    static let attempts = 3
    static let stale: Duration = .seconds(120)

    /// Events go to `settings.eventsURL` with `eventsToken`, else to the webhook's own URL with
    /// its token, as `settings.events` says.
    public init(name: String, settings: WebhookSettings, timeout: Duration) {
        self.name = name
        url = settings.eventsURL ?? settings.url
        secret = settings.eventsURL == nil ? settings.token : settings.eventsToken
        format = settings.events
        http = BackendHTTP(baseURL: url, timeout: timeout)
    }

    /// Delivers `notices` until they end.
    public func run(_ notices: some AsyncSequence<WebhookNotice, Never>, logger: Logger) async {
        var failing = false
        for await notice in notices {
            guard ContinuousClock.now - notice.made < Self.stale else { continue }
            do throws(BackendError) {
                guard try await deliver(notice) else { continue }
                if failing { logger.notice("webhook takes live events again", metadata: ["backend": "\(name)"]) }
                failing = false
            } catch {
                if !failing {
                    logger.warning(
                        "webhook did not take a live event; dropping events it cannot take",
                        metadata: ["backend": "\(name)", "error": "\(error)"])
                }
                failing = true
            }
        }
    }

    /// Sends `notice` as configured, trying again twice (after 1 s, then 2 s); false when this
    /// format has nothing to send for it.
    func deliver(_ notice: WebhookNotice) async throws(BackendError) -> Bool {
        var headers: [(String, String)] = []
        if let secret { headers.append(("Authorization", "Bearer \(try secret.read())")) }
        let body: Data
        let contentType: String
        switch format {
        case .off: return false
        case .json:
            body = notice.json
            contentType = "application/json"
        case .text:
            guard let push = notice.push else { return false }
            body = Data(push.message.utf8)
            contentType = "text/plain; charset=utf-8"
            headers += [
                ("Title", Self.headerText(push.title)), ("Priority", push.priority),
                ("Tags", push.tags.joined(separator: ",")),
            ]
        }
        var attempt = 1
        while true {
            do throws(BackendError) {
                let reply = try await http.send(.POST, "", headers: headers, body: body, contentType: contentType)
                switch reply.status {
                case 200..<300: return true
                case 401, 403: throw .unauthorized("the webhook refused the token")
                default: throw .failed("webhook: HTTP \(reply.status)")
                }
            } catch {
                if case .unauthorized = error { throw error }
                guard attempt < Self.attempts else { throw error }
                try? await Task.sleep(for: .seconds(attempt))
                attempt += 1
            }
        }
    }

    /// `text` as an HTTP header value: one line of printable ASCII (others become "?"; ntfy reads
    /// UTF-8 titles only when encoded, which not every push service does).
    static func headerText(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F ? Character($0) : "?" })
    }
}
