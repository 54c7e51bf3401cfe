import ConfigKit
import DNSProxy

/// The query log's settings (`[query-log]`).
public struct QueryLogSettings: Sendable, Equatable {
    /// Whether answered queries are logged at all.
    public var enabled = true
    /// How long each query is kept; the daily counts stay.
    public var retention: Duration = .seconds(7 * 86_400)
    /// The default person's level, and every person's who sets none.
    public var privacy: QueryLogPrivacy = .full
    /// The most the log's database holds; past it the oldest queries go first.
    public var maximumBytes = 256 << 20

    public init() {}
}

extension QueryLogSettings: ConfigSection {
    public static let settings: [Setting<QueryLogSettings>] = [
        .bool(
            "enabled", \.enabled, restartOnly: true,
            "Log answered queries to queries.sqlite in the state directory (see \"The query log\" in observing.md)."),
        .durationText(
            "retention", \.retention, seconds: 3_600...366 * 86_400, example: "7d", spokenRange: "1 hour to 366 days",
            restartOnly: true, "How long each query is kept ({range}); the hourly counts stay 400 days."),
        Setting(
            "privacy", \.privacy,
            "full (every query), apps (only the names of apps; other queries are counted) or counts (no names, no devices). A person's [people.NAME.query-log] privacy overrides it.",
            read: { $0.queryLogPrivacy($1) }, write: { "\"\($0.rawValue)\"" }),
        .byteSize(
            "max-size", \.maximumBytes, in: 1 << 20...1 << 40, example: "256MB", spokenRange: "1MB to 1TB",
            restartOnly: true, "The most the log's database holds ({range}); past it the oldest queries go first."),
    ]
}

extension ConfigReader {
    /// A privacy level of the query log, with what each one keeps said when it is none.
    mutating func queryLogPrivacy(_ key: String) -> QueryLogPrivacy? {
        guard let value = string(key) else { return nil }
        guard let level = QueryLogPrivacy(rawValue: value) else {
            problem(
                key, "expected full (every query), apps (only the names of apps) or counts (no names), not '\(value)'")
            return nil
        }
        return level
    }
}
