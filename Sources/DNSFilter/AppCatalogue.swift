import DNSWire

/// One app of the catalogue: who it is and the domains it uses.
public struct App: Sendable {
    /// Short id used in config and on the command line ("instagram").
    public let id: String
    /// Name shown to people ("Instagram").
    public let name: String
    /// A coarse kind: social, video, games, messaging, ...
    public let group: String
    /// The app's domain rules, ready for lookups.
    public let rules: RuleSet
    /// The rules as written, to combine them with other apps' (see `GuardSet`).
    public let ruleText: [UInt8]
    /// The block rules one by one, for other blockers (the adapters).
    public let domainRules: [DomainRule]
    /// The file it was read from, or where it was defined.
    public let path: String

    /// Parses an app's rules (any format `RuleListParser` reads). The first bad line, or having no
    /// rule at all, is an error naming `path`.
    public init(id: String, name: String, group: String, ruleText: [UInt8], path: String) throws(CatalogueError) {
        var builder = RuleSetBuilder()
        builder.keepsBlockRules = true
        let source = builder.addSource("app:\(id)")
        let report = RuleListParser.parse(ruleText, role: .block, source: source, into: &builder)
        if let issue = report.issues.first { throw CatalogueError(path: path, reason: issue.description) }
        guard report.rules > 0 else { throw CatalogueError(path: path, reason: "no domain rules") }
        self.id = id
        self.name = name
        self.group = group
        self.domainRules = builder.keptBlockRules
        self.rules = builder.build()
        self.ruleText = ruleText
        self.path = path
    }
}

/// A catalogue file that cannot be used.
public struct CatalogueError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "\(path): \(reason)" }
}

/// The apps lockr knows, read from a directory with one `<id>.txt` file per app.
///
/// A file starts with a header of `# key: value` lines (`id`, `name`, `group`; the id must match the
/// file name), followed by rules in any format `RuleListParser` reads. `blocklists/README.md`
/// documents the format.
public struct AppCatalogue: Sendable {
    public let apps: [String: App]

    public init(apps: [App]) {
        self.apps = Dictionary(apps.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads every `*.txt` file of `directory`. Any bad file makes the whole catalogue fail, so that a
    /// broken app list is never silently missing.
    public static func load(directory: String, fileNames: [String]) throws(CatalogueError) -> AppCatalogue {
        var apps: [App] = []
        for fileName in fileNames.sorted() where fileName.hasSuffix(".txt") {
            let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
            apps.append(try loadApp(path: path, expectedID: String(fileName.dropLast(4))))
        }
        return AppCatalogue(apps: apps)
    }

    static func loadApp(path: String, expectedID: String) throws(CatalogueError) -> App {
        let bytes: [UInt8]
        do { bytes = try readFileBytes(path) } catch { throw CatalogueError(path: path, reason: error.reason) }
        let header = Self.header(of: bytes)
        guard let id = header["id"] else { throw CatalogueError(path: path, reason: "missing '# id:' header line") }
        guard id == expectedID else {
            throw CatalogueError(path: path, reason: "id '\(id)' does not match the file name '\(expectedID).txt'")
        }
        guard let name = header["name"] else {
            throw CatalogueError(path: path, reason: "missing '# name:' header line")
        }
        guard let group = header["group"] else {
            throw CatalogueError(path: path, reason: "missing '# group:' header line")
        }
        return try App(id: id, name: name, group: group, ruleText: bytes, path: path)
    }

    /// The `# key: value` lines at the top of a file, before the first rule.
    private static func header(of bytes: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: " \t\r")
            if text.isEmpty { continue }
            guard text.hasPrefix("#") else { break }
            let body = text.dropFirst().trimmingCharacters(in: " \t")
            guard let colon = body.firstIndex(of: ":") else { continue }
            let key = body[..<colon].trimmingCharacters(in: " \t").lowercased()
            let value = body[body.index(after: colon)...].trimmingCharacters(in: " \t")
            if !key.isEmpty, !key.contains(" "), fields[key] == nil { fields[key] = value }
        }
        return fields
    }

    /// The first app whose rules cover `name`, if any.
    public func app(covering name: String) -> App? {
        apps.values.sorted { $0.id < $1.id }.first { app in app.rules.hit(name: name)?.isBlock == true }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        var view = Substring(self)
        while let first = view.first, characters.contains(first) { view = view.dropFirst() }
        while let last = view.last, characters.contains(last) { view = view.dropLast() }
        return String(view)
    }
}
