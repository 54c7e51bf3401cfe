import Crypto
import Foundation
import PlainText

/// Where a block or allow list comes from: a file, or a URL fetched and kept up to date.
public enum ListSource: Sendable, Hashable {
    case file(path: String)
    case url(String)

    /// Reads an entry of `blocklists` or `allowlists`: an `http://` or `https://` URL, else a file's
    /// path.
    public init(entry: String) throws(ListSourceProblem) {
        let lowered = entry.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            guard lowered.firstRange(of: "://") == nil else {
                throw ListSourceProblem("'\(entry)': only http:// and https:// lists are fetched")
            }
            self = .file(path: entry)
            return
        }
        guard let url = URL(string: entry), let host = url.host, !host.isEmpty else {
            throw ListSourceProblem("'\(entry)' is not a URL lockr can fetch")
        }
        self = .url(entry)
    }

    /// How people see it: a file's path, a URL without what follows its path (a query may hold a
    /// key).
    public var displayName: String {
        switch self {
        case .file(let path): path
        case .url(let url):
            url.firstIndex(where: { $0 == "?" || $0 == "#" }).map { String(url[..<$0]) + "?..." } ?? url
        }
    }

    /// The name the rules it gives are reported under (a file's name, a URL's host and path).
    public var sourceName: String {
        switch self {
        case .file(let path): PlainText.lastPathComponent(path)
        case .url:
            displayName.replacing(/^[a-zA-Z]+:\/\//, with: "")
        }
    }

    /// A URL's file name among the kept copies: the first 16 hex digits of the URL's SHA-256.
    var copyKey: String? {
        guard case .url(let url) = self else { return nil }
        return PlainText.hex(SHA256.hash(data: Data(url.utf8)).prefix(8))
    }
}

/// Why an entry of `blocklists` or `allowlists` is no list lockr can read.
public struct ListSourceProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
