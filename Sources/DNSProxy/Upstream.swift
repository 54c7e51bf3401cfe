import ExtrasBase64
import NIOCore

/// One upstream server: where to connect, and how to speak to it.
///
/// Written in the config as
/// - `ADDR` or `ADDR:PORT` (plain DNS, port 53), `[V6]:PORT` for IPv6;
/// - `tls://ADDR[:PORT][@NAME]` (DNS over TLS, RFC 7858, port 853): the certificate must name
///   `NAME`, or the address when no name is given;
/// - `https://[ADDR,...@]HOST[:PORT]/PATH` (DNS over HTTPS, RFC 8484, port 443): `HOST` is the
///   name the certificate must carry, `ADDR` the addresses to connect to. Several addresses make
///   one upstream each. Without them, where `HOST` is gets looked up (`NamedUpstream`).
///
/// Either encrypted form may end in `#pin-sha256=BASE64[,BASE64...]`: the server's key must then
/// also match one of the pins (the SHA-256 of its SubjectPublicKeyInfo, RFC 7858 section 4.2).
public struct Upstream: Hashable, Sendable, CustomStringConvertible {
    /// The address connected to.
    public let address: SocketAddress
    public let transport: Transport

    public enum Transport: Hashable, Sendable {
        /// Plain DNS over UDP, TCP when an answer comes back truncated.
        case plain
        /// DNS over TLS.
        case tls(TLSPeer)
        /// DNS over HTTPS: the peer, and the path queries are posted to.
        case https(TLSPeer, path: String)
    }

    /// Who an encrypted upstream must prove to be.
    public struct TLSPeer: Hashable, Sendable {
        /// The name its certificate must carry (also sent as SNI); nil: its address.
        public let serverName: String?
        /// SHA-256 digests of acceptable SubjectPublicKeyInfo; empty: no pin.
        public let pins: [[UInt8]]

        public init(serverName: String?, pins: [[UInt8]] = []) {
            self.serverName = serverName
            self.pins = pins
        }
    }

    public init(address: SocketAddress, transport: Transport = .plain) {
        self.address = address
        self.transport = transport
    }

    /// A plain upstream at `address`.
    public static func plain(_ address: SocketAddress) -> Upstream { Upstream(address: address) }

    /// Whether it is reached over TLS or HTTPS.
    public var isEncrypted: Bool {
        if case .plain = transport { return false }
        return true
    }

    /// As it is written in the config, one address at a time.
    public var description: String {
        switch transport {
        case .plain: return Self.format(address)
        case .tls(let peer):
            return "tls://" + Self.format(address) + (peer.serverName.map { "@\($0)" } ?? "") + Self.pinText(peer)
        case .https(let peer, let path):
            let host = peer.serverName ?? Self.hostText(address)
            let port = address.port == 443 ? "" : ":\(address.port ?? 443)"
            let addresses = peer.serverName == nil ? "" : "\(Self.hostText(address))@"
            return "https://\(addresses)\(host)\(port)\(path)" + Self.pinText(peer)
        }
    }

    fileprivate static func parse(_ text: String) throws(UpstreamSyntaxError) -> [UpstreamEntry] {
        if text.hasPrefix("tls://") { return try parseTLS(String(text.dropFirst(6)), whole: text) }
        if text.hasPrefix("https://") { return try parseHTTPS(String(text.dropFirst(8)), whole: text) }
        if text.firstRange(of: "://") != nil {
            throw UpstreamSyntaxError(text, "unknown scheme: use ADDR[:PORT], tls://ADDR[@NAME] or https://HOST/PATH")
        }
        guard let address = address(text, defaultPort: 53) else {
            throw UpstreamSyntaxError(text, "not an address: ADDR, ADDR:PORT or [V6]:PORT")
        }
        return [.at(.plain(address))]
    }

