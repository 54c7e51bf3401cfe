import Foundation
import Hummingbird
import LockrAPI
import LockrPolicy
import LockrSpeech
import NIOCore

/// The control API's routes, all under `/api/v1` (and Prometheus's `/metrics`) and all behind the
/// bearer token. Each is about
/// one person: `?person=NAME`, else the caller's (`PolicyAccess.person(named:caller:)`); `status`
/// and `log` without it are about everyone, and the PIN is the household's.
///
/// | method | path | body | answer |
/// |---|---|---|---|
/// | GET | status | | `HouseholdStatusBody` |
/// | GET | apps | | `AppsResponse` |
/// | PUT | mode | `ModeRequest` | `ModeResponse` |
/// | POST | guard | `AppRequest` | `GuardResponse` |
/// | DELETE | guard/{app} | `PhraseRequest` (optional) | `GuardResponse` |
/// | GET | pending | | `PendingResponse` |
/// | DELETE | pending/{id} | | `PendingResponse` |
/// | POST | pending/{id}/confirm | `PhraseRequest` | `PendingResponse` |
/// | POST | settings/reset | `PhraseRequest` (optional) | `ModeResponse` |
/// | PUT | pin | `PinRequest` | `PinResponse` |
/// | DELETE | pin | | `PinResponse` |
///
/// A change that loosens protection needs the `X-Lockr-PIN` header when a PIN is set (as does
/// changing or clearing the PIN).
/// | POST | unlock | `UnlockRequest` | `UnlockResponse` |
/// | POST | snooze | `AppRequest` | `WindowBody` |
/// | POST | extend | `AppRequest` | `ExtendResponse` |
/// | | gate... | | see `addGateRoutes` |
/// | POST | emergency/hold | | `HoldResponse` |
/// | POST | emergency | `EmergencyRequest` | `WindowBody` |
/// | GET | log?since=SECONDS&limit=N | | `LogResponse` |
/// | GET | queries?... | | `QueriesResponse` (see `QueryLogRequest`) |
/// | GET | stats?day=DATE or days=N | | `StatsResponse` |
/// | GET | explain?name=N&type=T&client=IP | | `ExplainBody` |
/// | GET | events | | server-sent `LiveEventBody` events (see `addEventsRoute`) |
/// | GET | doctor | | `DoctorResponse` |
/// | GET | config | | `ConfigurationDocument` |
/// | POST | config?check=true | `ConfigurationDocument` | `ConfigurationImportResponse` (see `addConfigRoutes`) |
/// | GET | devices | | `DevicesResponse` |
/// | GET | schedules | | `SchedulesResponse` |
/// | POST | schedules | `ScheduleRequest` | `SchedulesResponse` |
/// | DELETE | schedules/{name} | `PhraseRequest` (optional) | `SchedulesResponse` |
/// | GET | profiles | | `ProfilesResponse` |
/// | POST | profiles | `ProfileRequest` | `ProfileBody` |
/// | GET, DELETE | profiles/{name} | | `ProfileBody`, `ProfilesResponse` |
/// | POST | profiles/{name}/activate, deactivate, toggle | `ProfileSwitchRequest` (optional) | `ProfileBody` |
///
/// Failures answer `ErrorBody` JSON: 401 bad token, 400 bad JSON or settings, 404 unknown app or
/// endpoint, 405 a method the endpoint does not take, 403 wrong phrase or a gate not passed, 409 not
/// possible now, 410 a puzzle answered or expired, 429
/// allowance used up or cooldown (a cooldown with Retry-After). Every number is range-checked before
/// any arithmetic, so no input can stop the daemon.
public enum ControlRouter {
    /// Largest request body accepted.
    static let maximumBody = 64 * 1024
    /// How far back `log?since=` may reach: ten years, in seconds.
    static let longestLogSpan: Int64 = 10 * 366 * 86_400

    /// Every route, for telling a wrong method (405) from an unknown path (404).
    static let routes: [(method: HTTPRequest.Method, path: String)] = [
        (.get, "status"), (.get, "apps"), (.put, "mode"), (.post, "guard"), (.delete, "guard/:app"), (.get, "pending"),
        (.delete, "pending/:id"), (.post, "pending/:id/confirm"), (.post, "settings/reset"), (.put, "pin"),
        (.delete, "pin"), (.post, "unlock"),
        (.post, "snooze"), (.post, "extend"), (.post, "emergency/hold"), (.post, "emergency"), (.get, "log"),
        (.get, "devices"), (.get, "schedules"), (.post, "schedules"), (.delete, "schedules/:name"), (.get, "profiles"),
        (.post, "profiles"),
        (.get, "profiles/:name"), (.delete, "profiles/:name"), (.post, "profiles/:name/activate"),
        (.post, "profiles/:name/deactivate"), (.post, "profiles/:name/toggle"), (.get, "gate"),
        (.post, "gate/challenges"), (.post, "gate/challenges/:id"), (.post, "gate/fallback"), (.post, "gate/voice"),
        (.get, "queries"), (.get, "stats"), (.get, "explain"), (.get, "events"), (.get, "doctor"), (.get, "lists"),
        (.post, "lists/update"), (.get, "config"),
        (.post, "config"),
    ]

