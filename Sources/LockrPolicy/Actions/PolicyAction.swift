/// One thing a person (or a parent for them) asks of their policy: the value the control API
/// decodes a request into, the CLI and the web forms send, and the engine applies
/// (`PolicyEngine.apply`). What proves the caller may ask it travels beside it as `Credentials`.
/// Adding an action is a case here, its line in `apply`, and the words that ask for it.
public enum PolicyAction: Sendable, Equatable, Codable {
    /// Changes the mode and, optionally, its budget (time mode) or window.
    case setMode(Mode, budget: Duration? = nil, perApp: Bool? = nil, window: Duration? = nil)
    case guardApp(String)
    case unguardApp(String)
    /// Drops every change made while lockr runs, back to the configuration.
    case resetSettings
    /// Asks for a whole set of run-time settings (`lockr config import`).
    case importSettings(RunTimeSettings)
    case cancelPending(id: Int)
    /// Passes the gate of a pending change that waits for it.
    case confirmPending(id: Int)
    /// Opens the hour's window for an app, or for every guarded app when nil.
    case unlock(app: String?)
    case snooze(app: String?)
    /// Adds the extra time of the day once.
    case extend(app: String?)
    /// Issues the puzzles that open the gate; `seed` makes them (the API draws it at random).
    case issueChallenges(app: String?, seed: UInt64)
    case answerChallenge(id: String, answer: String)
    case passSpokenSentence(Spoken)
    /// Starts the wait after which the sentence may be typed instead of said.
    case beginTypedFallback
    /// Starts an emergency hold; `completeEmergency` lets go of it.
    case beginEmergency
    case completeEmergency(hold: UInt64)
    case addSchedule(Schedule)
    case removeSchedule(name: String)
    /// Changes the person's own filter entries or safe search.
    case changeFilters(FilterChange)
    case defineProfile(Profile)
    case removeProfile(name: String)
    /// Switches a profile on (for `duration`, or until switched off), off, or over.
    case switchProfile(name: String, ProfileSwitch, duration: Duration? = nil)
    /// Sets or changes (a record) or clears (nil) the household's settings PIN.
    case setPin(PinRecord?)
}

/// Each kind of action, by the word the event log and the API name it with.
public enum ActionName: String, Sendable, Codable, CaseIterable {
    case setMode = "set-mode", guardApp = "guard", unguardApp = "unguard", resetSettings = "reset-settings"
    case importSettings = "import-settings", cancelPending = "cancel-pending", confirmPending = "confirm-pending"
    case unlock, snooze, extend
    case issueChallenges = "issue-challenges", answerChallenge = "answer-challenge"
    case passSpokenSentence = "pass-spoken-sentence", beginTypedFallback = "begin-typed-fallback"
    case beginEmergency = "begin-emergency", completeEmergency = "complete-emergency"
    case addSchedule = "add-schedule", removeSchedule = "remove-schedule", changeFilters = "change-filters"
    case defineProfile = "define-profile", removeProfile = "remove-profile", switchProfile = "switch-profile"
    case setPin = "set-pin"
}

extension PolicyAction {
    public var name: ActionName {
        switch self {
        case .setMode: .setMode
        case .guardApp: .guardApp
        case .unguardApp: .unguardApp
        case .resetSettings: .resetSettings
        case .importSettings: .importSettings
        case .cancelPending: .cancelPending
        case .confirmPending: .confirmPending
        case .unlock: .unlock
        case .snooze: .snooze
        case .extend: .extend
        case .issueChallenges: .issueChallenges
        case .answerChallenge: .answerChallenge
        case .passSpokenSentence: .passSpokenSentence
        case .beginTypedFallback: .beginTypedFallback
        case .beginEmergency: .beginEmergency
        case .completeEmergency: .completeEmergency
        case .addSchedule: .addSchedule
        case .removeSchedule: .removeSchedule
        case .changeFilters: .changeFilters
        case .defineProfile: .defineProfile
        case .removeProfile: .removeProfile
        case .switchProfile: .switchProfile
        case .setPin: .setPin
        }
    }
}

/// How a profile is switched.
public enum ProfileSwitch: String, Sendable, Codable, CaseIterable {
    case activate, deactivate, toggle
}

/// What proves that a caller may make a change: the sentence typed for the mode's gate, and
/// whether the household's PIN was checked (the control API checks it before the action).
public struct Credentials: Sendable, Equatable {
    public var phrase: String?
    public var pin: PinCheck

