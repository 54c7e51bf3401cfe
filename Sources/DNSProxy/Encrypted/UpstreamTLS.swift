import Crypto
import NIOCore
import NIOSSL

/// The TLS side of encrypted upstreams: one client context for DNS over TLS and one for DNS over
/// HTTPS (they differ in the protocols offered by ALPN), both trusting the system's roots or a CA
/// file. Contexts are costly to make, so one of each serves every connection of every loop.
public final class UpstreamTLS: Sendable {
    let dot: NIOSSLContext
    let doh: NIOSSLContext

    /// `caFile`: PEM certificates to trust instead of the system's store.
    public init(caFile: String? = nil) throws(UpstreamTLSError) {
        do {
            let roots: NIOSSLTrustRoots = caFile.map { .file($0) } ?? .default
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = roots
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = ["dot"]
            dot = try NIOSSLContext(configuration: configuration)
            configuration.applicationProtocols = ["h2", "http/1.1"]
            doh = try NIOSSLContext(configuration: configuration)
        } catch {
            throw UpstreamTLSError(
                "cannot use \(caFile.map { "the CA file \($0)" } ?? "the system's certificates"): \(error)")
        }
    }

    /// The TLS handler for a new connection to `upstream`, or nil for a plain one.
    func clientHandler(for upstream: Upstream) throws -> NIOSSLClientHandler? {
        switch upstream.transport {
        case .plain: return nil
        case .tls(let peer): return try NIOSSLClientHandler(context: dot, serverHostname: peer.serverName)
        case .https(let peer, _): return try NIOSSLClientHandler(context: doh, serverHostname: peer.serverName)
        }
    }

    /// Nil when `certificate`'s key matches one of `pins` (or there are none); else why not.
    static func pinProblem(_ certificate: NIOSSLCertificate?, pins: [[UInt8]]) -> String? {
        guard !pins.isEmpty else { return nil }
        guard let spki = try? certificate?.extractPublicKey().toSPKIBytes() else {
            return "no server key to check against the pin"
        }
        let digest = Array(SHA256.hash(data: spki))
        return pins.contains(digest) ? nil : "the server's key does not match the pin"
    }

    /// A TLS failure in words a user can act on.
    static func reason(_ error: Error) -> String {
        let text = "\(error)"
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the certificate is not for this server (\(text))"
        }
        if text.firstRange(of: "CERTIFICATE_VERIFY_FAILED") != nil {
            return "certificate not trusted (unknown CA, expired or not yet valid)"
        }
        if error is NIOSSLError { return "TLS failed: \(text)" }
        return text
    }
}

/// Why the TLS side of the upstreams could not be set up.
public struct UpstreamTLSError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
