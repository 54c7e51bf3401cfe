/// One key of a config file's section, declared beside the code it configures: its name, what it
/// does, how it is read onto the section's value (type, range, the words of its problems), how its
/// value is written in the file (the reference's defaults), and whether a running lockr takes it
/// only when it starts.
public struct Setting<Section: Sendable>: Sendable {
    public let key: String
    /// What it does, as the reference says it.
    public let summary: String
    /// A reload cannot apply it: the reload names it, and it applies at the next start.
    public let restartOnly: Bool
    /// What the reference shows, commented out, instead of the default, for a setting whose
    /// default depends on the machine (its cores, its user, its time zone).
    public private(set) var example: String?
    /// The values it takes, as the reference words them ("0-86400", "1 hour to 366 days"): what
    /// `{range}` in the summary stands for.
    public private(set) var range: String?
    private let readOnto: @Sendable (inout ConfigReader, String, inout Section) -> Void
    private let writes: @Sendable (Section) -> String
    private let same: @Sendable (Section, Section) -> Bool

    /// `key`, read by `read` (nil: absent or wrong, the problem noted) onto `path`, and written
    /// in the file as `write` says.
    public init<Value: Equatable & Sendable>(
        _ key: String, _ path: WritableKeyPath<Section, Value> & Sendable, restartOnly: Bool = false,
        _ summary: String, read: @escaping @Sendable (inout ConfigReader, String) -> Value?,
        write: @escaping @Sendable (Value) -> String
    ) {
        self.key = key
        self.summary = summary
        self.restartOnly = restartOnly
        readOnto = { reader, dottedKey, section in
            if let value = read(&reader, dottedKey) { section[keyPath: path] = value }
        }
        writes = { write($0[keyPath: path]) }
        same = { $0[keyPath: path] == $1[keyPath: path] }
    }

    /// `key`, read by `update` straight onto the section (for a setting that changes part of a
    /// value it shares with others, such as a calendar's time zone), written as `write` says and
    /// compared by `same`.
    public init(
        _ key: String, restartOnly: Bool = false, _ summary: String,
        update: @escaping @Sendable (inout ConfigReader, String, inout Section) -> Void,
        write: @escaping @Sendable (Section) -> String, same: @escaping @Sendable (Section, Section) -> Bool
    ) {
        self.key = key
        self.summary = summary
        self.restartOnly = restartOnly
        readOnto = update
        writes = write
        self.same = same
    }

    /// This setting with `range` as the words for the values it takes.
    func ranging(_ range: String) -> Setting {
        var ranging = self
        ranging.range = range
        return ranging
    }

    /// This setting shown in the reference as `example`, commented out, instead of its default.
    public func shown(as example: String) -> Setting {
        var shown = self
        shown.example = example
        return shown
    }

    /// This setting of a value that `path` reaches from `Outer` (the snooze's `minutes` of a
    /// person's whole policy).
    public func within<Outer: Sendable>(_ path: WritableKeyPath<Outer, Section> & Sendable) -> Setting<Outer> {
        let (readOnto, writes, same) = (self.readOnto, self.writes, self.same)
        var outer = Setting<Outer>(
            key, restartOnly: restartOnly, summary,
            update: { reader, key, outer in readOnto(&reader, key, &outer[keyPath: path]) },
            write: { writes($0[keyPath: path]) }, same: { same($0[keyPath: path], $1[keyPath: path]) })
        outer.example = example
        outer.range = range
        return outer
    }

    func read(_ reader: inout ConfigReader, _ dottedKey: String, onto section: inout Section) {
        readOnto(&reader, dottedKey, &section)
    }

    /// The setting's value in `section` as the file writes it (`10000`, `true`, `"7d"`).
    public func written(in section: Section) -> String { writes(section) }

    public func differs(between one: Section, and other: Section) -> Bool { !same(one, other) }
}

/// `text` as a string of the file (quoted, its quotes and backslashes escaped).
public func quotedConfigString(_ text: String) -> String {
    "\"" + text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
}

extension Setting {
    /// A whole number within `range`, held as `as` makes it (seconds as a `Duration`, say).
    public static func integer<Value: Equatable & Sendable>(
        _ key: String, _ path: WritableKeyPath<Section, Value> & Sendable, in range: ClosedRange<Int>,
        as make: @escaping @Sendable (Int) -> Value, shown: @escaping @Sendable (Value) -> Int,
        restartOnly: Bool = false, _ summary: String
    ) -> Setting {
        Setting(
            key, path, restartOnly: restartOnly, summary, read: { $0.integer($1, in: range).map(make) },
            write: { "\(shown($0))" }
        ).ranging("\(range.lowerBound)-\(range.upperBound)")
    }

    /// A whole number within `range`.
    public static func integer<Value: BinaryInteger & Sendable>(
        _ key: String, _ path: WritableKeyPath<Section, Value> & Sendable, in range: ClosedRange<Int>,
        restartOnly: Bool = false, _ summary: String
    ) -> Setting {
        integer(key, path, in: range, as: { Value($0) }, shown: { Int($0) }, restartOnly: restartOnly, summary)
    }

    /// A number of whole `unit`s (seconds, minutes) within `range`, held as a `Duration`.
    public static func duration(
        _ key: String, _ path: WritableKeyPath<Section, Duration> & Sendable, in range: ClosedRange<Int>,
        unit: Duration, restartOnly: Bool = false, _ summary: String
    ) -> Setting {
        integer(
            key, path, in: range, as: { unit * $0 }, shown: { Int($0 / unit) }, restartOnly: restartOnly, summary)
    }

