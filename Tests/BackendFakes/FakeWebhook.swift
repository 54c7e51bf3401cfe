import Foundation
import Synchronization

/// A home-automation endpoint that records every JSON body it is sent.
public final class FakeWebhook: FakeBackend {
    public let spec: OpenAPISpec? = nil
    private let token: String?
    private let received = Mutex<[Data]>([])

    public init(token: String? = nil) { self.token = token }

    public var bodies: [[String: Any]] {
        received.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }

    public func handle(_ request: FakeRequest) -> FakeResponse {
        if let token, request.headers["authorization"] != "Bearer \(token)" { return .text(401, "no") }
        guard request.method == "POST", request.json() is [String: Any] else { return .text(400, "bad") }
        received.withLock { $0.append(request.body) }
        return FakeResponse(status: 204)
    }
}
