import Foundation

/// A point in policy time: milliseconds since 1970-01-01 UTC.
///
/// Policy time reads like wall time but is never read from a clock inside this module: the daemon
/// derives it from a monotonic clock (so wall-clock jumps do not move it) and passes it in.
public struct Instant: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public init(_ date: Date) { milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// Whole seconds since 1970-01-01 UTC, rounded down.
    public var wholeSeconds: Int64 { milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000 }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public static func + (lhs: Instant, rhs: Duration) -> Instant {
        Instant(milliseconds: lhs.milliseconds + rhs.milliseconds)
    }

    public static func - (lhs: Instant, rhs: Duration) -> Instant {
        Instant(milliseconds: lhs.milliseconds - rhs.milliseconds)
    }

    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        .milliseconds(lhs.milliseconds - rhs.milliseconds)
    }

    /// ISO 8601 in UTC, for logs and JSON.
    public var description: String { date.formatted(.iso8601) }
}

extension Duration {
    /// Whole milliseconds (sub-millisecond parts are dropped).
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// Whole seconds, rounded up: what a person should wait, or a TTL that must not end early.
    public var secondsRoundedUp: Int64 {
        let ms = milliseconds
        return ms <= 0 ? 0 : (ms + 999) / 1000
    }

    /// Time used as a person reads it, the same in the CLI, the pages and the stats: seconds below a
    /// minute, else whole minutes rounded down (so that used and left add up to the budget).
    public var spokenAsUse: String {
        let seconds = max(milliseconds / 1000, 0)
        if seconds < 60 { return "\(seconds) s" }
        let minutes = seconds / 60
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// "45 s", "12 min", "1 h 5 min": a span as a person reads it, rounded up to the unit shown.
    public var spoken: String {
        let seconds = secondsRoundedUp
        if seconds < 60 { return "\(seconds) s" }
        let minutes = (seconds + 59) / 60
        if minutes < 60 { return "\(minutes) min" }
        let rest = minutes % 60
        return rest == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(rest) min"
    }
}
