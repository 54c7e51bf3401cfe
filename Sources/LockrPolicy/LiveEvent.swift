/// A change worth telling someone as it happens: what the live view (`GET /api/v1/events`,
/// `lockr watch`), desktop notifications and the webhook's notices are made of.
public struct LiveEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A window opened (the hour's, a snooze, the emergency), or a longer one replaced it.
        case windowOpened = "window_opened"
        /// 2 minutes, then 1 minute, are left of a window.
        case windowEnding = "window_ending"
        case windowClosed = "window_closed"
        /// Time mode: 5 minutes, then 1 minute, are left of a budget: the shared one (no app) or an
        /// app's own.
        case budgetLow = "budget_low"
        /// An app that resolved no longer does; `access` says why.
        case locked
        /// An app that was blocked resolves again without a window (a new day, a schedule ended).
        case unlocked
        /// An app came into use after a gap: opened for the `count`th time today.
        case appOpened = "app_opened"
        /// A device of the person stopped asking lockr while still on the network, or asks again.
        case protectionOff = "protection_off"
        case protectionBack = "protection_back"
        /// A setting changed, waits for its time, or a waiting change was cancelled; a profile
        /// switched; the PIN changed.
        case settingsChanged = "settings_changed"
    }

    public let kind: Kind
    public let at: Instant
    /// The app's id; nil for what concerns the person as a whole.
    public let app: String?
    /// The app's display name.
    public let appName: String?
    /// Where the app stands after the change.
    public let access: AppAccess?
    /// `windowEnding` and `budgetLow`: the whole minutes left.
    public let minutesLeft: Int?
    /// `appOpened`: how many times the app was opened today.
    public let count: Int?
    /// When the window, the budget or the lock ends, when known.
    public let until: Instant?
    /// The change as a sentence.
    public let message: String

    public init(
        kind: Kind, at: Instant, app: String? = nil, appName: String? = nil, access: AppAccess? = nil,
        minutesLeft: Int? = nil, count: Int? = nil, until: Instant? = nil, message: String
    ) {
        self.count = count
        self.kind = kind
        self.at = at
        self.app = app
        self.appName = appName
        self.access = access
        self.minutesLeft = minutesLeft
        self.until = until
        self.message = message
    }

    /// The live event a logged event is, if it is one: protection off or back, and changes of settings.
    public init?(_ event: PolicyEvent) {
        let kind: Kind
        switch event.type {
        case .protectionOff: kind = .protectionOff
        case .protectionBack: kind = .protectionBack
        case .changePending, .changeApplied, .changeCancelled, .pinChange, .profileOn, .profileOff, .profileChange,
            .modeChange, .guardAdd, .guardRemove, .deviceAssigned, .deviceReleased:
            kind = .settingsChanged
        case .lock, .unlock, .gatePass, .gateFail, .gateFallback, .emergency, .snooze, .extend, .dayReset, .clockJump,
            .pinFail:
            return nil
        }
        self.init(kind: kind, at: event.at, app: event.app, message: event.detail)
    }
}

/// Turns one person's successive statuses into live events: windows that open, run low and close,
/// budgets that run low, apps that lock, unlock or are opened again. Each warning is given once per window (or per
/// budget, until an extension or a new day raises what is left again); a warning already passed
/// when an app is first seen, or skipped over by a jump, is not given late. Pure: feed it a status
/// about once a second.
public struct StatusWatch: Sendable {
    /// Minutes left of a window that are announced, largest first.
    public static let windowWarnings = [2, 1]
    /// Minutes left of a time-mode budget that are announced, largest first.
    public static let budgetWarnings = [5, 1]

    private struct Seen {
        var open: Bool
        var opens: Int
        var window: Window?
        /// Warnings given (or passed) for the current window.
        var windowWarned: Set<Int>
    }

    private struct Window: Equatable {
        let kind: WindowKind
        let until: Instant
    }

    private var seen: [String: Seen] = [:]
    /// Warnings given (or passed) per budget: "*" for the shared one, else the app's.
    private var budgetWarned: [String: Set<Int>] = [:]

    public init() {}

