#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a time zone cannot be had.
public enum ZoneLookupError: Error, Equatable, CustomStringConvertible {
    /// Not a name of the time zone database ("Europe/Berlin").
    case badName(String)
    /// No such zone in the database.
    case unknown(String, directory: String)
    /// The zone's file is not one lockr can read.
    case unreadable(String, TZifError)

    public var description: String {
        switch self {
        case .badName(let name):
            "'\(name)' is not a time zone name (such as Europe/Berlin) or a POSIX TZ rule (such as CET-1CEST,M3.5.0,M10.5.0/3)"
        case .unknown(let name, let directory):
            "unknown time zone '\(name)' (not in \(directory); use a name such as Europe/Berlin)"
        case .unreadable(let name, let error): "the time zone file of '\(name)' cannot be used: \(error)"
        }
    }
}

/// The system's time zone database: the TZif files under /usr/share/zoneinfo (or `$TZDIR`).
public struct ZoneDatabase: Sendable {
    public let directory: String

    /// The database at `directory`; by default `$TZDIR`, else /usr/share/zoneinfo.
    public init(directory: String? = nil) {
        self.directory =
            directory ?? Self.environment("TZDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
    }

    /// The machine's own zone and what named it, read once.
    public static let machineZone = ZoneDatabase().zoneOfMachine()

    /// The machine's own zone, read once.
    public static var systemZone: ZoneRules { machineZone.rules }

    /// The zone named `identifier`: a name in the database ("Europe/Berlin", "UTC"), or a POSIX `TZ`
    /// rule ("CET-1CEST,M3.5.0,M10.5.0/3", what OpenWrt's /etc/TZ holds) for a machine without the
    /// database.
    public func zone(_ identifier: String) throws(ZoneLookupError) -> ZoneRules {
        guard Self.isZoneName(identifier) else {
            guard let rule = PosixZoneRule(identifier) else { throw .badName(identifier) }
            return ZoneRules(rule: rule)
        }
        guard let bytes = Self.contents(of: directory + "/" + identifier) else {
            if ["UTC", "GMT", "Etc/UTC", "Etc/GMT"].contains(identifier) { return .utc }
            if let rule = PosixZoneRule(identifier) { return ZoneRules(rule: rule) }
            throw .unknown(identifier, directory: directory)
        }
        do {
            return try ZoneRules(identifier: identifier, tzif: bytes)
        } catch {
            throw .unreadable(identifier, error)
        }
    }

    /// The machine's own zone, from the first of `sources` that names one, else UTC: `$TZ` (a name,
    /// a path into the database or a POSIX rule), the zone /etc/localtime links to, the name in
    /// /etc/timezone, the rule in the footer of a copied /etc/localtime, the rule in /etc/TZ.
    public func zoneOfMachine(_ sources: SystemZoneSources = .machine) -> MachineZone {
        if var name = sources.tz, !name.isEmpty {
            if name.hasPrefix(":") { name.removeFirst() }
            if let marker = name.firstRange(of: "zoneinfo/") { name = String(name[marker.upperBound...]) }
            if let zone = try? zone(name) { return MachineZone(rules: zone, namedBy: "$TZ") }
        }
        if let target = Self.linkTarget(sources.localtime), let marker = target.firstRange(of: "zoneinfo/"),
            let zone = try? zone(String(target[marker.upperBound...]))
        {
            return MachineZone(rules: zone, namedBy: sources.localtime)
        }
        if let name = Self.firstWord(of: sources.timezoneName), let zone = try? zone(name) {
            return MachineZone(rules: zone, namedBy: sources.timezoneName)
        }
        if let bytes = Self.contents(of: sources.localtime),
            let footer = (try? ZoneRules(identifier: sources.localtime, tzif: bytes))?.footer
        {
            return MachineZone(rules: ZoneRules(rule: footer), namedBy: sources.localtime)
        }
        if let rule = Self.firstWord(of: sources.rule), let zone = try? zone(rule) {
            return MachineZone(rules: zone, namedBy: sources.rule)
        }
        return MachineZone(rules: .utc, namedBy: nil)
    }

    /// Letters, digits, `_`, `+`, `-` in parts joined by `/`; no part `.` or `..`.
    static func isZoneName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return !name.isEmpty && name.utf8.count <= 255
            && parts.allSatisfy { part in
                !part.isEmpty && part != "." && part != ".." && part.first != "-"
                    && part.utf8.allSatisfy { byte in
                        (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                            || [UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-")].contains(byte)
                    }
            }
    }

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

    /// The first word of a small file; nil if there is none.
    private static func firstWord(of path: String) -> String? {
        guard let bytes = contents(of: path) else { return nil }
        return String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init)
    }

    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4_096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A regular file's bytes, at most 1 MiB; nil if it cannot be read.
    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size <= 1 << 20 else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
            guard count > 0 else { return nil }
            filled += count
        }
        return bytes
    }
}

/// A machine's own time zone, and what named it.
public struct MachineZone: Sendable {
    public let rules: ZoneRules
    /// Where its name came from: "$TZ", or the file; nil when nothing names one and it is UTC.
    public let namedBy: String?

    public init(rules: ZoneRules, namedBy: String?) {
        self.rules = rules
        self.namedBy = namedBy
    }
}

/// Where a machine says which time zone it is in (`ZoneDatabase.zoneOfMachine`): tests give their own.
public struct SystemZoneSources: Sendable {
    /// `$TZ`.
    public var tz: String?
    /// A link into the database, or a copy of a zone's file: /etc/localtime.
    public var localtime: String
    /// A file with the zone's name, as Debian keeps it: /etc/timezone.
    public var timezoneName: String
    /// A file with a POSIX rule, as OpenWrt keeps it: /etc/TZ.
    public var rule: String

    public init(tz: String?, localtime: String, timezoneName: String, rule: String) {
        self.tz = tz
        self.localtime = localtime
        self.timezoneName = timezoneName
        self.rule = rule
    }

    /// This machine's.
    public static var machine: Self {
        Self(
            tz: ZoneDatabase.environment("TZ"), localtime: "/etc/localtime", timezoneName: "/etc/timezone",
            rule: "/etc/TZ")
    }
}
