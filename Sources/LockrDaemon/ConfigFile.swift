import ConfigKit

/// One thing wrong in a config file, located by line and key.
public struct ConfigIssue: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line, when known.
    public let line: Int?
    /// Dotted key ("cache.size"), when the problem belongs to one.
    public let key: String?
    public let message: String

    public var description: String {
        var parts: [String] = []
        if let line { parts.append("line \(line)") }
        if let key { parts.append("key '\(key)'") }
        parts.append(message)
        return parts.joined(separator: ": ")
    }
}

/// Every issue found in a config file.
public struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let issues: [ConfigIssue]
    public var description: String { issues.map { "\(path): \($0)" }.joined(separator: "\n") }
}

/// Reads lockr's TOML config file onto a configuration, reporting every problem at once.
///
/// The keys, their types and defaults are documented in docs/configuration.md.
public enum ConfigFile {
    /// Applies the settings of `text` to `base`.
    public static func parse(
        _ text: String, path: String, onto base: LockrConfiguration = LockrConfiguration()
    )
        throws(ConfigErrors) -> LockrConfiguration
    {
        let document = try TOMLConfig.read(text, path: path)
        var reader = ConfigReader(table: document.table)
        var config = base
        reader.apply(to: &config)
        guard reader.problems.isEmpty else {
            let issues = reader.problems.map {
                ConfigIssue(line: $0.key.flatMap { document.lines[$0] }, key: $0.key, message: $0.message)
            }
            throw ConfigErrors(path: path, issues: issues.sorted { ($0.line ?? 0) < ($1.line ?? 0) })
        }
        return config
    }
}

extension ConfigFile {
    /// The `state-dir` a config file names, if any, without checking the rest of it (the CLI needs
    /// only this to find the daemon). Fails only when the file is not TOML or the key not a string.
    public static func stateDirectory(in text: String, path: String) throws(ConfigErrors) -> String? {
        let document = try TOMLConfig.read(text, path: path)
        guard let value = document.table["state-dir"] else { return nil }
        guard let directory = value.string else {
            throw ConfigErrors(
                path: path,
                issues: [
                    ConfigIssue(
                        line: document.lines["state-dir"], key: "state-dir", message: "expected a string"
                    )
                ])
        }
        return directory
    }

    /// The reference's commented examples of the tables of names (apps, people, schedules, profiles)
    /// and of `[[forward]]`.
    static let tablesOfNames = """
        # Apps defined here: id = [domain rules]. Guard them by id like catalogue apps.
        # [apps]
        # news = ["news.ycombinator.com", "lobste.rs"]

        # People (see "A household" in household.md): their devices (MAC addresses, addresses, networks, id:CLIENTID), lists of their
        # own on top of the shared ones, and any of guard, always-allow, [policy], [time], [hourly],
        # [extreme], [snooze], [extend], [emergency], [puzzles] and [query-log] privacy of their own; what
        # they leave out is the top level's. Every other device is the default person's.
        # [people.alice]
        # devices = ["aa:bb:cc:dd:ee:ff", "192.168.1.20", "fd00:1::/64", "id:alice-phone"]
        # blocklists = ["/etc/lockr/adult.txt"]
        # allowlists = []
        # guard = ["tiktok", "instagram"]
        # [people.alice.time]
        # budget-minutes = 45

        # Schedules (see "Schedules and profiles" in household.md): the default person's, and everyone's who has none of
        # their own ([people.NAME.schedules.NAME]). days: mon-fri, sat,sun, daily (the default), weekdays.
        # [schedules.bedtime]
        # days = "mon-fri"
        # from = "22:00"
        # to = "07:00"
        # block = ["social", "tiktok"]

        # Profiles everyone may switch on ([people.NAME.profiles.NAME] are one person's).
        # [profiles.work]
        # block = ["social", "video"]

        # Names of the home's own domains, and all names under them, go to these servers instead of
        # the upstreams (see "The home's own names" in dns.md): the router's DNS knows the names its
        # DHCP handed out. The longest domain that covers a name wins. Servers: "ADDR" (port 53) or
        # "ADDR:PORT".
        # [[forward]]
        # domains = ["lan", "home.arpa", "168.192.in-addr.arpa"]
        # servers = ["192.168.1.1"]
        """

    /// Every key lockr reads, dotted ("cache.size"), tables excluded.
    static var knownKeys: [String] {
        ConfigReader.topLevel.filter {
            ConfigReader.sections[$0] == nil && !["apps", "people", "schedules", "profiles", "forward"].contains($0)
        }
            + ConfigReader.sections.flatMap { section, keys in keys.map { "\(section).\($0)" } }
    }
}
