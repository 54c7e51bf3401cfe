import ConfigKit

/// How lists given by URL are kept up to date (`[lists]`).
public struct ListSettings: Sendable, Equatable {
    /// How often each list is fetched again; each list's time is moved by up to a tenth of it, so
    /// that lists (and homes) do not all ask at once.
    public var refresh: Duration = .seconds(86_400)
    /// The largest list taken, as sent (compressed) and as read.
    public var maximumBytes = 64 << 20
    /// The longest a download may take, from the request to the last byte.
    public var timeout: Duration = .seconds(120)

    /// Every setting at its default.
    public static let defaults = ListSettings()
}

extension ListSettings: ConfigSection {
    public static let settings: [Setting<ListSettings>] = [
        .durationText(
            "refresh", \.refresh, seconds: 3_600...30 * 86_400, example: "1d", spokenRange: "1 hour to 30 days",
            "How often a list given by URL is fetched again ({range}; each list a little earlier or later, so that they do not all ask at once)."
        ),
        .byteSize(
            "max-size", \.maximumBytes, in: 1 << 20...1 << 30, example: "64MB", spokenRange: "1MB to 1GB",
            "The largest list taken ({range}); a larger one is refused and the copy kept before stays in force."),
        .durationText(
            "timeout", \.timeout, seconds: 5...3_600, example: "2m", spokenRange: "5 s to 1 hour",
            "The longest a download may take ({range})."),
    ]
}
