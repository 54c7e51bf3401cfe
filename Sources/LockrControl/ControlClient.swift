import AsyncHTTPClient
import Foundation
import LockrAPI
import NIOCore
import NIOHTTP1
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

/// The CLI's side of the control API.
public struct ControlClient: Sendable {
    public let baseURL: String
    private let token: String
    private static let timeout: TimeAmount = .seconds(10)

    public init(baseURL: String, token: String) {
        self.baseURL = baseURL
        self.token = token
    }

    /// Sends a request and decodes the answer as `Answer`; `timeout` is how long its answer may
    /// take to begin (10 s unless given: an answer that takes longer, such as a list fetched now,
    /// says so).
    public func call<Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, body: (some Encodable & Sendable)? = String?.none,
        headers: [(String, String)] = [], timeout: TimeAmount? = nil, as: Answer.Type = Answer.self
    ) async throws(ControlClientError) -> Answer {
        var bytes: [UInt8]?
        if let body {
            do {
                bytes = Array(try ControlJSON.encoder().encode(body))
            } catch {
                throw .badAnswer("cannot encode the request: \(error)")
            }
        }
        return try await call(
            method, path, bytes: bytes, contentType: "application/json", headers: headers, timeout: timeout)
    }

    /// Sends `bytes` of `contentType` (a WAV clip: "audio/wav") and decodes the answer as `Answer`.
    public func call<Answer: Decodable>(
        _ method: HTTPMethod, _ path: String, bytes: [UInt8]?, contentType: String, headers: [(String, String)] = [],
        timeout given: TimeAmount? = nil, as: Answer.Type = Answer.self
    ) async throws(ControlClientError) -> Answer {
        var request = HTTPClientRequest(url: baseURL + "/api/v1/" + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        // A clip takes a few seconds to hear, more while others wait.
        let timeout = given ?? ((bytes?.count ?? 0) > 65_536 ? TimeAmount.seconds(60) : Self.timeout)
        if let bytes {
            request.body = .bytes(ByteBuffer(bytes: bytes))
            request.headers.add(name: "Content-Type", value: contentType)
        }
        let status: Int
        let bytes: ByteBuffer
        do {
            let response = try await OutboundHTTP.client.execute(request, timeout: timeout)
            status = Int(response.status.code)
            bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
        } catch {
            throw .unreachable(
                "cannot reach the lockr daemon at \(baseURL): \(OutboundHTTP.describe(error)) (is `lockr serve` running?)"
            )
        }
        let data = Data(bytes.readableBytesView)
        guard (200..<300).contains(status) else {
            let body =
                (try? ControlJSON.decoder().decode(Components.Schemas.ErrorBody.self, from: data))
                ?? Components.Schemas.ErrorBody(error: "HTTP \(status) from the daemon", code: .unexpectedAnswer)
            throw .refused(status: status, body)
        }
        do {
            return try ControlJSON.decoder().decode(Answer.self, from: data)
        } catch {
            throw .badAnswer("the daemon's answer to \(path) was not understood: \(error)")
        }
    }

    /// Follows the server-sent events at `path` (`events?person=P`), from after `lastEventID`:
    /// `opened` runs once the daemon has taken the subscription (what is read then misses no event
    /// after it), then each event goes to `receive` as it comes; returns when the daemon ends the
    /// stream (it stopped). Throws `ControlClientError` when the daemon cannot be reached or
    /// refuses, and what `opened` and `receive` throw.
    public func follow(
        _ path: String, after lastEventID: String?, opened: () async throws -> Void = {},
        _ receive: (ServerSentEvent) async throws -> Void
    ) async throws {
        var request = HTTPClientRequest(url: baseURL + "/api/v1/" + path)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response: HTTPClientResponse
        do {
            response = try await OutboundHTTP.client.execute(request, deadline: .distantFuture)
        } catch {
            throw ControlClientError.unreachable(
                "cannot reach the lockr daemon at \(baseURL): \(OutboundHTTP.describe(error)) (is `lockr serve` running?)"
            )
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            let bytes = (try? await response.body.collect(upTo: 1024 * 1024)) ?? ByteBuffer()
            let body =
                (try? ControlJSON.decoder().decode(
                    Components.Schemas.ErrorBody.self, from: Data(bytes.readableBytesView)))
                ?? Components.Schemas.ErrorBody(error: "HTTP \(status) from the daemon", code: .unexpectedAnswer)
            throw ControlClientError.refused(status: status, body)
        }
        try await opened()
        var reader = ServerSentEventReader()
        var pieces = response.body.makeAsyncIterator()
        while true {
            let piece: ByteBuffer?
            do {
                piece = try await pieces.next()
            } catch {
                try Task.checkCancellation()
                throw ControlClientError.unreachable(
                    "lost the lockr daemon at \(baseURL): \(OutboundHTTP.describe(error))")
            }
            guard let piece else { return }
            for event in reader.read(piece.readableBytesView) { try await receive(event) }
        }
    }
}
