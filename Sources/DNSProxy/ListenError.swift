import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// An address lockr could not listen on, in words: `cannot listen on 127.0.0.1:53 (udp): address
/// already in use`.
public struct ListenError: Error, CustomStringConvertible, Sendable {
    public let address: String
    public let transport: String
    public let reason: String

    init(address: SocketAddress, transport: String, reason: String) {
        let host = address.ipAddress ?? "?"
        self.address = address.protocol == .inet6 ? "[\(host)]:\(address.port ?? 0)" : "\(host):\(address.port ?? 0)"
        self.transport = transport
        self.reason = reason
    }

    /// A place given in words (a unix socket's path, or an address already formatted).
    public init(place: String, transport: String, reason: String) {
        address = place
        self.transport = transport
        self.reason = reason
    }

    public var description: String {
        var text = "cannot listen on \(address) (\(transport)): \(reason)"
        if reason == Self.text(errno: EADDRINUSE) {
            let setting =
                ["tls": "listen-tls", "https": "listen-https", "dnstap TCP": "[dnstap] listen"][transport] ?? "--listen"
            text += " (another DNS server, or another lockr, holds it: pick another \(setting) port or stop it)"
        } else if reason == Self.text(errno: EACCES) {
            text += " (ports below 1024 need root or CAP_NET_BIND_SERVICE)"
        }
        return text
    }

    /// The system's words for a socket error ("address already in use"), else the error as it is.
    public static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return text(errno: error.errnoCode) }
        if let error = error as? ListenError { return error.reason }
        return "\(error)"
    }

    static func text(errno code: Int32) -> String { String(cString: strerror(code)).lowercased() }
}
