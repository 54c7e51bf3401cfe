import ConfigKit
import DNSWire

/// How answers are cached (`[cache]`).
public struct CacheSettings: Sendable, Equatable {
    /// Most answers held; the least recently useful are evicted first.
    public var capacity: Int
    /// TTL bounds applied when answers are stored.
    public var bounds: TTLBounds
    /// How long past expiry an answer may still be served when every upstream fails (RFC 8767); 0 = off.
    public var staleSeconds: UInt32

    public init(capacity: Int = 10_000, bounds: TTLBounds = TTLBounds(), staleSeconds: UInt32 = 86_400) {
        self.capacity = capacity
        self.bounds = bounds
        self.staleSeconds = staleSeconds
    }
}

extension CacheSettings: ConfigSection {
    public static let settings: [Setting<CacheSettings>] = [
        .integer("size", \.capacity, in: 0...10_000_000, restartOnly: true, "answers kept (0: no cache)"),
        .integer("min-ttl", \.bounds.minimum, in: 0...86_400, "seconds an answer is kept at least"),
        .integer("max-ttl", \.bounds.maximum, in: 0...604_800, "seconds an answer is kept at most"),
        .integer("negative-max-ttl", \.bounds.negativeMaximum, in: 0...86_400, "at most, for NXDOMAIN and NODATA"),
        .integer(
            "serve-stale", \.staleSeconds, in: 0...604_800, restartOnly: true,
            "seconds past expiry an answer is still served while every upstream fails (0: never)"),
    ]

    public func problems() -> [ConfigProblem] {
        bounds.minimum > bounds.maximum ? [ConfigProblem(key: "min-ttl", "is larger than cache.max-ttl")] : []
    }
}
