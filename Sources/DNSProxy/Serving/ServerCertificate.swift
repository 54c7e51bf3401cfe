import ConfigKit
import Glibc
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// How lockr serves DNS over TLS and DNS over HTTPS: its certificate and the name devices reach it by.
public struct ServingTLSSettings: Sendable, Equatable {
    /// PEM file of the certificate chain, leaf first.
    public var certificate: String?
    /// PEM file of the certificate's private key.
    public var key: String?
    /// The name devices reach lockr by, which the certificate carries: Android's Private DNS
    /// hostname, the DoH template's host, the DDR target, and the name ClientIDs go under.
    public var name: String?

    public static let defaults = ServingTLSSettings()

    public init(certificate: String? = nil, key: String? = nil, name: String? = nil) {
        self.certificate = certificate
        self.key = key
        self.name = name
    }
}

extension ServingTLSSettings: ConfigSection {
    public static let settings: [Setting<ServingTLSSettings>] = [
        Setting(
            "certificate", \.certificate, restartOnly: true,
            "PEM file of the certificate for listen-tls and listen-https, leaf first then its chain (certbot's fullchain.pem). Read again when it changes: a renewal takes effect for the next connection, and open ones go on.",
            read: { $0.string($1) }, write: { $0.map(quotedConfigString) ?? "" }
        ).shown(as: "\"/etc/lockr/tls/fullchain.pem\""),
        Setting(
            "key", \.key, restartOnly: true,
            "PEM file of the certificate's private key (certbot's privkey.pem), read again with it.",
            read: { $0.string($1) }, write: { $0.map(quotedConfigString) ?? "" }
        ).shown(as: "\"/etc/lockr/tls/privkey.pem\""),
        Setting(
            "name", \.name, restartOnly: true,
            "The name devices reach lockr by, which the certificate must carry (dns.example.com): Android's Private DNS hostname, the host of the DoH address, and the name under which a device's ClientID goes (alice-phone.dns.example.com).",
            read: { reader, key in
                guard let name = reader.string(key) else { return nil }
                guard HostName.isValid(name) else {
                    reader.problem(key, "'\(name)' is not a host name")
                    return nil
                }
                return name.lowercased()
            },
            write: { $0.map(quotedConfigString) ?? "" }
        ).shown(as: "\"dns.example.com\""),
    ]
}

/// lockr's own certificate and key, as TLS contexts for DNS over TLS and DNS over HTTPS (they
/// differ in the protocols ALPN offers). `reloadIfChanged` reads the files again when they changed
/// on disk: new connections get the new certificate, open ones keep theirs.
public final class ServerCertificate: Sendable {
    public let certificatePath: String
    public let keyPath: String
    private let current: NIOLockedValueBox<Loaded>

    private struct Loaded {
        let dot: NIOSSLContext
        let doh: NIOSSLContext
        let stamp: [FileStamp]
    }

    /// What the files looked like when they were read, to tell a change.
    struct FileStamp: Equatable {
        let size: Int64
        let modified: Int64
        let inode: UInt64
    }

    /// Reads the certificate and key; throws with the reason when they are unusable.
    public init(certificate: String, key: String) throws(ServerCertificateError) {
        certificatePath = certificate
        keyPath = key
        current = NIOLockedValueBox(try Self.load(certificate: certificate, key: key))
    }

    /// The context for a new DNS-over-TLS connection.
    var dot: NIOSSLContext { current.withLockedValue { $0.dot } }
    /// The context for a new DNS-over-HTTPS connection.
    var doh: NIOSSLContext { current.withLockedValue { $0.doh } }

    /// What reading the files again did.
    public enum Reload: Sendable, Equatable {
        case unchanged
        case reloaded
        /// They changed but cannot be used: the previous certificate stays.
        case failed(String)
    }

    /// Reads the files again when their size, time or inode changed (a renewal replaces them).
    public func reloadIfChanged() -> Reload {
        let stamp = Self.stamps(certificatePath, keyPath)
        guard stamp != current.withLockedValue({ $0.stamp }) else { return .unchanged }
        do {
            let loaded = try Self.load(certificate: certificatePath, key: keyPath)
            current.withLockedValue { $0 = loaded }
            return .reloaded
        } catch {
            // Not read again until the files change once more.
            current.withLockedValue { $0 = Loaded(dot: $0.dot, doh: $0.doh, stamp: stamp) }
            return .failed(error.description)
        }
    }

    private static func load(certificate: String, key: String) throws(ServerCertificateError) -> Loaded {
        let stamp = stamps(certificate, key)
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(certificate) } catch {
            throw ServerCertificateError("cannot read the certificate \(certificate): \(error)")
        }
        guard !chain.isEmpty else { throw ServerCertificateError("no certificate in \(certificate)") }
        let privateKey: NIOSSLPrivateKey
        do { privateKey = try NIOSSLPrivateKey(file: key, format: .pem) } catch {
            throw ServerCertificateError("cannot read the key \(key): \(error)")
        }
        do {
            var configuration = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = ["dot"]
            let dot = try NIOSSLContext(configuration: configuration)
            configuration.applicationProtocols = ["h2", "http/1.1"]
            let doh = try NIOSSLContext(configuration: configuration)
            return Loaded(dot: dot, doh: doh, stamp: stamp)
        } catch {
            throw ServerCertificateError("cannot use \(certificate) with \(key) (does the key belong to it?): \(error)")
        }
    }

    private static func stamps(_ paths: String...) -> [FileStamp] {
        paths.map { path in
            var info = stat()
            guard stat(path, &info) == 0 else { return FileStamp(size: -1, modified: 0, inode: 0) }
            return FileStamp(
                size: Int64(info.st_size),
                modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec),
                inode: UInt64(info.st_ino))
        }
    }
}

/// Why lockr's certificate cannot be used.
public struct ServerCertificateError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
