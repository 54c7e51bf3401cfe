@testable import LockrPolicy

/// The actions as the tests ask for them, each through `apply` as the control API, the CLI and
/// the web pages do: one call per action, with its credentials and its outcome's own type.
extension PolicyEngine {
    mutating func setMode(
        _ mode: Mode, budget: Duration? = nil, perApp: Bool? = nil, window: Duration? = nil, phrase: String? = nil,
        pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        try apply(
            .setMode(mode, budget: budget, perApp: perApp, window: window),
            credentials: .init(phrase: phrase, pin: pin),
            at: now
        ).change!
    }

    mutating func guardApp(_ app: String, at now: Instant) throws(PolicyRefusal) -> ChangeOutcome {
        try apply(.guardApp(app), at: now).change!
    }

    mutating func unguardApp(
        _ app: String, phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        try apply(.unguardApp(app), credentials: .init(phrase: phrase, pin: pin), at: now).change!
    }

    mutating func resetSettings(
        phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        try apply(.resetSettings, credentials: .init(phrase: phrase, pin: pin), at: now).change!
    }

    mutating func addSchedule(
        _ schedule: Schedule, phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        try apply(.addSchedule(schedule), credentials: .init(phrase: phrase, pin: pin), at: now).change!
    }

    mutating func removeSchedule(
        _ name: String, phrase: String? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ChangeOutcome {
        try apply(.removeSchedule(name: name), credentials: .init(phrase: phrase, pin: pin), at: now).change!
    }

    mutating func beginEmergency(at now: Instant) throws(PolicyRefusal) -> UInt64 {
        try apply(.beginEmergency, at: now).hold!
    }

    mutating func issueChallenges(for app: String?, seed: UInt64, at now: Instant) throws(PolicyRefusal) -> [Challenge]
    {
        try apply(.issueChallenges(app: app, seed: seed), at: now).challenges!
    }

    mutating func answerChallenge(_ id: String, answer: String, at now: Instant) throws(PolicyRefusal) -> Challenge {
        guard case .answered(let challenge) = try apply(.answerChallenge(id: id, answer: answer), at: now) else {
            fatalError("an answer's outcome is the challenge")
        }
        return challenge
    }

    mutating func passSpokenSentence(_ spoken: Spoken, at now: Instant) throws(PolicyRefusal) -> Instant {
        guard case .gateOpen(let until) = try apply(.passSpokenSentence(spoken), at: now) else {
            fatalError("a spoken sentence's outcome is until when the gate is open")
        }
        return until
    }

    mutating func beginTypedFallback(at now: Instant) throws(PolicyRefusal) -> Instant {
        try apply(.beginTypedFallback, at: now).typedFrom!
    }

    @discardableResult
    mutating func defineProfile(
        _ profile: Profile, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal)
        -> Profile
    {
        try definedProfile(apply(.defineProfile(profile), credentials: .init(pin: pin), at: now))
    }

    mutating func removeProfile(_ name: String, pin: PinCheck = .none, at now: Instant) throws(PolicyRefusal) -> Profile
    {
        try definedProfile(apply(.removeProfile(name: name), credentials: .init(pin: pin), at: now))
    }

    /// The profile switched on, as it is on now.
    mutating func activateProfile(
        _ name: String, for duration: Duration? = nil, at now: Instant
    ) throws(PolicyRefusal) -> ActiveProfile {
        _ = try apply(.switchProfile(name: name, .activate, duration: duration), at: now)
        return state.profiles.activeOne(name, at: now)!
    }

    /// The profile switched off, as it was on.
    mutating func deactivateProfile(
        _ name: String, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> ActiveProfile {
        let wasOn = state.profiles.activeOne(name, at: now)
        _ = try apply(.switchProfile(name: name, .deactivate), credentials: .init(pin: pin), at: now)
        return wasOn!
    }

    mutating func toggleProfile(
        _ name: String, for duration: Duration? = nil, pin: PinCheck = .none, at now: Instant
    ) throws(PolicyRefusal) -> Bool {
        guard
            case .switched(let on) = try apply(
                .switchProfile(name: name, .toggle, duration: duration), credentials: .init(pin: pin), at: now)
        else { fatalError("a switch's outcome is whether the profile is on") }
        return on
    }

    private func definedProfile(_ outcome: ActionOutcome) -> Profile {
        guard case .profile(let profile) = outcome else { fatalError("a profile's outcome is the profile") }
        return profile
    }
}
