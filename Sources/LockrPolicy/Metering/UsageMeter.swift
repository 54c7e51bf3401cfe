/// Counted slices of metered time: one app's, or all guarded apps' together.
///
/// A slice counts once, whatever order it arrives in (a stretch of sustained use is counted back to
/// its start, so slices may arrive late). The newest counted slice accrues in real time, so a budget
/// can run out in the middle of a slice; the others count whole. Slices far behind the newest are
/// folded into `settled`. The whole value is persisted, so a restart continues exactly where the
/// last save left off: the accruing slice keeps accruing and is never counted twice.
public struct UsageBucket: Sendable, Equatable, Codable {
    /// Milliseconds of counted slices folded out of `recent`.
    private(set) var settled: Int64
    /// Counted slices near the newest one, ascending.
    private(set) var recent: [Int64] = []
    /// Slices that start before this time (ms) do not count: the day began then.
    private(set) var floor: Int64 = .min
    let sliceMilliseconds: Int64

    /// An empty bucket, or one holding `used` from before (a store written by an older lockr).
    init(slice: Duration, used: Duration = .zero) {
        settled = used.milliseconds
        sliceMilliseconds = slice.milliseconds
    }

    /// Time counted by `now`.
    func used(at now: Instant) -> Duration {
        guard let newest = recent.last else { return .milliseconds(settled) }
        let elapsed = min(max(now.milliseconds - newest * sliceMilliseconds, 0), sliceMilliseconds)
        return .milliseconds(settled + Int64(recent.count - 1) * sliceMilliseconds + elapsed)
    }

    /// The newest counted slice, if any today.
    var newestSlice: Int64? { recent.last }

    /// Counts `slice` unless it is counted already. `horizon` is how far behind the newest slice a
    /// slice may still arrive; older ones are folded into `settled`.
    mutating func charge(slice: Int64, horizon: Int64) {
        guard slice * sliceMilliseconds >= floor else { return }
        if let newest = recent.last, slice <= newest {
            guard slice > newest - horizon, let index = recent.firstIndex(where: { $0 >= slice }),
                recent[index] != slice
            else { return }
            recent.insert(slice, at: index)
            return
        }
        recent.append(slice)
        let oldest = slice - horizon
        let folded = recent.prefix { $0 <= oldest }.count
        if folded > 0 {
            settled += Int64(folded) * sliceMilliseconds
            recent.removeFirst(folded)
        }
    }

    /// Starts a new day at `dayStart`: nothing before it counts any more. Day starts fall on whole
    /// minutes and slices divide a minute, so no slice straddles one.
    mutating func startDay(at dayStart: Instant) {
        settled = 0
        recent.removeAll { $0 * sliceMilliseconds < dayStart.milliseconds }
        floor = dayStart.milliseconds
    }
}

/// Turns one app's DNS queries into slices of use.
///
/// Time is cut into slices (default 10 s). Two kinds of activity count as foreground use:
/// - **dense**: a slice with queries counts when it and the `neighbourhood` slices before it hold at
///   least `minimumQueries` queries; the slices of that neighbourhood that had queries count with it
///   (scrolling: bursts of lookups);
/// - **sustained**: at least `minimumQueries` queries in a row, each at most `relookupGap` after the
///   one before, count from the first of them on (streaming: the app looks its names up again each
///   time the short TTL lockr gave them expires, about every `max-ttl`).
///
/// A background ping (one query every few minutes) is neither. A gap no longer than `grace` between
/// counted slices is counted as well, so looking away for a moment does not split a session. The
/// meter is persisted with the buckets, so a restart keeps its memory of recent queries.
public struct UsageMeter: Sendable, Equatable, Codable {
    struct SliceQueries: Sendable, Equatable, Codable {
        var slice: Int64
        var queries: Int
    }

    /// Queries in a row, each within the re-lookup gap of the one before (milliseconds).
    struct Run: Sendable, Equatable, Codable {
        var start: Int64
        var last: Int64
        var queries: Int
    }

    /// Query counts of recent slices, oldest first, at most `neighbourhood + 1` of them.
    private var recent: [SliceQueries] = []
    private var run: Run?
    /// The newest slice counted as use.
    private var lastCounted: Int64?

    public init() {}

    /// The start of the newest slice with a query: a later query must not be recorded before it.
    func latestSliceStart(slice: Duration) -> Instant? {
        recent.last.map { Instant(milliseconds: $0.slice * slice.milliseconds) }
    }

    /// Carries a stretch of sustained use over the time lockr was down (from its last save, at
    /// `lastSaved`, to `now`): a re-lookup due then went unseen, so a stretch still alive at the save
    /// continues if the app asks again within the usual gap after the restart. Only a short stop
    /// (a restart, a crash: at most `longestCarriedStop`) is carried; after a longer one, or a jump of
    /// policy time, the stretch ends where it was last seen, so that the stop is never counted as use.
    mutating func resume(lastSaved: Instant, at now: Instant, relookupGap: Duration) {
        guard var run, run.last + relookupGap.milliseconds >= lastSaved.milliseconds else { return }
        guard now - lastSaved <= Self.longestCarriedStop else {
            self.run = nil
            return
        }
        run.last = max(run.last, now.milliseconds)
        self.run = run
    }

    /// The longest stop of lockr over which a stretch of use goes on.
    static let longestCarriedStop = Duration.seconds(600)

    /// Records one query at `now` and returns the slices that now count as use and were not counted
    /// before, oldest first.
    mutating func record(at now: Instant, settings: MeteringSettings, relookupGap: Duration) -> [Int64] {
        let sliceLength = settings.slice.milliseconds
        let slice = now.milliseconds / sliceLength
        recent.removeAll { $0.slice < slice - Int64(settings.neighbourhood) }
        if let last = recent.indices.last, recent[last].slice == slice {
            recent[last].queries += 1
        } else {
            recent.append(SliceQueries(slice: slice, queries: 1))
        }
        var counted: [Int64] = []
        if recent.reduce(0, { $0 + $1.queries }) >= settings.minimumQueries { counted = recent.map(\.slice) }

        if var run, now.milliseconds - run.last <= relookupGap.milliseconds {
            run.last = now.milliseconds
            run.queries += 1
            self.run = run
        } else {
            run = Run(start: now.milliseconds, last: now.milliseconds, queries: 1)
        }
        if let run, run.queries >= settings.minimumQueries {
            let from = max(run.start / sliceLength, (lastCounted ?? .min) + 1)
            if from <= slice { counted += Array(from...slice) }
        }

        var fresh = Set(counted.filter { $0 > (lastCounted ?? .min) })
        guard let first = fresh.min() else { return [] }
        if let lastCounted {
            let gap = first - lastCounted - 1
            if gap > 0, gap * sliceLength <= settings.grace.milliseconds { fresh.formUnion(lastCounted + 1..<first) }
        }
        let result = fresh.sorted()
        if let newest = result.last { lastCounted = max(lastCounted ?? newest, newest) }
        return result
    }
}
