/// A request to change one person's policy, as the control API sends it: a value naming the
/// action and its arguments, carried out on the person's engine at the current policy time, with
/// a result of its own type. The daemon runs commands one at a time per person and saves what they
/// changed (even when refused: a wrong sentence counts) before it answers.
public protocol PolicyCommand: Sendable {
    associatedtype Result: Sendable
    /// Carries the command out on `engine` at `now`.
    func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Result
}

/// Every command the engine takes from the control API.
public enum Commands {
    /// Changes the mode and, optionally, its budget or window.
    public struct SetMode: PolicyCommand {
        public let mode: Mode
        public var budget: Duration?
        public var perApp: Bool?
        public var window: Duration?
        public var phrase: String?
        public var pin: PinCheck

        public init(
            _ mode: Mode, budget: Duration? = nil, perApp: Bool? = nil, window: Duration? = nil, phrase: String? = nil,
            pin: PinCheck = .none
        ) {
            self.mode = mode
            self.budget = budget
            self.perApp = perApp
            self.window = window
            self.phrase = phrase
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
            try engine.setMode(mode, budget: budget, perApp: perApp, window: window, phrase: phrase, pin: pin, at: now)
        }
    }

    /// Starts guarding an app.
    public struct GuardApp: PolicyCommand {
        public let app: String