    /// What changed since the last status given: nothing the first time an app is seen.
    public mutating func changes(in status: PolicyStatus, calendar: DayCalendar) -> [LiveEvent] {
        let text = AccessText(calendar: calendar)
        let now = status.now
        var events: [LiveEvent] = []
        for app in status.apps {
            let window = Self.window(of: app.access)
            let windowLeft = window.map { $0.until - now }
            let budgetLeft = window == nil ? Self.budgetLeft(of: app.access) : nil
            let budgetKey = status.perAppBudget ? app.id : "*"
            if let budgetLeft, budgetWarned[budgetKey] == nil {
                budgetWarned[budgetKey] = Self.passed(Self.budgetWarnings, left: budgetLeft)
            }
            guard var seen = seen[app.id] else {
                self.seen[app.id] = Seen(
                    open: app.open, opens: app.opens, window: window, windowWarned: Self.passed(Self.windowWarnings, left: windowLeft))
                continue
            }
            func event(
                _ kind: LiveEvent.Kind, minutes: Int? = nil, count: Int? = nil, until: Instant? = nil, ofApp: Bool = true,
                _ message: String
            ) {
                events.append(
                    LiveEvent(
                        kind: kind, at: now, app: ofApp ? app.id : nil, appName: ofApp ? app.name : nil,
                        access: app.access, minutesLeft: minutes, count: count, until: until, message: message))
            }
            if app.opens > seen.opens {
                event(.appOpened, count: app.opens, "\(app.id): opened \(Self.times(app.opens)) today")
            }
            seen.opens = app.opens
            if window != seen.window {
                if let window {
                    event(.windowOpened, until: window.until, app.reason)
                    seen.windowWarned = Self.passed(Self.windowWarnings, left: windowLeft)
                } else if let closed = seen.window {
                    event(.windowClosed, "\(app.id): the \(closed.kind.rawValue) window closed")
                }
                seen.window = window
            }
            if let window, let windowLeft, let minutes = Self.due(Self.windowWarnings, left: windowLeft, warned: &seen.windowWarned) {
                event(
                    .windowEnding, minutes: minutes, until: window.until,
                    "\(app.id): \(minutes) min left (\(window.kind.rawValue) window until \(calendar.clockText(window.until)))")
            }
            if let budgetLeft, var warned = budgetWarned[budgetKey] {
                warned.subtract(Self.budgetWarnings.filter { budgetLeft > .seconds($0 * 60) })
                if let minutes = Self.due(Self.budgetWarnings, left: budgetLeft, warned: &warned) {
                    let shared = !status.perAppBudget
                    let budgetText = text.text(app.access, of: app.id, at: now)
                    event(
                        .budgetLow, minutes: minutes, until: app.access.until, ofApp: !shared,
                        shared ? budgetText : "\(app.id): \(budgetText)")
                }
                budgetWarned[budgetKey] = warned
            }
            if seen.open != app.open {
                if !app.open {
                    event(.locked, until: app.access.until, app.reason)
                } else if window == nil {
                    event(.unlocked, until: app.access.until, app.reason)
                }
                seen.open = app.open
            }
            self.seen[app.id] = seen
        }
        let listed = Set(status.apps.map(\.id))
        seen = seen.filter { listed.contains($0.key) }
        budgetWarned = budgetWarned.filter { $0.key == "*" ? !status.perAppBudget : listed.contains($0.key) }
        return events
    }

    /// "once", "twice", "5 times".
    static func times(_ count: Int) -> String {
        switch count {
        case 1: "once"
        case 2: "twice"
        default: "\(count) times"
        }
    }

    private static func window(of access: AppAccess) -> Window? {
        if case .window(let kind, let until) = access { Window(kind: kind, until: until) } else { nil }
    }

    private static func budgetLeft(of access: AppAccess) -> Duration? {
        if case .budgetLeft(let charged, let budget, _) = access { budget - charged } else { nil }
    }

    /// The warnings already passed with `left` to go.
    private static func passed(_ warnings: [Int], left: Duration?) -> Set<Int> {
        guard let left else { return [] }
        return Set(warnings.filter { left <= .seconds($0 * 60) })
    }

    /// The smallest warning newly passed with `left` to go, if any; marks every passed one given.
    private static func due(_ warnings: [Int], left: Duration, warned: inout Set<Int>) -> Int? {
        let newlyPassed = passed(warnings, left: left).subtracting(warned)
        warned.formUnion(newlyPassed)
        return newlyPassed.min()
    }
}
