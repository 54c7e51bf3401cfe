import ExtrasBase64

/// Reads a DNS-over-HTTPS request (RFC 8484): `GET /dns-query?dns=BASE64URL` or `POST /dns-query`
/// with an `application/dns-message` body, on `/dns-query` or `/dns-query/CLIENTID`.
public enum DoHRequestReader {
    public static let path = "/dns-query"
    public static let mediaType = "application/dns-message"
    /// The largest DNS message a request may carry.
    public static let maxMessage = 65_535

    /// The query a request carries and the ClientID its path names.
    public struct Request: Equatable, Sendable {
        public let message: [UInt8]
        public let clientID: String?
    }

    /// Why a request is refused: the HTTP status and a short reason for the body.
    public struct Refusal: Error, Equatable, Sendable {
        public let status: Int
        public let reason: String

        static func notFound() -> Refusal { Refusal(status: 404, reason: "not a DNS-over-HTTPS path (\(path))") }
    }

    /// The query in a request of `method` on `target` (path and query string) with `contentType`
    /// and `body`.
    public static func read(
        method: String, target: String, contentType: String?, body: [UInt8]
    ) -> Result<Request, Refusal> {
        var target = target
        return target.withUTF8 { read(method: method, target: $0, contentType: contentType, body: body) }
    }

    private static let pathBytes = Array(path.utf8)
    private static let parameterName = Array("dns=".utf8)
    private static let question = UInt8(ascii: "?")
    private static let ampersand = UInt8(ascii: "&")
    private static let slash = UInt8(ascii: "/")

    /// The same on the target's bytes, as requests come.
    private static func read(
        method: String, target: UnsafeBufferPointer<UInt8>, contentType: String?, body: [UInt8]
    ) -> Result<Request, Refusal> {
        let mark = target.firstIndex(of: question) ?? target.endIndex
        let pathPart = target[..<mark]
        guard pathPart.starts(with: pathBytes), pathPart.count == pathBytes.count || pathPart[pathBytes.count] == slash
        else { return .failure(.notFound()) }
        var clientID: String?
        if pathPart.count > pathBytes.count + 1 {
            let written = String(decoding: pathPart.dropFirst(pathBytes.count + 1), as: UTF8.self)
            guard let id = ClientID.read(written[...]) else {
                return .failure(Refusal(status: 404, reason: "not a ClientID: letters, digits and hyphens, up to 63"))
            }
            clientID = id
        }
        let message: [UInt8]
        switch method {
        case "GET":
            guard let encoded = parameter(in: target[mark...].dropFirst()) else {
                return .failure(Refusal(status: 400, reason: "no dns parameter"))
            }
            guard encoded.count <= (maxMessage * 4 + 2) / 3 else {
                return .failure(Refusal(status: 414, reason: "the dns parameter is too long"))
            }
            guard
                let decoded = try? Base64.decode(bytes: encoded, options: [.base64UrlAlphabet, .omitPaddingCharacter])
            else { return .failure(Refusal(status: 400, reason: "the dns parameter is not base64url")) }
            message = decoded
        case "POST":
            guard let contentType, contentType.lowercased().hasPrefix(mediaType) else {
                return .failure(Refusal(status: 415, reason: "the body must be \(mediaType)"))
            }
            guard body.count <= maxMessage else { return .failure(Refusal(status: 413, reason: "body too large")) }
            message = body
        default:
            return .failure(Refusal(status: 405, reason: "GET or POST"))
        }
        guard message.count >= 12 else { return .failure(Refusal(status: 400, reason: "not a DNS message")) }
        return .success(Request(message: message, clientID: clientID))
    }

    /// The value of the first `dns=` pair of a query string.
    private static func parameter(in query: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>>? {
        var rest = query
        while !rest.isEmpty {
            let end = rest.firstIndex(of: ampersand) ?? rest.endIndex
            let pair = rest[..<end]
            if pair.starts(with: parameterName) { return pair.dropFirst(parameterName.count) }
            rest = rest[end...].dropFirst()
        }
        return nil
    }
}
