/// What today has used up: counters that reset when the day does.
public struct DayRecord: Sendable, Equatable {
    public var day: PolicyDay
    public var snoozes = 0
    public var extensions = 0
    public var emergencies = 0
    /// Wrong answers at the gate in a row today (sentences and puzzles).
    public var gateMisses = 0
    public var cooldownUntil: Instant?
    /// Budget added today by `extend`, per budget ("*" for the shared one).
    public var extraBudget: [String: Duration] = [:]
    /// Time used today per app id, and in total under "*" (as of the snapshot; `MeteringState`
    /// holds the exact figures).
    public var used: [String: Duration] = [:]
    /// What of `used` budgets were charged: use outside snooze and emergency windows.
    public var charged: [String: Duration] = [:]
    /// Windows opened today per app id (unlocks, first queries, snoozes): what raises puzzles'
    /// difficulty.
    public var opens: [String: Int] = [:]
    /// Gate results today by kind ("phrase", "voice", "arithmetic easy", "chess hard").
    public var gates: [String: GateTally] = [:]
    /// Times each app was opened today: stretches of use more than `MeteringSettings.sessionGap`
    /// apart.
    public var sessions: [String: Int] = [:]
    /// Queries of each app's names lockr answered with the block answer today.
    public var blocked: [String: Int] = [:]
    /// Time mode: the day's budget as configured, per budget ("*" or an app's id; `extraBudget`
    /// holds what was added). Empty in the other modes.
    public var budgets: [String: Duration] = [:]

    public init(day: PolicyDay) { self.day = day }

    /// Whether the day's limits held: no snooze, extension or emergency asked for more.
    public var heldLimits: Bool { snoozes == 0 && extensions == 0 && emergencies == 0 }
}

/// Everything the policy remembers across restarts.
public struct PolicyState: Sendable, Equatable {
    public var windows = UnlockWindows()
    public var today: DayRecord
    public var overlay = SettingsOverlay()
    public var metering = MeteringState()
    /// The protection the engine enforces. Nil in a store an older lockr wrote: the configuration
    /// and overlay are then taken as they are.
    public var inForce: Protection?
    /// Changes that loosen, waiting for their time, and the config file's values declined.
    public var changes = ChangeQueue()
    /// The PIN that protects settings, when one is set.
    public var pin: PinRecord?
    /// Profiles made at run time and those that are on.
    public var profiles = Profiles()
    /// Puzzles out, gate steps passed, and the typed fallback.
    public var gate = GateState()
    /// Devices (MAC or IP addresses) the household assigned to this person at run time, besides
    /// those the config file gives them.
    public var claimedDevices: [String] = []
    /// The latest policy time the engine has seen; time never goes back behind it.
    public var lastSeen: Instant

    public init(today: DayRecord, lastSeen: Instant) {
        self.today = today
        self.lastSeen = lastSeen
    }
}

extension PolicyState {
    /// Starts the day of `calendar` that contains `now` once it has begun: today's record is
    /// closed with its final usage and `budgets`, and returned; nil while today lasts.
    mutating func closeDay(ifOverBy now: Instant, calendar: DayCalendar, budgets: [String: Duration]) -> DayRecord? {
        guard now >= today.day.end else { return nil }
        var finished = today
        (finished.used, finished.charged) = metering.totals(at: finished.day.end)
        finished.budgets = budgets
        today = DayRecord(day: calendar.day(containing: now))
        metering.startDay(at: today.day.start)
        return finished
    }
}

/// What happened, for the event log.
public enum EventType: String, Sendable {
    case lock
    case unlock
    case gatePass = "gate_pass"
    case gateFail = "gate_fail"
    /// Typing the sentence where it must be spoken was asked for; its wait began.
    case gateFallback = "gate_fallback"
    case emergency
    case snooze
    case extend
    // Logged by earlier versions, before settings changes became `change_*` events; kept so that
    // their entries in a state database still read as what they were.
    case modeChange = "mode_change"
    case guardAdd = "guard_add"
    case guardRemove = "guard_remove"
    case dayReset = "day_reset"
    case clockJump = "clock_jump"
    case changePending = "change_pending"
    case changeApplied = "change_applied"
    case changeCancelled = "change_cancelled"
    case pinFail = "pin_fail"
    case pinChange = "pin_change"
    case profileOn = "profile_on"
    case profileOff = "profile_off"
    case profileChange = "profile_change"
    case protectionOff = "protection_off"
    case protectionBack = "protection_back"
    /// A device was assigned to the person, or no longer is.
    case deviceAssigned = "device_assigned"
    case deviceReleased = "device_released"
}

/// One entry of the event log.
public struct PolicyEvent: Sendable, Equatable {
    public let at: Instant
    public let type: EventType
    public let app: String?
    public let detail: String
    /// The action that wrote it; nil for what the policy's own time wrote (a day's reset, a window
    /// that ended) and for the daemon's steps.
    public let action: ActionName?

    public init(at: Instant, type: EventType, app: String?, detail: String, action: ActionName? = nil) {
        self.at = at
        self.type = type
        self.app = app
        self.detail = detail
        self.action = action
    }
}
