/// A run of days in a row: the one that reaches the newest day, and the longest.
public struct Run: Sendable, Equatable {
    public var current = 0
    public var best = 0

    public init(current: Int = 0, best: Int = 0) {
        self.current = current
        self.best = best
    }
}

/// Streaks over a person's days: days whose limits held (no snooze, extension or emergency) and
/// days without an emergency. Days follow one another when one ends where the next starts (a DST
/// day is as long as it is); a day lockr has no record of breaks every run, as lockr cannot say
/// what happened on it. The newest day counts while it holds, even before it ends.
public struct Streaks: Sendable, Equatable {
    public var heldLimits = Run()
    public var withoutEmergency = Run()

    /// - Parameter days: oldest first.
    public init(days: [DayRecord]) {
        var previous: DayRecord?
        for day in days {
            let follows = previous.map { $0.day.end == day.day.start } ?? true
            Self.extend(&heldLimits, follows: follows, holds: day.heldLimits)
            Self.extend(&withoutEmergency, follows: follows, holds: day.emergencies == 0)
            previous = day
        }
    }

    private static func extend(_ run: inout Run, follows: Bool, holds: Bool) {
        run.current = holds ? (follows ? run.current + 1 : 1) : 0
        run.best = max(run.best, run.current)
    }
}
