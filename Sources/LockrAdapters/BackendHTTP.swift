import AsyncHTTPClient
import Foundation
import LockrPolicy
import NIOCore
import NIOHTTP1
import OutboundHTTP
import PlainText

/// A reply from a backend: status and body.
struct HTTPReply: Sendable {
    let status: Int
    let body: Data
    let headers: HTTPHeaders

    /// The body as JSON of type `T`, or a `failed` error naming `what`.
    func decode<T: Decodable>(_ type: T.Type, _ what: String) throws(BackendError) -> T {
        do { return try JSONDecoder().decode(T.self, from: body) } catch {
            throw .failed(
                "\(what): unexpected reply (HTTP \(status)): \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
    }

    var text: String { String(decoding: body.prefix(300), as: UTF8.self) }
}

/// Sends requests to one backend's base URL. JSON bodies carry `Content-Type: application/json`;
/// requests without a body carry none (AdGuard Home rejects a type on an empty POST). Nothing here
/// logs: headers may hold secrets.
struct BackendHTTP: Sendable {
    let baseURL: String
    let timeout: Duration
    static let maximumBody = 16 << 20

    init(baseURL: String, timeout: Duration) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.timeout = timeout
    }

    /// Sends `method path?query` with `headers` and `body` (already JSON), and collects the reply.
    func send(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
        json body: Data? = nil
    ) async throws(BackendError) -> HTTPReply {
        try await send(method, path, query: query, headers: headers, body: body, contentType: "application/json")
    }

    /// Sends `method path?query` with `headers` and `body` of `contentType`, and collects the reply.
    func send(
        _ method: HTTPMethod, _ path: String, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: Data?, contentType: String
    ) async throws(BackendError) -> HTTPReply {
        var url = baseURL + path
        if !query.isEmpty {
            url += "?" + query.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
        }
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let response = try await OutboundHTTP.client.execute(request, timeout: .milliseconds(timeout.milliseconds))
            let bytes = try await response.body.collect(upTo: Self.maximumBody)
            return HTTPReply(
                status: Int(response.status.code), body: Data(bytes.readableBytesView), headers: response.headers)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .unreachable("no answer within \(timeout.components.seconds) s")
        } catch {
            throw .unreachable(OutboundHTTP.describe(error))
        }
    }

    /// Encodes a body for `send`.
    static func json(_ value: some Encodable) -> Data {
        (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
    }

    /// Percent-escapes a path segment or query part: everything but unreserved characters.
    static func escape(_ text: String) -> String { PlainText.percentEncoded(text) }
}