    /// The routes; `speech` hears spoken sentences (nil: `gate/voice` answers 503).
    public static func build(
        policy: some PolicyAccess, token: String, speech: SpeechPool? = nil
    ) -> Router<ControlRequestContext> {
        let router = Router(context: ControlRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: BearerTokenMiddleware(token: token))
        let api = router.group("api/v1")
        // Prometheus's path, outside the API's versions; behind the token like the rest.
        router.get("metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(string: await policy.metricsText())))
        }

        api.get("doctor") { _, _ in try await respond { await policy.doctor() } }
        api.get("lists") { _, _ in try await respond { await policy.lists() } }
        api.post("lists/update") { request, context in
            try await respond {
                let asked = try await decode(
                    Components.Schemas.ListUpdateRequest.self, from: request,
                    emptyIs: Components.Schemas.ListUpdateRequest(name: nil))
                return try await policy.updateLists(named: asked.name)
            }
        }
        api.get("status") { request, context in
            try await respond {
                let named = request.uri.queryParameters["person"].map(String.init)
                let people = try named.map { [try policy.person(named: $0, caller: nil)] } ?? policy.peopleNames()
                let devices = policy.devices()
                return Components.Schemas.HouseholdStatusBody(
                    people: people.map { person in
                        status(person, policy.view(of: person), devices: devices.filter { $0.person == person })
                    },
                    backends: policy.backends(), clockWarning: policy.clockDrift())
            }
        }
        api.get("apps") { request, context in
            try await respond {
                let person = try person(request, context, policy)
                let groups = policy.appGroups()
                let engine = policy.view(of: person).engine
                let apps = engine.apps.sorted { $0.key < $1.key }.map { id, name in
                    Components.Schemas.CatalogueAppBody(
                        id: id, name: name, group: groups[id] ?? "custom", guarded: engine.guarded.contains(id))
                }
                return Components.Schemas.AppsResponse(apps: apps)
            }
        }
        addActionRoutes(to: api, policy: policy)
        addRestrictionRoutes(to: api, policy: policy)
        addGateRoutes(to: api, policy: policy, speech: speech)
        addStatsRoutes(to: api, policy: policy)
        addExplainRoute(to: api, policy: policy)
        addEventsRoute(to: api, policy: policy)
        addConfigRoutes(to: api, policy: policy)
        api.get("devices") { request, context in
            try await respond {
                let named = request.uri.queryParameters["person"].map(String.init)
                let person = try named.map { try policy.person(named: $0, caller: nil) }
                return Components.Schemas.DevicesResponse(
                    devices: policy.devices().filter { person == nil || $0.person == person })
            }
        }
        api.get("log") { request, context in
            try await respond {
                let parameters = request.uri.queryParameters
                let since = try integer(parameters["since"], name: "since", upTo: longestLogSpan) ?? 86_400
                let limit = try integer(parameters["limit"], name: "limit", upTo: 10_000) ?? 1000
                let named = parameters["person"].map(String.init)
                let person = try named.map { try policy.person(named: $0, caller: nil) }
                let view = policy.view(of: person ?? People.defaultName)
                let events = try policy.events(since: view.now - .seconds(since), limit: Int(limit), person: person)
                return Components.Schemas.LogResponse(
                    events: events.map { Components.Schemas.EventBody($0, calendar: view.calendar) })
            }
        }
        api.get("queries") { request, context in
            try await respond {
                let parameters = request.uri.queryParameters
                let named = parameters["person"].map(String.init)
                let blocked = parameters["blocked"].map(String.init)
                guard blocked == nil || ["true", "false"].contains(blocked!) else {
                    throw Components.Schemas.ErrorBody(error: "'blocked' must be true or false", code: .badRequest)
                }
                return try policy.queries(
                    QueryLogRequest(
                        person: try named.map { try policy.person(named: $0, caller: nil) },
                        client: parameters["client"].map(String.init), blockedOnly: blocked == "true",
                        sinceSeconds: try integer(parameters["since"], name: "since", upTo: longestLogSpan),
                        afterID: try integer(parameters["after"], name: "after", upTo: .max),
                        limit: Int(try integer(parameters["limit"], name: "limit", upTo: 10_000) ?? 100)))
            }
        }
        return router
    }

    /// The header that carries the settings PIN (`X-Lockr-PIN`).
    static func pin(_ request: Request, _ context: ControlRequestContext) -> PinEntry {
        PinEntry(
            presented: request.headers.first { $0.name.canonicalName == "x-lockr-pin" }?.value,
            from: context.remoteAddress)
    }

