/// Time charged to one budget: an app's own, or all guarded apps together.
///
/// Slices are charged in order. The newest charged slice accrues in real time, so a budget can run
/// out in the middle of a slice; earlier ones count whole. A gap of at most `graceSlices` between two
/// charged slices is charged too.
public struct UsageBucket: Sendable {
    /// Milliseconds charged before the accruing slice (may start negative when a day begins inside
    /// a slice, so that only the new day's part of it counts).
    private(set) var settled: Int64
    /// The slice that accrues now.
    private(set) var accruing: Int64?
    private let sliceMilliseconds: Int64

    init(used: Duration, slice: Duration) {
        settled = used.milliseconds
        sliceMilliseconds = slice.milliseconds
    }

    /// Time charged by `now`.
    func used(at now: Instant) -> Duration {
        guard let accruing else { return .milliseconds(settled) }
        let elapsed = min(max(now.milliseconds - accruing * sliceMilliseconds, 0), sliceMilliseconds)
        return .milliseconds(settled + elapsed)
    }

    /// Charges `slice` (and the gap before it when short enough). Slices at or before the newest
    /// charged one are already counted.
    mutating func charge(slice: Int64, graceSlices: Int64) {
        guard let last = accruing else {
            accruing = slice
            return
        }
        guard slice > last else { return }
        settled += sliceMilliseconds
        let gap = slice - last - 1
        if gap > 0, gap <= graceSlices { settled += gap * sliceMilliseconds }
        accruing = slice
    }

    /// Starts a new day at `dayStart`: nothing charged before it counts any more.
    mutating func startDay(at dayStart: Instant) {
        guard let accruing else {
            settled = 0
            return
        }
        let sliceStart = accruing * sliceMilliseconds
        settled = -min(max(dayStart.milliseconds - sliceStart, 0), sliceMilliseconds)
        if dayStart.milliseconds >= sliceStart + sliceMilliseconds {
            self.accruing = nil
            settled = 0
        }
    }
}

/// Turns an app's DNS queries into metered use.
///
/// Time is cut into slices (default 10 s). A slice with queries counts as foreground use when it and
/// the `neighbourhood` slices before it hold at least `minimumQueries` queries; the slices of that
/// neighbourhood that had queries count with it (the start of the burst). A background ping (one
/// query every few minutes) never reaches the threshold. A gap no longer than `grace` between
/// counted slices is counted as well, so switching apps for a moment does not split a session.
public struct UsageMeter: Sendable {
    /// Query counts of recent slices, oldest first, at most `neighbourhood + 1` of them.
    private var recent: [(slice: Int64, queries: Int)] = []
    private let settings: MeteringSettings

    public init(settings: MeteringSettings) { self.settings = settings }

    var sliceMilliseconds: Int64 { settings.slice.milliseconds }

    var graceSlices: Int64 { settings.grace.milliseconds / sliceMilliseconds }

    /// The start of the newest slice with a query: a later query must not be recorded before it.
    var latestSliceStart: Instant? { recent.last.map { Instant(milliseconds: $0.slice * sliceMilliseconds) } }

    /// Records one query at `now` and returns the slices that now count as use, oldest first.
    mutating func record(at now: Instant) -> [Int64] {
        let slice = now.milliseconds / sliceMilliseconds
        let oldest = slice - Int64(settings.neighbourhood)
        recent.removeAll { $0.slice < oldest }
        if let last = recent.indices.last, recent[last].slice == slice {
            recent[last].queries += 1
        } else {
            recent.append((slice, 1))
        }
        let queries = recent.reduce(0) { $0 + $1.queries }
        guard queries >= settings.minimumQueries else { return [] }
        return recent.map(\.slice)
    }
}
