import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// One request as a fake backend saw it.
public struct FakeRequest: Sendable {
    public let method: String
    /// The path as sent (percent-encoded).
    public let path: String
    /// Path segments, decoded.
    public let segments: [String]
    /// Query parameters, decoded.
    public let query: [String: String]
    /// Header values by lower-case name.
    public let headers: [String: String]
    public let body: Data

    public func json() -> Any? { try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) }
}

/// A fake backend's answer.
public struct FakeResponse: Sendable {
    public var status: Int
    public var body: Data
    public var contentType: String?

    public init(status: Int, body: Data = Data(), contentType: String? = nil) {
        self.status = status
        self.body = body
        self.contentType = contentType
    }

    public static func json(_ status: Int, _ value: Any) -> FakeResponse {
        FakeResponse(
            status: status,
            body: (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data(),
            contentType: "application/json")
    }

    public static func text(_ status: Int, _ text: String) -> FakeResponse {
        FakeResponse(status: status, body: Data(text.utf8), contentType: "text/plain")
    }
}

/// A failure to inject into the next requests.
public enum Fault: Sendable, Equatable {
    /// Answer with this status (500, 503, 429, ...) without doing anything.
    case status(Int)
    /// Wait this long before answering (longer than the client's timeout: a timeout).
    case delay(Duration)
}

/// What a fake backend implements: one function from request to response, over shared state.
public protocol FakeBackend: Sendable {
    /// The spec its requests are checked against, if there is one.
    var spec: OpenAPISpec? { get }
    func handle(_ request: FakeRequest) -> FakeResponse
}

/// Runs a `FakeBackend` on a real loopback socket (port 0, or the same port again after a restart),
/// records every request, checks each against the backend's spec, and injects faults.
public final class FakeServer<Backend: FakeBackend>: Sendable {
    public let backend: Backend
    private let state = Mutex(State())
    private struct State {
        var requests: [FakeRequest] = []
        var violations: [String] = []
        var faults: [Fault] = []
        var port = 0
        var running: (group: ServiceGroup, task: Task<Void, Never>)?
    }

    public init(_ backend: Backend) { self.backend = backend }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(state.withLock { $0.port })" }
    public var requests: [FakeRequest] { state.withLock { $0.requests } }
    /// Every way a request or a reply broke the spec.
    public var violations: [String] { state.withLock { $0.violations } }

    /// Makes the next requests fail, one fault each.
    public func inject(_ faults: Fault...) { state.withLock { $0.faults += faults } }

    public func clearRequests() { state.withLock { $0.requests.removeAll() } }

    /// Starts listening (on the previous port after `stop`).
    public func start() async throws {
        let (ports, sink) = AsyncStream.makeStream(of: Int.self)
        let router = Router()
        router.add(middleware: Dispatch(server: self))
        let port = state.withLock { $0.port }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                sink.yield(channel.localAddress?.port ?? 0)
                sink.finish()
            },
            logger: Logger(label: "fake-backend", factory: { _ in SwiftLogNoOpLogHandler() }))
        let quiet = Logger(label: "fake-backend", factory: { _ in SwiftLogNoOpLogHandler() })
        let group = ServiceGroup(services: [app], logger: quiet)
        let task = Task {
            do { try await group.run() } catch {}
            sink.finish()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else { throw SpecError("fake backend could not listen on \(port)") }
        state.withLock {
            $0.port = bound
            $0.running = (group, task)
        }
    }

    /// Stops listening and closes open connections (a graceful shutdown, as a restarting backend
    /// does): connections are refused until `start`.
    public func stop() async {
        let running = state.withLock { state -> (group: ServiceGroup, task: Task<Void, Never>)? in
            defer { state.running = nil }
            return state.running
        }
        guard let running else { return }
        await running.group.triggerGracefulShutdown()
        await running.task.value
    }

    fileprivate func serve(_ request: FakeRequest) async -> FakeResponse {
        let fault = state.withLock { state -> Fault? in
            state.requests.append(request)
            if let spec = backend.spec {
                state.violations += spec.check(
                    method: request.method, path: request.path, query: request.query,
                    contentType: request.headers["content-type"], body: request.body)
            }
            return state.faults.isEmpty ? nil : state.faults.removeFirst()
        }
        switch fault {
        case .status(let status)?: return .json(status, ["error": ["key": "injected", "message": "injected fault"]])
        case .delay(let delay)?: try? await Task.sleep(for: delay)
        case nil: break
        }
        let response = backend.handle(request)
        if let spec = backend.spec, response.contentType == "application/json" {
            let problems = spec.checkReply(
                method: request.method, path: request.path, status: response.status, body: response.body)
            if !problems.isEmpty { state.withLock { $0.violations += problems.map { "fake: " + $0 } } }
        }
        return response
    }
}

private struct Dispatch<Backend: FakeBackend>: RouterMiddleware {
    typealias Context = BasicRequestContext
    let server: FakeServer<Backend>

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var request = request
        let buffer = try await request.collectBody(upTo: 16 << 20)
        let path = request.uri.path
        var query: [String: String] = [:]
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            query[name] = value
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
        let fake = FakeRequest(
            method: request.method.rawValue, path: path,
            segments: path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) },
            query: query, headers: headers, body: Data(buffer.readableBytesView))
        let reply = await server.serve(fake)
        var fields = HTTPFields()
        if let type = reply.contentType { fields[.contentType] = type }
        return Response(
            status: .init(code: reply.status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: reply.body)))
    }
}
