/// Who may enter the settings PIN, and when. Wrong entries are counted per entrant (the address a
/// device or the control API's caller enters it from), so that one device guessing locks out only
/// itself and the parent still gets in from another; and household-wide, so that guessing from many
/// devices stays under one ceiling: past `householdCeiling` wrong entries in a row, anyone's next try
/// waits a while after each wrong one (a minute, doubling, at most ten), whoever makes it.
public struct PinLockouts: Sendable, Equatable, Codable {
    /// One entrant's wrong entries since its last right one.
    public struct Entrant: Sendable, Equatable, Codable {
        public var failures = 0
        public var lockedUntil: Instant?
        public var lastFailure: Instant
    }

    /// Each entrant with a wrong entry since its last right one (at most `remembered`).
    public private(set) var entrants: [String: Entrant] = [:]
    /// Wrong entries in a row, household-wide: a right one from anyone ends the row.
    public private(set) var failures = 0
    /// Past the ceiling: no entry from anyone before this.
    public private(set) var householdUntil: Instant?
    /// Entries being checked now, by entrant (between `begin` and `note`): not stored, as a
    /// restart ends every check.
    private var entering: [String: Int] = [:]

    private enum CodingKeys: String, CodingKey {
        case entrants, failures, householdUntil
    }

    /// Wrong entries an entrant has before its own lockouts start.
    public static let freeFailures = 5
    /// Wrong entries in a row, household-wide, before every try waits.
    public static let householdCeiling = 20
    /// Entrants remembered; the one whose last wrong entry is oldest and whose lockout is over is
    /// forgotten first (it then counts from nothing again, under the household's ceiling).
    static let remembered = 256

    public init() {}

    /// A count carried over from a lockr that counted household-wide only.
    init(householdFailures: Int, until: Instant?) {
        failures = householdFailures
        householdUntil = until
    }

    /// An entrant's lockout after `failures` wrong entries in a row: none before the 5th, then 30 s
    /// doubling with each further one, up to an hour.
    public static func lockout(afterFailures failures: Int) -> Duration? {
        guard failures >= freeFailures else { return nil }
        let doublings = min(failures - freeFailures, 7)
        return min(.seconds(30 * (1 << doublings)), .seconds(3600))
    }

    /// The household's wait after `failures` wrong entries in a row: none up to the ceiling, then
    /// a minute doubling with each further one, up to ten.
    public static func householdWait(afterFailures failures: Int) -> Duration? {
        guard failures > householdCeiling else { return nil }
        let doublings = min(failures - householdCeiling - 1, 4)
        return min(.seconds(60 * (1 << doublings)), .seconds(600))
    }

    /// Why `entrant` may not enter the PIN at `now`: how long it still waits and the wrong entries
    /// behind it; nil when it may.
    public func wait(for entrant: String, at now: Instant) -> (remaining: Duration, failures: Int)? {
        if let own = entrants[entrant], let until = own.lockedUntil, now < until {
            return (until - now, own.failures)
        }
        if let until = householdUntil, now < until { return (until - now, failures) }
        return nil
    }

    /// Starts checking an entry of `entrant` at `now`, unless it must wait: its own lockout or the
    /// household's, or (as entries sent at once are checked side by side) another entry of it being
    /// checked that, were both wrong, would reach a lockout; so that no number of entries sent at
    /// once checks more than the lockouts allow. Each begun entry is ended by `note`.
    public mutating func begin(_ entrant: String, at now: Instant) -> (remaining: Duration, failures: Int)? {
        if let wait = wait(for: entrant, at: now) { return wait }
        let own = failures(of: entrant)
        let ownUnderWay = entering[entrant] ?? 0
        let allUnderWay = entering.values.reduce(0, +)
        if ownUnderWay > 0, own + ownUnderWay >= Self.freeFailures { return (Self.oneAtATime, own) }
        if allUnderWay > 0, failures + allUnderWay >= Self.householdCeiling { return (Self.oneAtATime, failures) }
        entering[entrant, default: 0] += 1
        return nil
    }

    /// How long an entry waits for another of the same entrant being checked.
    static let oneAtATime: Duration = .seconds(1)

    /// The wrong entries in a row of `entrant`.
    public func failures(of entrant: String) -> Int { entrants[entrant]?.failures ?? 0 }

    /// Counts an entry of `entrant`: a right one clears its count and the household's; a wrong one
    /// adds to both and may start a lockout. Returns how long the entrant now waits, if it does.
    @discardableResult
    public mutating func note(correct: Bool, by entrant: String, at now: Instant) -> Duration? {
        if let underWay = entering[entrant] { entering[entrant] = underWay > 1 ? underWay - 1 : nil }
        guard !correct else {
            entrants[entrant] = nil
            failures = 0
            householdUntil = nil
            return nil
        }
        var record = entrants[entrant] ?? Entrant(lastFailure: now)
        record.failures += 1
        record.lastFailure = now
        record.lockedUntil = Self.lockout(afterFailures: record.failures).map { now + $0 }
        entrants[entrant] = record
        failures += 1
        householdUntil = Self.householdWait(afterFailures: failures).map { now + $0 }
        forgetOldest(at: now)
        return wait(for: entrant, at: now)?.remaining
    }

    private mutating func forgetOldest(at now: Instant) {
        while entrants.count > Self.remembered {
            let over = entrants.filter { ($0.value.lockedUntil ?? now) <= now }
            guard let oldest = over.min(by: { $0.value.lastFailure < $1.value.lastFailure }) else { return }
            entrants[oldest.key] = nil
        }
    }
}
