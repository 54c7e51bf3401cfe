/// What `unlock` did.
public struct UnlockResult: Sendable, Equatable {
    /// Windows opened by this call.
    public let opened: [UnlockWindow]
    /// Apps that were open already, with the window they are open in.
    public let alreadyOpen: [UnlockWindow]
}

/// The ways an app opens besides its mode: the hour's window, snooze, extend and the emergency
/// bypass, each checked by the day's allowances (`DayAllowances`) against the mode, schedules and
/// profiles before the gate is asked for and it is granted.
extension PolicyEngine {
    var allowances: DayAllowances { DayAllowances(settings: settings) }

    /// Carries out `action`, one of the allowances (see `Grant`): checked, its gate passed
    /// (`phrase`: the sentence typed), then granted. An emergency hold ends here, lasted or not.
    mutating func grant(_ action: PolicyAction, phrase: String?, at now: Instant) throws(PolicyRefusal) -> ActionOutcome
    {
        var held: Duration?
        if case .completeEmergency(let hold) = action { held = holds.end(hold, at: now) }
        let grant = try allowances.check(action, readout, held: held, at: now)
        if grant.isGated { try passGate(phrase, for: grant.app, at: now) }
        for app in grant.opens { standing.markOpen(app) }
        return allowances.grant(grant, today: &state.today, windows: &state.windows, journal: &journal, at: now)
    }
}
