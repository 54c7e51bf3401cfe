import Foundation
import Hummingbird
import LockrAPI
import LockrPolicy
import LockrSpeech
import NIOCore
import OpenAPIHummingbird

/// The control API: the operations of docs/openapi.yaml (`ControlAPI`, through the generated
/// server), all behind the bearer token. Each
/// is about one person: `?person=NAME`, else the caller's (`PolicyAccess.person(named:caller:)`);
/// `status`, `stats` and `log` without it are about everyone, and the PIN is the household's. A
/// change that loosens protection needs the `X-Lockr-PIN` header when a PIN is set (as does
/// changing or clearing the PIN).
///
/// Failures answer `ErrorBody` JSON: 401 bad token, 400 bad JSON or settings, 404 unknown app or
/// endpoint, 405 a method the endpoint does not take, 403 wrong phrase or a gate not passed, 409 not
/// possible now, 410 a puzzle answered or expired, 413 a body too large, 415 a clip that is not WAV,
/// 429 allowance used up or cooldown (a cooldown with Retry-After). Every number is range-checked
/// before any arithmetic, so no input can stop the daemon.
public enum ControlRouter {
    /// Largest request body accepted (a clip for `gate/voice`: `largestClip`).
    static let maximumBody = 64 * 1024

    /// The routes; `speech` hears spoken sentences (nil: `gate/voice` answers 503).
    public static func build(
        policy: some PolicyAccess, token: String, speech: SpeechPool? = nil
    ) -> Router<ControlRequestContext> {
        func addRoutes(to router: Router<ControlRequestContext>) {
            do {
                try ControlAPI(policy: policy, speech: speech).registerHandlers(
                    on: router, serverURL: URL(string: "/")!, configuration: ControlJSON.configuration)
            } catch {
                preconditionFailure("the generated routes are registered once, on a new router: \(error)")
            }
        }
        // A middleware takes the routes added after it; the first router only lists them.
        let listing = Router(context: ControlRequestContext.self)
        addRoutes(to: listing)
        let router = Router(context: ControlRequestContext.self)
        router.add(middleware: JSONErrorMiddleware(routes: listing.routes.map { ($0.method, $0.path.description) }))
        router.add(middleware: BearerTokenMiddleware(token: token))
        router.add(middleware: ControlRequestMiddleware())
        addRoutes(to: router)
        return router
    }

    /// The header that carries the settings PIN (`X-Lockr-PIN`).
    static func pin(_ request: Request, _ context: ControlRequestContext) -> PinEntry {
        PinEntry(
            presented: request.headers.first { $0.name.canonicalName == "x-lockr-pin" }?.value,
            from: context.remoteAddress)
    }

    /// `value` as the API's JSON, with `status`.
    public static func json(_ value: some Encodable, status: Int = 200) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if let error = value as? Components.Schemas.ErrorBody, let retry = error.retryAfterSeconds {
            headers[.retryAfter] = String(retry)
        }
        let data = (try? ControlJSON.encoder().encode(value)) ?? Data("{}".utf8)
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// A request's context: what Hummingbird needs, the caller's address (whose person a call
/// without `?person=` is about), and when its connection closes (which ends an event stream).
public struct ControlRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public let connectionClosed: EventLoopFuture<Void>

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connectionClosed = source.channel.closeFuture
    }
}

/// Answers requests no route takes (unknown path or method) with a JSON error like every other.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Every route served (its path with `{parameter}` or `:parameter` segments).
    let routes: [(method: HTTPRequest.Method, path: String)]

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            guard error.status == .notFound else {
                return ControlRouter.json(
                    Components.Schemas.ErrorBody(error: error.body ?? error.status.reasonPhrase, code: .badRequest),
                    status: error.status.code)
            }
            let allowed = methods(forPath: request.uri.path)
            guard allowed.isEmpty else {
                var response = ControlRouter.json(
                    Components.Schemas.ErrorBody(
                        error: "\(request.uri.path) takes \(allowed.map(\.rawValue).joined(separator: ", ")), "
                            + "not \(request.method)", code: .methodNotAllowed),
                    status: 405)
                response.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
                return response
            }
            return ControlRouter.json(
                Components.Schemas.ErrorBody(
                    error: "no endpoint \(request.method) \(request.uri.path) (see docs/openapi.yaml)",
                    code: .notFound),
                status: 404)
        }
    }

    /// The methods the routes matching `path` take.
    func methods(forPath path: String) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        return routes.filter { route in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: false)
            return pattern.count == segments.count
                && zip(pattern, segments).allSatisfy { pattern, segment in
                    pattern.hasPrefix(":") || pattern.hasPrefix("{") ? !segment.isEmpty : pattern == segment
                }
        }.map(\.method)
    }
}

/// Refuses every request without `Authorization: Bearer <token>` (compared in constant time).
struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: [UInt8]

    init(token: String) { self.token = Array(token.utf8) }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let presented = request.headers[.authorization].map { Array($0.utf8) } ?? []
        let expected = Array("Bearer ".utf8) + token
        guard presented.count == expected.count,
            zip(presented, expected).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
        else {
            return ControlRouter.json(
                Components.Schemas.ErrorBody(error: "missing or wrong control token", code: .unauthorized), status: 401)
        }
        return try await next(request, context)
    }
}
