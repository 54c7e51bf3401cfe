/// The engine's side of the gate (see `GateState`): the rules of the settings in force, today's
/// record and the journal handed to it.
extension PolicyEngine {
    /// The current mode's gate.
    public var gateSteps: [GateStep] { settings.gate.steps(for: settings.mode) }

    var gateRules: GateRules { GateRules(settings) }

    /// Where the person stands at their gate for `app` (every guarded app when nil).
    public func gateRequirement(for app: String?, at now: Instant) -> GateRequirement {
        state.gate.requirement(
            for: try? commitments.appID(app), rules: gateRules, day: state.today, at: max(now, state.lastSeen))
    }

    /// The check of every gated action: see `GateState.pass`.
    mutating func passGate(_ phrase: String?, for app: String?, at now: Instant) throws(PolicyRefusal) {
        try state.gate.pass(phrase, for: app, rules: gateRules, day: &state.today, journal: &journal, at: now)
    }
}
