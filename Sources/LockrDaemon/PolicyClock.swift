import Foundation
import LockrPolicy

/// The daemon's source of policy time.
///
/// Policy time starts at the wall-clock time (or, if the clock now reads earlier, at the last time
/// the policy saw before a restart, so setting the clock back gains nothing) and then advances with
/// the boot-time clock, which counts suspended time and is never set. A wall-clock jump while running
/// therefore moves no window, budget or day boundary; it is only noticed (`wallOffset`) and logged.
/// `scale` speeds policy time up for demos and tests.
struct PolicyClock: Sendable {
    /// Reads a clock: the wall clock in milliseconds since 1970, or the boot clock in nanoseconds.
    typealias Source = @Sendable () -> Int64

    private let startPolicy: Int64
    private let startBoot: Int64
    private let startWall: Int64
    private let wall: Source
    private let boot: Source
    let scale: Double

    /// - Parameter startAt: where policy time starts instead of the wall clock (demos and tests); it
    ///   too never goes back behind `lastSeen`.
    init(
        resumingAfter lastSeen: Instant?, scale: Double, startAt: Instant? = nil,
        wall: @escaping Source = Self.wallMilliseconds, boot: @escaping Source = Self.bootNanoseconds
    ) {
        self.wall = wall
        self.boot = boot
        startWall = wall()
        let start = startAt?.milliseconds ?? startWall
        startPolicy = max(start, lastSeen?.milliseconds ?? start)
        startBoot = boot()
        self.scale = scale
    }

    func now() -> Instant {
        let elapsed = Double(boot() - startBoot) / 1_000_000 * scale
        return Instant(milliseconds: startPolicy + Int64(elapsed))
    }

    /// The policy time of a wall-clock moment shortly before now (a backend's query log entry).
    func instant(atWall date: Date) -> Instant {
        let ago = Double(wall()) - date.timeIntervalSince1970 * 1000
        return Instant(milliseconds: now().milliseconds - Int64(ago * scale))
    }

    /// The wall-clock time (ms since 1970) that policy time `instant` corresponds to, as this run
    /// has kept time (under `scale`, days past are nearer than they read).
    func wallMilliseconds(at instant: Instant) -> Int64 {
        wall() - Int64(Double((now() - instant).milliseconds) / scale)
    }

    /// How far the wall clock has moved against the boot clock since start, in real time. It stays
    /// near zero; a step in it is a jump of the wall clock.
    func wallOffset() -> Duration {
        .milliseconds((wall() - startWall) - (boot() - startBoot) / 1_000_000)
    }

    /// How far policy time is ahead of the wall clock (negative: behind).
    func drift() -> Duration { now() - Instant(milliseconds: wall()) }

    /// Real seconds for `duration` of policy time, rounded up.
    func realSeconds(_ duration: Duration) -> UInt32 {
        UInt32(clamping: Int64((Double(duration.milliseconds) / 1000 / scale).rounded(.up)))
    }

    /// The wall clock, milliseconds since 1970.
    static func wallMilliseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    static func bootNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