    public init(phrase: String? = nil, pin: PinCheck = .none) {
        self.phrase = phrase
        self.pin = pin
    }

    public static let none = Credentials()
}

/// What an action did, one case per kind of answer.
public enum ActionOutcome: Sendable, Equatable {
    /// A settings change (mode, guards, schedules, a reset or an import): applied, pending, or both.
    case changed(ChangeOutcome)
    /// The pending change cancelled or confirmed.
    case pending(PendingChange)
    case unlocked(UnlockResult)
    /// The window a snooze or an emergency opened.
    case opened(UnlockWindow)
    /// The day's budget after an extension.
    case extended(budget: Duration)
    case challenges([Challenge])
    case answered(Challenge)
    /// The spoken sentence opened the gate until then.
    case gateOpen(until: Instant)
    /// The sentence may be typed from then on.
    case typedFallback(from: Instant)
    case holdBegun(UInt64)
    /// The profile defined or removed.
    case profile(Profile)
    /// Whether the profile switched is on now.
    case switched(on: Bool)
    case pinSet

    // The kind of outcome an action gives is fixed by its case (see `PolicyEngine.apply`): each
    // part below is there for the actions that give it, nil for the others.
    public var change: ChangeOutcome? { if case .changed(let change) = self { change } else { nil } }
    public var unlocked: UnlockResult? { if case .unlocked(let result) = self { result } else { nil } }
    public var window: UnlockWindow? { if case .opened(let window) = self { window } else { nil } }
    public var budget: Duration? { if case .extended(let budget) = self { budget } else { nil } }
    public var challenges: [Challenge]? { if case .challenges(let issued) = self { issued } else { nil } }
    public var typedFrom: Instant? { if case .typedFallback(let from) = self { from } else { nil } }
    public var hold: UInt64? { if case .holdBegun(let hold) = self { hold } else { nil } }
}

extension PolicyEngine {
    /// Carries `action` out at `now` with `credentials`: the one way the control API, the CLI and
    /// the web pages change a person's policy. After the policy's time has moved on to `now`, each
    /// action goes to the part whose rules it follows (settings to `Commitments`, allowances through
    /// `grant`, the gate's steps to `GateState`, profiles to `Profiles`), and the engine takes what
    /// changed: the protection in force, or what schedules and profiles block.
    public mutating func apply(
        _ action: PolicyAction, credentials: Credentials = .none, at now: Instant
    ) throws(PolicyRefusal) -> ActionOutcome {
        let (phrase, pin) = (credentials.phrase, credentials.pin)
        // What it writes in the event log says it wrote it.
        journal.action = action.name
        defer { journal.action = nil }
        let now = advance(to: now)
        switch action {
        case .setMode, .guardApp, .unguardApp, .resetSettings, .addSchedule, .removeSchedule, .changeFilters:
            let outcome = try commitments.request(action, credentials, &state, journal: &journal, at: now)
            inForceChanged(at: now)
            return .changed(outcome)
        case .importSettings(let wanted):
            let (outcome, profilesChanged) = try commitments.importing(
                wanted, pin: pin, &state, journal: &journal, at: now)
            if profilesChanged { standing.restrictionsChanged() }
            inForceChanged(at: now)
            return .changed(outcome)
        case .cancelPending(let id):
            let cancelled = try commitments.cancel(id, &state, gated: commitments.gated, journal: &journal, at: now)
            inForceChanged(at: now)
            return .pending(cancelled)
        case .confirmPending(let id):
            let confirmed = try commitments.confirm(id, credentials, &state, journal: &journal, at: now)
            applyDueChanges(at: now)
            return .pending(confirmed)
        case .unlock, .snooze, .extend, .completeEmergency: return try grant(action, phrase: phrase, at: now)
        case .beginEmergency:
            try allowances.checkEmergency(state.today)
            return .holdBegun(holds.begin(at: now))
        case .issueChallenges, .answerChallenge, .passSpokenSentence, .beginTypedFallback:
            return try state.gate.apply(
                action, appID: commitments.appID, rules: gateRules, day: &state.today, journal: &journal, at: now)
        case .defineProfile, .removeProfile, .switchProfile:
            let (outcome, blocksChanged) = try state.profiles.apply(
                action, configuration: configuration, known: apps, calendar: settings.calendar,
                pinMissing: needsPin(pin), journal: &journal, at: now)
            if blocksChanged { restrictionsChanged(at: now) }
            return outcome
        case .setPin(let record):
            state.setPin(record, journal: &journal, at: now)
            return .pinSet
        }
    }
}
