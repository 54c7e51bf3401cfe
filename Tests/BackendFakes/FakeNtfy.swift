import Foundation
import Synchronization

/// A push service as ntfy takes a message: POST to the topic's URL, the message as the body, and
/// `Title`, `Priority` and `Tags` headers. Records each message it takes.
public final class FakeNtfy: FakeBackend {
    public struct Message: Sendable, Equatable {
        public let topic: String
        public let title: String?
        public let priority: String?
        public let tags: String?
        public let message: String

        public init(topic: String, title: String?, priority: String?, tags: String?, message: String) {
            self.topic = topic
            self.title = title
            self.priority = priority
            self.tags = tags
            self.message = message
        }
    }

    public let spec: OpenAPISpec? = nil
    private let token: String?
    private let received = Mutex<[Message]>([])

    public init(token: String? = nil) { self.token = token }

    public var messages: [Message] { received.withLock { $0 } }

    public func handle(_ request: FakeRequest) -> FakeResponse {
        if let token, request.headers["authorization"] != "Bearer \(token)" { return .text(401, "unauthorized") }
        guard request.method == "POST", request.segments.count == 1,
            request.headers["content-type"]?.hasPrefix("text/plain") == true,
            let message = String(data: request.body, encoding: .utf8), !message.isEmpty
        else { return .text(400, "expected a text message POSTed to a topic") }
        received.withLock {
            $0.append(
                Message(
                    topic: request.segments[0], title: request.headers["title"], priority: request.headers["priority"],
                    tags: request.headers["tags"], message: message))
        }
        return .json(200, ["id": "m\(messages.count)", "event": "message"])
    }
}
