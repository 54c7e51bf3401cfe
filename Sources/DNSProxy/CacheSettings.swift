import ConfigKit
import DNSWire

/// How answers are cached (`[cache]`).
public struct CacheSettings: Sendable, Equatable {
    /// Most answers held; the least recently useful are evicted first.
    public var capacity: Int = 10_000
    /// TTL bounds applied when answers are stored.
    public var bounds: TTLBounds = TTLBounds()
    /// How long past expiry an answer may still be served when every upstream fails (RFC 8767); 0 = off.
    public var staleSeconds: UInt32 = 86_400

    /// Every setting at its default.
    public static let defaults = CacheSettings()
}

extension CacheSettings: ConfigSection {
    public static let settings: [Setting<CacheSettings>] = [
        .integer("size", \.capacity, in: 0...10_000_000, restartOnly: true, "Most answers held ({range})."),
        .integer("min-ttl", \.bounds.minimum, in: 0...86_400, "Lower bound on the TTL of stored records, seconds."),
        .integer("max-ttl", \.bounds.maximum, in: 0...604_800, "Upper bound on the TTL of stored records, seconds."),
        .integer(
            "negative-max-ttl", \.bounds.negativeMaximum, in: 0...86_400,
            "Upper bound for NXDOMAIN and NODATA answers, seconds."),
        .integer(
            "serve-stale", \.staleSeconds, in: 0...604_800, restartOnly: true,
            "How long past expiry an answer may be served when every upstream fails, seconds; 0 turns serve-stale off."),
    ]

    public func problems() -> [ConfigProblem] {
        bounds.minimum > bounds.maximum ? [ConfigProblem(key: "min-ttl", "is larger than cache.max-ttl")] : []
    }
}