    private static func parseTLS(_ rest: String, whole: String) throws(UpstreamSyntaxError) -> [UpstreamEntry] {
        let (body, pins) = try splitPins(rest, whole: whole)
        let parts = body.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts.count == 2 ? parts[1] : nil
        if let name, !HostName.isValid(name) {
            throw UpstreamSyntaxError(whole, "'\(name)' is not a server name")
        }
        if name == nil, !parts[0].contains("," as Character), address(parts[0], defaultPort: 853) == nil {
            let (host, port) = try hostAndPort(parts[0], defaultPort: 853, whole: whole)
            guard HostName.isValid(host) else {
                throw UpstreamSyntaxError(whole, "'\(host)' is neither an address nor a host name")
            }
            return [
                .named(NamedUpstream(host: host, port: port, transport: .tls(TLSPeer(serverName: host, pins: pins))))
            ]
        }
        let addresses = try addressList(parts[0], defaultPort: 853, whole: whole)
        let peer = TLSPeer(serverName: name, pins: pins)
        return addresses.map { .at(Upstream(address: $0, transport: .tls(peer))) }
    }

    private static func parseHTTPS(_ rest: String, whole: String) throws(UpstreamSyntaxError) -> [UpstreamEntry] {
        let (body, pins) = try splitPins(rest, whole: whole)
        guard let slash = body.firstIndex(of: "/") else {
            throw UpstreamSyntaxError(whole, "no path: write https://HOST/dns-query")
        }
        let path = String(body[slash...])
        guard !path.contains("?" as Character), path.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw UpstreamSyntaxError(whole, "the path must be plain, without ?query")
        }
        var authority = String(body[..<slash])
        var listed: String?
        if let at = authority.lastIndex(of: "@") {
            listed = String(authority[..<at])
            authority = String(authority[authority.index(after: at)...])
        }
        let (host, port) = try hostAndPort(authority, defaultPort: 443, whole: whole)
        if let literal = address(host, defaultPort: port) {
            guard listed == nil else {
                throw UpstreamSyntaxError(whole, "the host is an address already: drop the addresses before @")
            }
            return [
                .at(Upstream(address: literal, transport: .https(TLSPeer(serverName: nil, pins: pins), path: path)))
            ]
        }
        guard HostName.isValid(host) else { throw UpstreamSyntaxError(whole, "'\(host)' is not a host name") }
        let peer = TLSPeer(serverName: host, pins: pins)
        guard let listed else {
            return [.named(NamedUpstream(host: host, port: port, transport: .https(peer, path: path)))]
        }
        return try addressList(listed, defaultPort: port, whole: whole).map {
            .at(Upstream(address: $0, transport: .https(peer, path: path)))
        }
    }

    /// Splits off `#pin-sha256=...`.
    private static func splitPins(_ text: String, whole: String) throws(UpstreamSyntaxError) -> (String, [[UInt8]]) {
        guard let hash = text.firstIndex(of: "#") else { return (text, []) }
        let fragment = text[text.index(after: hash)...]
        let prefix = "pin-sha256="
        guard fragment.hasPrefix(prefix) else {
            throw UpstreamSyntaxError(whole, "after # lockr expects pin-sha256=BASE64")
        }
        var pins: [[UInt8]] = []
        for text in fragment.dropFirst(prefix.count).split(separator: ",", omittingEmptySubsequences: false) {
            guard let pin = try? Base64.decode(string: String(text)), pin.count == 32 else {
                throw UpstreamSyntaxError(whole, "'\(text)' is not a SHA-256 pin in base64 (44 characters)")
            }
            pins.append(pin)
        }
        return (String(text[..<hash]), pins)
    }

    /// "a,b,[v6]:p" into addresses.
    private static func addressList(
        _ text: String, defaultPort: Int, whole: String
    ) throws(UpstreamSyntaxError) -> [SocketAddress] {
        var result: [SocketAddress] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let address = address(String(item), defaultPort: defaultPort) else {
                throw UpstreamSyntaxError(whole, "'\(item)' is not an address (ADDR, ADDR:PORT or [V6]:PORT)")
            }
            result.append(address)
        }
        return result
    }

    private static func hostAndPort(
        _ text: String, defaultPort: Int, whole: String
    ) throws(UpstreamSyntaxError) -> (String, Int) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw UpstreamSyntaxError(whole, "no ] after [") }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if rest.isEmpty { return (host, defaultPort) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (1...65_535).contains(port) else {
                throw UpstreamSyntaxError(whole, "bad port after ]")
            }
            return (host, port)
        }
        guard let colon = text.firstIndex(of: ":") else { return (text, defaultPort) }
        guard let port = Int(text[text.index(after: colon)...]), (1...65_535).contains(port) else {
            throw UpstreamSyntaxError(whole, "bad port")
        }
        return (String(text[..<colon]), port)
    }

    /// "ADDR", "ADDR:PORT", "V6" or "[V6]:PORT", on a port that can be connected to.
    static func address(_ text: String, defaultPort: Int) -> SocketAddress? {
        guard let address = AddressText.parse(text, defaultPort: defaultPort), address.port != 0 else { return nil }
        return address
    }

    private static func format(_ address: SocketAddress) -> String {
        "\(hostText(address)):\(address.port ?? 0)"
    }

    private static func hostText(_ address: SocketAddress) -> String {
        let host = address.ipAddress ?? "?"
        return address.protocol == .inet6 ? "[\(host)]" : host
    }

    fileprivate static func pinText(_ peer: TLSPeer) -> String {
        peer.pins.isEmpty
            ? "" : "#pin-sha256=" + peer.pins.map { Base64.encodeToString(bytes: $0) }.joined(separator: ",")
    }
}

