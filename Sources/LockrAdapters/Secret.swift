import Foundation
import PlainText

/// Where a backend's password or key comes from: a file or an environment variable, never the
/// command line. It is read when needed, so a rotated secret is picked up on the next login.
public enum SecretSource: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case environment(String)

    /// The secret, without a final newline.
    public func read(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BackendError)
        -> String
    {
        let text: String
        switch self {
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .misconfigured("cannot read the secret file \(path)")
            }
            text = String(decoding: data, as: UTF8.self)
        case .environment(let name):
            guard let value = environment[name] else { throw .misconfigured("environment variable \(name) is not set") }
            text = value
        }
        let secret = text.trimming(while: \.isNewline)
        guard !secret.isEmpty else { throw .misconfigured("the secret in \(self) is empty") }
        return secret
    }

    /// Where the secret is, never what it is.
    public var description: String {
        switch self {
        case .file(let path): "file \(path)"
        case .environment(let name): "$\(name)"
        }
    }
}