        public init(_ app: String) { self.app = app }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
            try engine.guardApp(app, at: now)
        }
    }

    /// Stops guarding an app.
    public struct UnguardApp: PolicyCommand {
        public let app: String
        public var phrase: String?
        public var pin: PinCheck

        public init(_ app: String, phrase: String? = nil, pin: PinCheck = .none) {
            self.app = app
            self.phrase = phrase
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
            try engine.unguardApp(app, phrase: phrase, pin: pin, at: now)
        }
    }

    /// Drops every change the control API made.
    public struct ResetSettings: PolicyCommand {
        public var phrase: String?
        public var pin: PinCheck

        public init(phrase: String? = nil, pin: PinCheck = .none) {
            self.phrase = phrase
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
            try engine.resetSettings(phrase: phrase, pin: pin, at: now)
        }
    }

    /// Asks for a person's run-time settings as a whole (`lockr config import`).
    public struct ImportSettings: PolicyCommand {
        public let settings: RunTimeSettings
        public var pin: PinCheck

        public init(_ settings: RunTimeSettings, pin: PinCheck = .none) {
            self.settings = settings
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
            try engine.importSettings(settings, pin: pin, at: now)
        }
    }

    /// Cancels a pending change.
    public struct CancelPending: PolicyCommand {
        public let id: Int

        public init(_ id: Int) { self.id = id }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> PendingChange {
            try engine.cancelPending(id, at: now)
        }
    }

    /// Passes the gate of a pending change that waits for it.
    public struct ConfirmPending: PolicyCommand {
        public let id: Int
        public var phrase: String?
        public var pin: PinCheck

        public init(_ id: Int, phrase: String?, pin: PinCheck = .none) {
            self.id = id
            self.phrase = phrase
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> PendingChange {
            try engine.confirmPending(id, phrase: phrase, pin: pin, at: now)
        }
    }

    /// Opens the hour's window for an app, or for every guarded app when `app` is nil.
    public struct Unlock: PolicyCommand {
        public let app: String?
        public var phrase: String?

        public init(_ app: String?, phrase: String? = nil) {
            self.app = app
            self.phrase = phrase
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> UnlockResult {
            try engine.unlock(app, phrase: phrase, at: now)
        }
    }

    /// Opens a short window out of the day's allowance.
    public struct Snooze: PolicyCommand {
        public let app: String?
        public var phrase: String?

        public init(_ app: String?, phrase: String? = nil) {
            self.app = app
            self.phrase = phrase
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> UnlockWindow {
            try engine.snooze(app, phrase: phrase, at: now)
        }
    }

    /// Adds extra time to today's budget once; the result is the budget now.
    public struct Extend: PolicyCommand {
        public let app: String?
        public var phrase: String?

        public init(_ app: String?, phrase: String? = nil) {
            self.app = app
            self.phrase = phrase
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Duration {
            try engine.extend(app, phrase: phrase, at: now)
        }
    }

    /// Issues the puzzles the gate asks, chosen with `seed` (the daemon draws it at random).
    public struct IssueChallenges: PolicyCommand {
        public let app: String?
        public let seed: UInt64

        public init(for app: String?, seed: UInt64) {
            self.app = app
            self.seed = seed
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> [Challenge] {
            try engine.issueChallenges(for: app, seed: seed, at: now)
        }
    }

    /// Answers one issued puzzle; the result is the puzzle solved.
    public struct AnswerChallenge: PolicyCommand {
        public let id: String
        public let answer: String

        public init(_ id: String, answer: String) {
            self.id = id
            self.answer = answer
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Challenge {
            try engine.answerChallenge(id, answer: answer, at: now)
        }
    }

    /// Takes the sentence as the recogniser heard it; the result is until when the pass keeps.
    public struct PassSpokenSentence: PolicyCommand {
        public let spoken: Spoken

        public init(_ spoken: Spoken) { self.spoken = spoken }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Instant {
            try engine.passSpokenSentence(spoken, at: now)
        }
    }

    /// Begins the wait after which the sentence may be typed where it must be spoken; the result is
    /// when typing is taken.
    public struct BeginTypedFallback: PolicyCommand {
        public init() {}

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Instant {
            try engine.beginTypedFallback(at: now)
        }
    }

    /// Starts the emergency hold; the result is the hold's id.
    public struct BeginEmergency: PolicyCommand {
        public init() {}

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> UInt64 {
            try engine.beginEmergency(at: now)
        }
    }

    /// Completes the emergency hold `hold` once it was held long enough.
    public struct CompleteEmergency: PolicyCommand {
        public let hold: UInt64

        public init(hold: UInt64) { self.hold = hold }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> UnlockWindow {
            try engine.completeEmergency(hold: hold, at: now)
        }
    }

    /// Adds a schedule, or replaces the one of its name.
    public struct AddSchedule: PolicyCommand {
        public let schedule: Schedule
        public var phrase: String?
        public var pin: PinCheck

        public init(_ schedule: Schedule, phrase: String? = nil, pin: PinCheck = .none) {
            self.schedule = schedule
            self.phrase = phrase
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
            try engine.addSchedule(schedule, phrase: phrase, pin: pin, at: now)
        }
    }

    /// Removes a schedule.
    public struct RemoveSchedule: PolicyCommand {
        public let name: String
        public var phrase: String?
        public var pin: PinCheck

        public init(_ name: String, phrase: String? = nil, pin: PinCheck = .none) {
            self.name = name
            self.phrase = phrase
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
            try engine.removeSchedule(name, phrase: phrase, pin: pin, at: now)
        }
    }

    /// Defines a profile, or redefines the one of its name.
    public struct DefineProfile: PolicyCommand {
        public let profile: Profile
        public var pin: PinCheck

        public init(_ profile: Profile, pin: PinCheck = .none) {
            self.profile = profile
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Profile {
            try engine.defineProfile(profile, pin: pin, at: now)
        }
    }

    /// Assigns a device (a MAC or IP address, checked by the caller) to the person; the result is
    /// whether it was not theirs yet.
    public struct ClaimDevice: PolicyCommand {
        public let device: String

        public init(_ device: String) { self.device = device }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Bool {
            engine.claimDevice(device, at: now)
        }
    }

    /// Hands a device of the person's to another person: nil when it may move at once (released
    /// here; the other person then claims it), else the pending change it waits as (see
    /// `PolicyEngine.handOverDevice`).
    public struct HandOverDevice: PolicyCommand {
        public let device: String
        public let from: String
        public let to: String
        public let theirs: Enforcement
        public let phrase: String?
        public var pin: PinCheck

        public init(
            _ device: String, from: String, to: String, theirs: Enforcement, phrase: String?, pin: PinCheck = .none
        ) {
            self.device = device
            self.from = from
            self.to = to
            self.theirs = theirs
            self.phrase = phrase
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> PendingChange? {
            try engine.handOverDevice(device, from: from, to: to, theirs: theirs, phrase: phrase, pin: pin, at: now)
        }
    }

    /// Takes a device assigned at run time back from the person; the result is whether it was theirs.
    public struct ReleaseDevice: PolicyCommand {
        public let device: String

        public init(_ device: String) { self.device = device }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Bool {
            engine.releaseDevice(device, at: now)
        }
    }

    /// Removes a profile.
    public struct RemoveProfile: PolicyCommand {
        public let name: String
        public var pin: PinCheck

        public init(_ name: String, pin: PinCheck = .none) {
            self.name = name
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Profile {
            try engine.removeProfile(name, pin: pin, at: now)
        }
    }

    /// Switches a profile on, off or over; the result is whether it is on now.
    public struct SwitchProfile: PolicyCommand {
        public enum Action: String, Sendable, CaseIterable {
            case activate, deactivate, toggle
        }

        public let name: String
        public let action: Action
        /// How long it stays on (activate and toggle); nil until switched off.
        public var duration: Duration?
        public var pin: PinCheck

        public init(_ name: String, _ action: Action, for duration: Duration? = nil, pin: PinCheck = .none) {
            self.name = name
            self.action = action
            self.duration = duration
            self.pin = pin
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) -> Bool {
            switch action {
            case .activate:
                _ = try engine.activateProfile(name, for: duration, at: now)
                return true
            case .deactivate:
                _ = try engine.deactivateProfile(name, pin: pin, at: now)
                return false
            case .toggle: return try engine.toggleProfile(name, for: duration, pin: pin, at: now)
            }
        }
    }

    /// Sets, changes (`record`) or clears (nil) the household's settings PIN.
    public struct SetPin: PolicyCommand {
        public let record: PinRecord?

        public init(_ record: PinRecord?) { self.record = record }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) {
            engine.setPin(record, at: now)
        }
    }

    /// Starts checking a PIN entry of `entrant` (the address it comes from), or refuses it while a
    /// lockout lasts, its own or the household's, or while another of its entries is being
    /// checked that could reach one (before the slow hash is checked).
    public struct BeginPinEntry: PolicyCommand {
        public let entrant: String

        public init(by entrant: String) { self.entrant = entrant }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) {
            try engine.beginPinEntry(by: entrant, at: now)
        }
    }

    /// Counts a checked PIN entry of `entrant`: a right one clears its count, a wrong one adds to it
    /// (towards lockouts) and is refused.
    public struct NotePinEntry: PolicyCommand {
        public let correct: Bool
        public let entrant: String

        public init(correct: Bool, by entrant: String) {
            self.correct = correct
            self.entrant = entrant
        }

        public func apply(to engine: inout PolicyEngine, at now: Instant) throws(PolicyRefusal) {
            let lockout = engine.notePinEntry(correct: correct, by: entrant, at: now)
            guard correct else {
                throw .wrongPin(failures: engine.pin?.lockouts.failures(of: entrant) ?? 0, lockout: lockout)
            }
        }
    }
}
