/// The engine's side of the gate (see `GateState`): the rules of the settings in force, today's
/// record and the journal handed to it.
extension PolicyEngine {
    var gateRules: GateRules { GateRules(settings) }

    /// The check of every gated action: see `GateState.pass`.
    mutating func passGate(_ phrase: String?, for app: String?, at now: Instant) throws(PolicyRefusal) {
        try state.gate.pass(phrase, for: app, rules: gateRules, day: &state.today, journal: &journal, at: now)
    }
}
