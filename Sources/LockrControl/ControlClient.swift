import AsyncHTTPClient
import Foundation
import HTTPTypes
import LockrAPI
import NIOCore
import NIOHTTP1
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import OutboundHTTP

/// Why a control call got no answer the CLI can use.
public enum ControlClientError: Error, CustomStringConvertible, Sendable {
    /// The daemon could not be reached.
    case unreachable(String)
    /// The daemon answered with an error.
    case refused(status: Int, Components.Schemas.ErrorBody)
    /// The daemon's answer was not what this CLI understands.
    case badAnswer(String)

    public var description: String {
        switch self {
        case .unreachable(let message), .badAnswer(let message): message
        case .refused(_, let body): body.error
        }
    }
}

/// The CLI's side of the control API: the operations through the generated `Client`, failures as
/// `ControlClientError`.
public struct ControlClient: Sendable {
    public let baseURL: String
    /// The operations of docs/openapi.yaml.
    private let api: Client

    /// `timeout` is how long an answer may take to begin: 10 s unless given (a list fetched now or a
    /// clip heard takes longer).
    public init(baseURL: String, token: String, timeout: TimeAmount = .seconds(10)) {
        self.baseURL = baseURL
        api = Client(
            serverURL: URL(string: baseURL) ?? URL(fileURLWithPath: "/"), configuration: ControlJSON.configuration,
            transport: AsyncHTTPClientTransport(configuration: .init(client: OutboundHTTP.client, timeout: timeout)),
            middlewares: [ControlClientMiddleware(baseURL: baseURL, token: token)])
    }

    /// Runs `operation` on the API: `try await client.call { try await $0.getStatus().ok.body.json }`.
    public func call<Answer: Sendable>(
        _ operation: (Client) async throws -> Answer
    ) async throws(ControlClientError) -> Answer {
        do {
            return try await operation(api)
        } catch let error as ClientError {
            if let failure = error.underlyingError as? ControlClientError { throw failure }
            throw .badAnswer("the daemon's answer to \(error.operationID) was not understood: \(error.underlyingError)")
        } catch let failure as ControlClientError {
            throw failure
        } catch {
            throw .badAnswer("the daemon's answer was not understood: \(error)")
        }
    }

    /// Follows the live events (`GET events`) of `person` (everyone's when nil), from after
    /// `lastEventID`: `opened` runs once the daemon has taken the subscription (what is read then
    /// misses no event after it), then each event with data goes to `receive` as it comes; returns
    /// when the daemon ends the stream (it stopped). Throws `ControlClientError` when the daemon
    /// cannot be reached or refuses, and what `opened` and `receive` throw.
    public func followEvents(
        of person: String?, after lastEventID: String?, opened: () async throws -> Void = {},
        _ receive: (ServerSentEvent) async throws -> Void
    ) async throws {
        let stream = try await call {
            try await $0.followEvents(query: .init(person: person), headers: .init(lastEventID: lastEventID)).ok.body
                .textEventStream
        }
        try await opened()
        var events = stream.asDecodedServerSentEvents().makeAsyncIterator()
        while true {
            let event: ServerSentEvent?
            do {
                event = try await events.next()
            } catch {
                try Task.checkCancellation()
                throw ControlClientError.unreachable(
                    "lost the lockr daemon at \(baseURL): \(OutboundHTTP.describe(error))")
            }
            guard let event else { return }
            if event.data != nil { try await receive(event) }
        }
    }
}

/// Gives each call the token, and turns an answer that is not a success into
/// `ControlClientError.refused` (with lockr's `ErrorBody`) and no answer into `.unreachable`.
struct ControlClientMiddleware: ClientMiddleware {
    let baseURL: String
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL url: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        let (response, answer): (HTTPResponse, HTTPBody?)
        do { (response, answer) = try await next(request, body, url) } catch {
            throw Self.unreachable(baseURL, error)
        }
        guard response.status.kind == .successful else {
            let data = (try? await Data(collecting: answer ?? HTTPBody(), upTo: 1024 * 1024)) ?? Data()
            throw Self.refusal(status: response.status.code, data)
        }
        return (response, answer)
    }

    static func unreachable(_ baseURL: String, _ error: any Error) -> ControlClientError {
        .unreachable(
            "cannot reach the lockr daemon at \(baseURL): \(OutboundHTTP.describe(error)) (is `lockr serve` running?)")
    }

    /// A refusal, with lockr's `ErrorBody` when the answer is one.
    static func refusal(status: Int, _ data: Data) -> ControlClientError {
        let body =
            (try? ControlJSON.decoder().decode(Components.Schemas.ErrorBody.self, from: data))
            ?? Components.Schemas.ErrorBody(error: "HTTP \(status) from the daemon", code: .unexpectedAnswer)
        return .refused(status: status, body)
    }
}
