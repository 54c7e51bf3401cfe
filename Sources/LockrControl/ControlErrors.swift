import ConfigKit
import Foundation
import HTTPTypes
import Hummingbird
import LockrAPI
import LockrSpeech
import NIOCore
import OpenAPIRuntime

/// A refusal, thrown by the operations and answered as it is (400).
extension Components.Schemas.ErrorBody: Error {}

/// A failure with its own HTTP status.
public struct HTTPFailure: Error {
    public let status: Int
    public let body: Components.Schemas.ErrorBody
    /// Whether the answer closes the connection (a client refused for holding too many).
    public let closesConnection: Bool

    init(
        status: Int, error: String, code: Components.Schemas.ErrorCode, retryAfterSeconds: Int64? = nil,
        closesConnection: Bool = false
    ) {
        self.status = status
        body = Components.Schemas.ErrorBody(error: error, code: code, retryAfterSeconds: retryAfterSeconds)
        self.closesConnection = closesConnection
    }

    /// The failure as the API answers it: its `ErrorBody` as JSON, with `Retry-After` when it
    /// says when to try again, and `Connection: close` when it closes the connection.
    public var response: Response {
        var response = ControlRouter.json(body, status: status)
        if closesConnection { response.headers[.connection] = "close" }
        return response
    }

    /// Why a clip was not heard, as the API answers it.
    init(_ refusal: HearingRefusal) {
        switch refusal {
        case .unsupported(let why): self.init(status: 415, error: why, code: .unsupportedAudio)
        case .unusable(let why): self.init(status: 422, error: why, code: .unusableClip)
        case .busy(let why): self.init(status: 429, error: why, code: .busy)
        case .unavailable(let why): self.init(status: 503, error: why, code: .noRecogniser)
        }
    }
}

/// How a failure is answered: `ErrorBody` JSON with its status, whether an operation threw it or
/// the generated server could not read the request into the operation's input.
extension ControlRouter {
    /// `body`'s answer as JSON, or what it threw as an `ErrorBody` with its status.
    public static func respond(_ body: () async throws -> some Encodable) async throws -> Response {
        do {
            return json(try await body())
        } catch {
            guard let response = failure(error) else { throw error }
            return response
        }
    }

    /// The answer to a failure of lockr's own (nil for any other error).
    static func failure(_ error: any Error) -> Response? {
        switch error {
        case let failure as ControlFailure:
            let (status, body) = failure.response
            return json(body, status: status)
        case let body as Components.Schemas.ErrorBody: return json(body, status: 400)
        case let failure as HTTPFailure: return failure.response
        case let error as HTTPError:
            return json(
                Components.Schemas.ErrorBody(error: error.body ?? "\(error.status)", code: .badRequest),
                status: error.status.code)
        default: return nil
        }
    }

    /// The answer to a request the generated server could not read, or that its operation refused;
    /// `body` is the request's body (read before). Nil for a fault of lockr's own, which is a 500.
    static func failure(_ error: ServerError, request: Request, body: ByteBuffer) -> Response? {
        if let response = failure(error.underlyingError) { return response }
        // A query parameter's word that is none of its choices: the decoder names neither.
        if case DecodingError.dataCorrupted(let context) = error.underlyingError, context.codingPath.isEmpty,
            let word = context.debugDescription.firstMatch(of: /from invalid String value (.*)$/)?.1,
            let parameter = request.uri.queryParameters.first(where: { $0.value == word })
        {
            return json(
                Components.Schemas.ErrorBody(error: "'\(parameter.key)' cannot be '\(word)'", code: .badRequest),
                status: 400)
        }
        if error.operationID == "importConfiguration", let decoding = error.underlyingError as? DecodingError,
            decoding.context.codingPath.first.flatMap({ request.uri.queryParameters[Substring($0.stringValue)] }) == nil
        {
            let problem = Components.Schemas.ConfigurationDocument.problem(
                in: Data(body.readableBytesView), error.underlyingError)
            return json(
                Components.Schemas.ErrorBody(error: problem.description, code: .invalidConfiguration), status: 400)
        }
        let bad = { (message: String) in
            json(Components.Schemas.ErrorBody(error: message, code: .badRequest), status: 400)
        }
        // A number too large for any integer is not named by the decoders, in a query or in the body.
        let tooLarge = request.uri.queryParameters.first { _, value in
            value.wholeMatch(of: /-?\d+/) != nil && Int(value) == nil
        }
        switch error.underlyingError {
        case is DecodingError where tooLarge != nil:
            return bad("'\(tooLarge!.key)' must be a whole number")
        case DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty:
            let problem = oddNumberKey(in: Data(body.readableBytesView)).map { "'\($0)' must be a whole number" }
            return bad("bad JSON: \(problem ?? "not valid JSON")")
        case let decoding as DecodingError:
            if let key = decoding.context.codingPath.first?.stringValue,
                request.uri.queryParameters[Substring(key)] != nil
            {
                return bad("'\(key)' \(describe(decoding, at: []))")
            }
            return bad("bad JSON: \(describe(decoding, at: decoding.context.codingPath))")
        default:
            break
        }
        guard error.httpStatus != .unsupportedMediaType else {
            // Only a clip is not JSON (`ControlRequestMiddleware`).
            let type = request.headers[.contentType] ?? "none"
            return json(
                Components.Schemas.ErrorBody(
                    error: "send the clip as audio/wav (PCM WAV), not \(type)", code: .unsupportedAudio),
                status: 415)
        }
        guard error.httpStatus.code < 500 else { return nil }
        let status = error.httpStatus.code
        let cause = error.causeDescription
        return json(
            Components.Schemas.ErrorBody(
                error: cause.prefix(1).lowercased() + String(cause.dropFirst()), code: .badRequest),
            status: status)
    }

