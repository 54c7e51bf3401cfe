/// Why a window is open.
public enum WindowKind: String, Sendable, Codable, CaseIterable {
    /// Hourly or extreme mode: the hour's window (by `lockr unlock`, the phrase, or the first query).
    case hourly
    /// Time mode: the short grace after the budget is spent.
    case snooze
    /// The emergency bypass.
    case emergency
}

/// A stretch of time in which an app (or every guarded app) resolves.
public struct UnlockWindow: Sendable, Equatable {
    /// The app's id, or nil for every guarded app.
    public var app: String?
    public var kind: WindowKind
    public var opened: Instant
    public var ends: Instant
    /// Hourly windows: the start of the next clock hour, computed when the window opened and stored,
    /// before which the app gets no other hourly window.
    public var hourResets: Instant?

    public init(app: String?, kind: WindowKind, opened: Instant, ends: Instant, hourResets: Instant? = nil) {
        self.app = app
        self.kind = kind
        self.opened = opened
        self.ends = ends
        self.hourResets = hourResets
    }

    func covers(_ app: String, at now: Instant) -> Bool {
        (self.app == nil || self.app == app) && opened <= now && now < ends
    }
}

/// The windows open now, and the hourly ones whose hour is not over (they keep the app from
/// another window until the next clock hour): what opens an app besides its mode.
public struct UnlockWindows: Sendable, Equatable {
    /// Oldest first.
    public private(set) var all: [UnlockWindow]

    public init(_ windows: [UnlockWindow] = []) { all = windows }

    /// The window that keeps `app` open longest at `now`.
    func longest(covering app: String, at now: Instant) -> UnlockWindow? {
        all.filter { $0.covers(app, at: now) }.max { $0.ends < $1.ends }
    }

    /// The newest window `app` is open in at `now`.
    func newest(covering app: String, at now: Instant) -> UnlockWindow? { all.last { $0.covers(app, at: now) } }

    /// Whether `app` is in a snooze or emergency window at `instant`: use there is charged to no
    /// budget.
    func isGrace(_ app: String, at instant: Instant) -> Bool {
        all.contains { $0.kind != .hourly && $0.covers(app, at: instant) }
    }

    /// When the emergency window `app` is open in at `now` ends; nil outside one.
    func emergencyEnd(for app: String, at now: Instant) -> Instant? {
        all.filter { $0.kind == .emergency && $0.covers(app, at: now) }.map(\.ends).max()
    }

    /// When `app`'s used hourly window lets it have another, or nil if it has not used one this hour.
    func hourResets(for app: String, at now: Instant) -> Instant? {
        all.lazy.filter { $0.kind == .hourly && $0.app == app }.compactMap(\.hourResets).filter { $0 > now }.max()
    }

    /// How many windows are still open at `now`.
    public func openCount(at now: Instant) -> Int { all.count { $0.ends > now } }

    mutating func open(_ window: UnlockWindow) { all.append(window) }

    /// Forgets the windows that ended by `now` and whose hour is over.
    mutating func dropEnded(at now: Instant) { all.removeAll { $0.ends <= now && ($0.hourResets ?? now) <= now } }
}

/// Emergency bypasses being held: each begun by pressing, granted only when let go after the hold
/// time. Kept in memory only; a hold older than ten minutes is forgotten.
struct EmergencyHolds: Sendable {
    private var started: [UInt64: Instant] = [:]
    private var nextID: UInt64 = 1

    /// Begins a hold at `now`; returns its id.
    mutating func begin(at now: Instant) -> UInt64 {
        forgetStale(at: now)
        let id = nextID
        nextID += 1
        started[id] = now
        return id
    }

    /// Ends the hold `id`: how long it was held, or nil when there is no such hold.
    mutating func end(_ id: UInt64, at now: Instant) -> Duration? {
        started.removeValue(forKey: id).map { now - $0 }
    }

    mutating func forgetStale(at now: Instant) { started = started.filter { now - $0.value < .seconds(600) } }
}