    /// A duration written as people do ("7d", "90m"), within `range` seconds.
    public static func durationText(
        _ key: String, _ path: WritableKeyPath<Section, Duration> & Sendable, seconds range: ClosedRange<Int>,
        example: String, spokenRange: String, restartOnly: Bool = false, _ summary: String
    ) -> Setting {
        Setting(
            key, path, restartOnly: restartOnly, summary,
            read: { reader, key in
                reader.duration(key, seconds: range, example: example, spokenRange: spokenRange).map { .seconds($0) }
            },
            write: { "\"\(DurationText.written(seconds: Int($0.components.seconds)))\"" }
        ).ranging(spokenRange)
    }

    /// A size written as people do ("256MB"), within `range` bytes.
    public static func byteSize(
        _ key: String, _ path: WritableKeyPath<Section, Int> & Sendable, in range: ClosedRange<Int>,
        example: String, spokenRange: String, restartOnly: Bool = false, _ summary: String
    ) -> Setting {
        Setting(
            key, path, restartOnly: restartOnly, summary,
            read: { $0.byteSize($1, in: range, example: example, spokenRange: spokenRange) },
            write: { "\"\(ByteSizeText.written($0))\"" }
        ).ranging(spokenRange)
    }

    public static func bool(
        _ key: String, _ path: WritableKeyPath<Section, Bool> & Sendable, restartOnly: Bool = false,
        _ summary: String
    ) -> Setting {
        Setting(key, path, restartOnly: restartOnly, summary, read: { $0.bool($1) }, write: { "\($0)" })
    }

    /// One of `Choice`'s words.
    public static func choice<Choice: RawRepresentable & CaseIterable & Equatable & Sendable>(
        _ key: String, _ path: WritableKeyPath<Section, Choice> & Sendable, restartOnly: Bool = false,
        _ summary: String
    ) -> Setting where Choice.RawValue == String {
        Setting(
            key, path, restartOnly: restartOnly, summary, read: { $0.choice($1, as: Choice.self) },
            write: { "\"\($0.rawValue)\"" })
    }
}

/// A section of the config file (`[cache]`, `[snooze]`, ...), declared by the module it configures:
/// its settings, and what is wrong with it as a whole.
public protocol ConfigSection: Sendable {
    /// Its settings, in the order the reference lists them.
    static var settings: [Setting<Self>] { get }
    /// What is wrong with the section once read, beyond any one key (a minimum above a maximum);
    /// keys are the section's own ("min-ttl").
    func problems() -> [ConfigProblem]
}

extension ConfigSection {
    public func problems() -> [ConfigProblem] { [] }

    /// Its keys.
    public static var keys: Set<String> { Set(settings.map(\.key)) }

}

/// A section of the file as a part of a larger value (`[time]` and `[hourly]` of a person's
/// `PolicySettings`, `[cache]` of the daemon's whole configuration): its name (empty: the file's
/// top level), its settings over that value, and what is wrong with it as a whole.
public struct SectionDeclaration<Root: Sendable>: Sendable {
    public let name: String
    public let settings: [Setting<Root>]
    private let check: @Sendable (Root) -> [ConfigProblem]

    public init(
        _ name: String, _ settings: [Setting<Root>], check: @escaping @Sendable (Root) -> [ConfigProblem] = { _ in [] }
    ) {
        self.name = name
        self.settings = settings
        self.check = check
    }

    /// `Section`'s own declaration, as the part of `Root` at `path`.
    public init<Section: ConfigSection>(_ name: String, _ path: WritableKeyPath<Root, Section> & Sendable) {
        self.init(name, Section.settings.map { $0.within(path) }, check: { $0[keyPath: path].problems() })
    }

    /// This section as a part of `Outer` at `path` (a person's policy within the configuration).
    public func within<Outer: Sendable>(_ path: WritableKeyPath<Outer, Root> & Sendable) -> SectionDeclaration<Outer> {
        let check = self.check
        return SectionDeclaration<Outer>(name, settings.map { $0.within(path) }, check: { check($0[keyPath: path]) })
    }

    /// This section with `more` settings after its own.
    public func adding(_ more: [Setting<Root>]) -> SectionDeclaration {
        SectionDeclaration(name, settings + more, check: check)
    }

    public var keys: Set<String> { Set(settings.map(\.key)) }

    /// The dotted key of `key` in this section under `prefix` ("people.kid.").
    public func dotted(_ key: String, under prefix: String = "") -> String {
        prefix + (name.isEmpty ? key : "\(name).\(key)")
    }

    /// The keys of the settings that need a restart whose values differ between `one` and `other`.
    public func restartOnlyChanges(from one: Root, to other: Root) -> [String] {
        settings.filter { $0.restartOnly && $0.differs(between: one, and: other) }.map { dotted($0.key) }
    }
}

extension ConfigReader {
    /// `section` read onto `value` under `prefix` ("" or "people.kid."), then checked as a whole.
    /// Keys the section does not declare are the caller's to report.
    public mutating func read<Root>(_ value: inout Root, _ section: SectionDeclaration<Root>, under prefix: String = "")
    {
        for setting in section.settings {
            setting.read(&self, section.dotted(setting.key, under: prefix), onto: &value)
        }
        for found in section.problems(of: value) {
            problem(found.key.map { section.dotted($0, under: prefix) } ?? prefix + section.name, found.message)
        }
    }
}

extension SectionDeclaration {
    func problems(of value: Root) -> [ConfigProblem] { check(value) }
}
