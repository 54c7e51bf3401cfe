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
        case .badName(let name): "'\(name)' is not a time zone name (such as Europe/Berlin)"
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

    /// The machine's own zone (`current()` of the database), read once.
    public static let systemZone = ZoneDatabase().current()

    /// The zone named `identifier` ("Europe/Berlin", "UTC").
    public func zone(_ identifier: String) throws(ZoneLookupError) -> ZoneRules {
        guard Self.isZoneName(identifier) else { throw .badName(identifier) }
        guard let bytes = Self.contents(of: directory + "/" + identifier) else {
            if ["UTC", "GMT", "Etc/UTC", "Etc/GMT"].contains(identifier) { return .utc }
            throw .unknown(identifier, directory: directory)
        }
        do {
            return try ZoneRules(identifier: identifier, tzif: bytes)
        } catch {
            throw .unreadable(identifier, error)
        }
    }

    /// The machine's own zone: `$TZ` when it names a zone, else what /etc/localtime links to,
    /// else /etc/timezone, else UTC.
    public func current() -> ZoneRules {
        if var name = Self.environment("TZ"), !name.isEmpty {
            if name.hasPrefix(":") { name.removeFirst() }
            if let marker = name.firstRange(of: "zoneinfo/") { name = String(name[marker.upperBound...]) }
            if let zone = try? zone(name) { return zone }
        }
        if let target = Self.linkTarget("/etc/localtime"), let marker = target.firstRange(of: "zoneinfo/"),
            let zone = try? zone(String(target[marker.upperBound...]))
        {
            return zone
        }
        if let bytes = Self.contents(of: "/etc/timezone") {
            let name = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(
                String.init)
            if let name, let zone = try? zone(name) { return zone }
        }
        return .utc
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

    private static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

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