    /// The person a request is about: `?person=NAME`, else the caller's (see `PolicyAccess`).
    static func person(
        _ request: Request, _ context: ControlRequestContext, _ policy: some PolicyAccess
    ) throws(ControlFailure) -> String {
        try policy.person(
            named: request.uri.queryParameters["person"].map(String.init), caller: context.remoteAddress)
    }

    static func status(
        _ person: String, _ view: PolicyView, devices: [Components.Schemas.DeviceBody]
    ) -> Components.Schemas.StatusBody {
        Components.Schemas.StatusBody(person: person, view: view, devices: devices)
    }

    /// A query parameter that must be a whole number from 0 to `limit`.
    static func integer(_ text: Substring?, name: String, upTo limit: Int64) throws -> Int64? {
        guard let text else { return nil }
        guard let value = Int64(text), (0...limit).contains(value) else {
            throw Components.Schemas.ErrorBody(
                error: "'\(name)' must be a whole number from 0 to \(limit)", code: .badRequest)
        }
        return value
    }

    /// The methods the route matching `path` (under /api/v1/) takes, if any route matches it.
    static func methods(forPath path: String) -> [HTTPRequest.Method] {
        let prefix = "/api/v1/"
        guard path.hasPrefix(prefix) else { return [] }
        let segments = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        return routes.filter { route in
            let pattern = route.path.split(separator: "/")
            return pattern.count == segments.count
                && zip(pattern, segments).allSatisfy { $0.hasPrefix(":") ? !$1.isEmpty : $0 == $1 }
        }.map(\.method)
    }

    /// Reads a JSON body; an empty body is `emptyIs` when given.
    static func decode<Body: Decodable>(
        _ type: Body.Type, from request: Request, emptyIs empty: Body? = nil
    ) async throws -> Body {
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: maximumBody) } catch {
            throw Components.Schemas.ErrorBody(
                error: "request body larger than \(maximumBody) bytes", code: .badRequest)
        }
        if buffer.readableBytes == 0, let empty { return empty }
        let data = Data(buffer.readableBytesView)
        do {
            return try ControlJSON.decoder().decode(Body.self, from: data)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // Foundation does not name the key of a number that fits no integer (30.5, 1e300).
            let problem = oddNumberKey(in: data).map { "'\($0)' must be a whole number" } ?? "not valid JSON"
            throw Components.Schemas.ErrorBody(error: "bad JSON: \(problem)", code: .badRequest)
        } catch let error as DecodingError {
            throw Components.Schemas.ErrorBody(error: "bad JSON: \(describe(error))", code: .badRequest)
        } catch {
            throw Components.Schemas.ErrorBody(error: "bad JSON", code: .badRequest)
        }
    }

    /// The key of the first number in the JSON `data` that is not a whole number an `Int64` holds
    /// (every number the API takes is one).
    static func oddNumberKey(in data: Data) -> String? {
        func search(_ value: Any, key: String) -> String? {
            switch value {
            case let object as [String: Any]:
                return object.sorted { $0.key < $1.key }.lazy.compactMap { search($0.value, key: $0.key) }.first
            case let array as [Any]: return array.lazy.compactMap { search($0, key: key) }.first
            case let number as NSNumber: return Int64(exactly: number.doubleValue) == nil ? key : nil
            default: return nil
            }
        }
        guard let value = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else { return nil }
        return search(value, key: "the body")
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? snakeCase($0.stringValue) }
            return keys.isEmpty ? "the body" : "'\(keys.joined(separator: "."))'"
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context)) must be \(typeName(type))"
        case .valueNotFound(let type, let context): return "\(path(context)) must be \(typeName(type))"
        case .keyNotFound(let key, _): return "'\(snakeCase(key.stringValue))' is required"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context)) is not valid"
        @unknown default: return "not understood"
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is UInt64.Type, is Int64.Type: "a whole number"
        default: "an object"
        }
    }

    static func snakeCase(_ key: String) -> String {
        key.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
        }
    }

    /// `body`'s answer as JSON, or what it threw as an `ErrorBody` with its status.
    public static func respond(_ body: () async throws -> some Encodable) async throws -> Response {
        do {
            return json(try await body())
        } catch let failure as ControlFailure {
            let (status, errorBody) = failure.response
            return json(errorBody, status: status)
        } catch let errorBody as Components.Schemas.ErrorBody {
            return json(errorBody, status: 400)
        } catch let failure as HTTPFailure {
            return json(failure.body, status: failure.status)
        } catch let error as HTTPError {
            return json(
                Components.Schemas.ErrorBody(error: error.body ?? "\(error.status)", code: .badRequest),
                status: error.status.code)
        }
    }

    /// `value` as the API's JSON (snake_case keys), with `status`.
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
            let allowed = ControlRouter.methods(forPath: request.uri.path)
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