/// One entry of `upstreams` as written: an upstream at an address it gives (several addresses make
/// several entries), or an encrypted one named by its host alone.
public enum UpstreamEntry: Hashable, Sendable, CustomStringConvertible {
    case at(Upstream)
    case named(NamedUpstream)

    /// The entries `text` makes (`Upstream` says how upstreams are written).
    public static func parse(_ text: String) throws(UpstreamSyntaxError) -> [UpstreamEntry] {
        try Upstream.parse(text)
    }

    public var description: String {
        switch self {
        case .at(let upstream): return upstream.description
        case .named(let named): return named.description
        }
    }
}

/// `tls://HOST[:PORT]` or `https://HOST[:PORT]/PATH` written without addresses: where `HOST` is
/// gets looked up through the bootstrap servers (`BootstrapLookup`) when lockr starts or reloads,
/// and each address found is an upstream whose certificate must name `HOST`.
public struct NamedUpstream: Hashable, Sendable, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// How each address found is spoken to; its peer names `host`.
    let transport: Upstream.Transport

    /// The upstreams at `addresses`, on this one's port.
    public func at(_ addresses: [SocketAddress]) -> [Upstream] {
        addresses.compactMap { found in
            guard let ip = found.ipAddress, let address = try? SocketAddress(ipAddress: ip, port: port) else {
                return nil
            }
            return Upstream(address: address, transport: transport)
        }
    }

    public var description: String {
        switch transport {
        case .plain: return host
        case .tls(let peer): return "tls://\(host)\(port == 853 ? "" : ":\(port)")" + Upstream.pinText(peer)
        case .https(let peer, let path):
            return "https://\(host)\(port == 443 ? "" : ":\(port)")\(path)" + Upstream.pinText(peer)
        }
    }
}

/// An upstream written wrongly: what was written, and what is wrong with it.
public struct UpstreamSyntaxError: Error, CustomStringConvertible {
    public let text: String
    public let reason: String

    init(_ text: String, _ reason: String) {
        self.text = text
        self.reason = reason
    }

    public var description: String { "'\(text)': \(reason)" }
}
