import Foundation
import LockrAPI
import PlainText

/// A person's own filter and safe search on their admin page: the entries in force, and the
/// choices of the forms that change them.
struct AdminFilters {
    let entries: [Row]
    let hasEntries: Bool
    let searchEngines: Bool
    let youtube: [AdminPersonPage.Choice]
    let safeSearchText: String
    let kinds: [AdminPersonPage.Choice]
    let matches: [AdminPersonPage.Choice]

    struct Row {
        let kind: String
        let value: String
        let comment: String
        /// What the remove form sends: "KIND VALUE".
        let key: String
    }

    /// How a rule typed in the form covers names, as the form offers it.
    enum Match: String, CaseIterable {
        case domain, name, subdomains, regex

        var label: String {
            switch self {
            case .domain: "the name and its subdomains"
            case .name: "the name only"
            case .subdomains: "its subdomains only"
            case .regex: "a regular expression"
            }
        }

        /// `value` written as the list line that covers what this says.
        func rule(_ value: String) -> String {
            let value = value.trimmed
            switch self {
            case .domain: return value
            case .name: return "|\(value)^"
            case .subdomains: return "*.\(value)"
            case .regex: return value.hasPrefix("/") && value.hasSuffix("/") && value.count > 1 ? value : "/\(value)/"
            }
        }
    }

    init(_ filters: Components.Schemas.FiltersResponse) {
        entries = filters.entries.map { entry in
            Row(
                kind: entry.kind.rawValue, value: entry.value, comment: entry.comment,
                key: "\(entry.kind.rawValue) \(entry.value)")
        }
        hasEntries = !entries.isEmpty
        searchEngines = filters.safeSearch
        let level = filters.youtube.rawValue
        youtube = ["off", "moderate", "strict"].map { AdminPersonPage.Choice(value: $0, selected: $0 == level) }
        let parts = [filters.safeSearch ? "search engines" : nil, level == "off" ? nil : "YouTube \(level)"]
        let words = parts.compactMap { $0 }.joined(separator: ", ")
        safeSearchText = words.isEmpty ? "off" : words
        kinds = [
            AdminPersonPage.Choice(value: "deny", label: "deny (block)", selected: true),
            AdminPersonPage.Choice(value: "allow", label: "allow", selected: false),
        ]
        matches = Match.allCases.map {
            AdminPersonPage.Choice(value: $0.rawValue, label: $0.label, selected: $0 == .domain)
        }
    }
}

/// The lists given by URL in the admin view: how each is fetched, who uses it, and the forms that
/// add one for a person and fetch them again.
struct AdminListsPage {
    let csrf: String
    let error: String?
    let lists: [Row]
    let hasLists: Bool
    let people: [AdminPersonPage.Choice]
    let refresh: String

    struct Row {
        let name: String
        let use: String
        let rules: String
        let state: String
        let next: String
        let failed: Bool
    }

    init(_ response: Components.Schemas.ListsResponse, people: [String], csrf: String, error: String? = nil) {
        self.csrf = csrf
        self.error = error
        lists = response.lists.map { list in
            let whose = (list.shared ? ["everyone"] : []) + list.people
            let use = list.roles.map(\.rawValue).joined(separator: " and ") + " for " + whose.joined(separator: ", ")
            var state = list.checked.map { "fetched \(Self.time($0))" } ?? "never fetched"
            if list.fetching { state = "fetching now" }
            if let error = list.lastError {
                state += "; last fetch failed: \(error)" + (list.kept ? " (the copy kept stays in force)" : "")
            }
            return Row(
                name: list.name, use: use, rules: list.kept ? "\(list.rules)" : "none yet", state: state,
                next: Self.time(list.next), failed: list.lastError != nil)
        }
        hasLists = !lists.isEmpty
        self.people = people.map { AdminPersonPage.Choice(value: $0, selected: false) }
        let hours = response.refreshSeconds / 3600
        refresh = hours >= 1 ? "every \(hours) h" : "every \(response.refreshSeconds / 60) min"
    }

    /// "2026-06-01 10:00:00", UTC.
    private static func time(_ date: Date) -> String {
        String(date.formatted(.iso8601).prefix(19)).replacing("T", with: " ") + " UTC"
    }
}

/// The home's own names in the admin view: every local record (the config file's marked, as they
/// are changed there) and the form that adds one.
struct AdminNamesPage {
    let csrf: String
    let error: String?
    let records: [Row]
    let hasRecords: Bool
    let hostsFiles: String
    let hasHostsFiles: Bool
    let types = ["A", "AAAA", "CNAME", "PTR", "TXT"]

    struct Row {
        let record: String
        let comment: String
        let fromConfig: Bool
    }

    init(_ response: Components.Schemas.LocalRecordsResponse, csrf: String, error: String? = nil) {
        self.csrf = csrf
        self.error = error
        records = response.records.map { Row(record: $0.record, comment: $0.comment, fromConfig: $0.source == .config) }
        hasRecords = !records.isEmpty
        hostsFiles = response.hostsFiles.joined(separator: ", ")
        hasHostsFiles = !response.hostsFiles.isEmpty
    }
}
