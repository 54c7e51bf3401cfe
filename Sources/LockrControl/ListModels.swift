import Foundation
import LockrLists

// The control API's lists given by URL (`lockr lists`).

/// One list given by URL and how its fetches go.
public struct ListBody: Codable, Sendable, Equatable {
    /// Its URL, without a query.
    public let name: String
    /// "block", "allow", or both when it is given as each.
    public let roles: [String]
    /// Whether the top level names it (everyone's), and the people who name it as theirs.
    public let shared: Bool
    public let people: [String]
    /// Its rules and size, as last fetched; whether a copy is kept (and so in force).
    public let rules: Int
    public let bytes: Int
    public let kept: Bool
    /// When it was last fetched or confirmed unchanged, and last changed (RFC 3339, wall clock).
    public let checked: String?
    public let changed: String?
    /// When it is fetched next (RFC 3339).
    public let next: String
    /// The last fetch's failure, while it lasts, and how many failed in a row.
    public let lastError: String?
    public let failures: Int
    /// Whether a fetch is under way.
    public let fetching: Bool

    /// `status` as the API shows it, with what the configuration gives the list as.
    public init(_ status: ListStatus, roles: [String], shared: Bool, people: [String], now: Date = Date()) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        name = status.name
        (self.roles, self.shared, self.people) = (roles, shared, people)
        (rules, bytes, kept) = (status.record.rules, status.record.bytes, status.kept)
        checked = status.record.checked.map(formatter.string)
        changed = status.record.changed.map(formatter.string)
        next = formatter.string(from: max(status.next, now))
        (lastError, failures, fetching) = (status.record.lastError, status.record.failures, status.fetching)
    }
}

/// `GET lists` and `POST lists/update`: the lists given by URL (files are not listed).
public struct ListsResponse: Codable, Sendable, Equatable {
    /// How often each is fetched again, in seconds (`[lists] refresh`).
    public let refreshSeconds: Int
    public let lists: [ListBody]

    public init(refreshSeconds: Int, lists: [ListBody]) {
        self.refreshSeconds = refreshSeconds
        self.lists = lists
    }
}

/// `POST lists/update`: the list to fetch now (its name or URL), or every list when absent.
public struct ListUpdateRequest: Codable, Sendable, Equatable {
    public let name: String?

    public init(name: String?) { self.name = name }
}
