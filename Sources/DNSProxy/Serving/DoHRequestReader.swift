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
        let (pathPart, query) = split(target)
        guard pathPart == path || pathPart.hasPrefix(path + "/") else { return .failure(.notFound()) }
        var clientID: String?
        if pathPart.count > path.count + 1 {
            guard let id = ClientID.read(pathPart.dropFirst(path.count + 1)) else {
                return .failure(Refusal(status: 404, reason: "not a ClientID: letters, digits and hyphens, up to 63"))
            }
            clientID = id
        }
        let message: [UInt8]
        switch method {
        case "GET":
            guard let encoded = parameter("dns", in: query) else {
                return .failure(Refusal(status: 400, reason: "no dns parameter"))
            }
            guard encoded.utf8.count <= (maxMessage * 4 + 2) / 3 else {
                return .failure(Refusal(status: 414, reason: "the dns parameter is too long"))
            }
            guard
                let decoded = try? Base64.decode(
                    string: String(encoded), options: [.base64UrlAlphabet, .omitPaddingCharacter])
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

    private static func split(_ target: String) -> (Substring, Substring) {
        guard let mark = target.firstIndex(of: "?") else { return (target[...], "") }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    private static func parameter(_ name: String, in query: Substring) -> Substring? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name { return parts[1] }
        }
        return nil
    }
}