    /// The key of the first number in the JSON `data` that is not a whole number an `Int64` holds
    /// (every number the API takes is one).
    static func oddNumberKey(in data: Data) -> String? {
        func search(_ value: JSONTree, key: String) -> String? {
            switch value {
            case .object(let members):
                return members.sorted { $0.key < $1.key }.lazy.compactMap { search($0.value, key: $0.key) }.first
            case .array(let items): return items.lazy.compactMap { search($0, key: key) }.first
            case .number(let number): return Int64(exactly: number) == nil ? key : nil
            case .string, .bool, .null: return nil
            }
        }
        guard let value = JSONTree.read(data) else { return nil }
        return search(value, key: "the body")
    }

    /// What is wrong, for the value at `path`: "'mode' must be a string".
    private static func describe(_ error: DecodingError, at path: [any CodingKey]) -> String {
        let keys = path.map { $0.intValue.map(String.init) ?? $0.stringValue }
        let place = keys.isEmpty ? "" : "'\(keys.joined(separator: "."))' "
        switch error {
        case .typeMismatch(let type, _), .valueNotFound(let type, _): return "\(place)must be \(typeName(type))"
        case .keyNotFound(let key, _): return "'\(key.stringValue)' is required"
        case .dataCorrupted(let context) where context.underlyingError is NotAChoice:
            let refusal = context.underlyingError as! NotAChoice
            return "\(place)must be one of \(refusal.choices.joined(separator: ", ")), not '\(refusal.word)'"
        case .dataCorrupted: return place.isEmpty ? "is not valid" : "\(place)is not valid"
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
}

extension DecodingError {
    var context: Context {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context
        @unknown default: Context(codingPath: [], debugDescription: "")
        }
    }
}

/// Reads each request's body (at most `ControlRouter.maximumBody`, or `largestClip` for a clip), runs
/// its operation knowing the caller (`ControlCaller`), and answers what the generated server could
/// not read or what the operation refused. Every body but a clip is read as JSON, whatever its
/// `Content-Type` says (`curl -d` says a form), and an empty one as `{}`: every body's fields are
/// optional or named as required, so that no body is the same as one with nothing in it.
struct ControlRequestMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: ControlRequestContext,
        next: (Request, ControlRequestContext) async throws -> Response
    ) async throws -> Response {
        var request = request
        let isClip = request.uri.path.hasSuffix("/gate/voice")
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: isClip ? ControlRouter.largestClip : ControlRouter.maximumBody)
        } catch {
            return isClip
                ? ControlRouter.json(
                    Components.Schemas.ErrorBody(error: "a clip is at most 8 MiB (20 s)", code: .clipTooLarge),
                    status: 413)
                : ControlRouter.json(
                    Components.Schemas.ErrorBody(
                        error: "a request body is at most \(ControlRouter.maximumBody) bytes", code: .badRequest),
                    status: 413)
        }
        if !isClip {
            var head = request.head
            head.headerFields[.contentType] = "application/json"
            request = Request(
                head: head, body: RequestBody(buffer: body.readableBytes == 0 ? ByteBuffer(string: "{}") : body))
        }
        do {
            return try await ControlCaller.$address.withValue(context.remoteAddress) {
                try await ControlCaller.$connectionClosed.withValue(context.connectionClosed) {
                    try await next(request, context)
                }
            }
        } catch let error as ServerError {
            guard let response = ControlRouter.failure(error, request: request, body: body) else { throw error }
            return response
        }
    }
}
