import LockrAPI
import LockrPolicy

/// The answers of actions, as the API and the web pages give them.
extension ControlRouter {
    static func modeResponse(_ changed: Performed<ChangeOutcome>) -> Components.Schemas.ModeResponse {
        let view = changed.view
        return Components.Schemas.ModeResponse(
            mode: view.policy.settings.mode.rawValue, summary: view.policy.settings.modeSummary,
            change: Components.Schemas.ChangeBody(changed.result, now: view.now, calendar: view.calendar))
    }

    static func guardResponse(_ changed: Performed<ChangeOutcome>) -> Components.Schemas.GuardResponse {
        let view = changed.view
        return Components.Schemas.GuardResponse(
            guarded: view.policy.guarded,
            change: Components.Schemas.ChangeBody(changed.result, now: view.now, calendar: view.calendar))
    }

    static func windowBody(_ opened: Performed<UnlockWindow>) -> Components.Schemas.WindowBody {
        Components.Schemas.WindowBody(opened.result, now: opened.view.now, calendar: opened.view.calendar)
    }

    static func pendingResponse(_ view: PolicyView) -> Components.Schemas.PendingResponse {
        Components.Schemas.PendingResponse(
            pending: view.policy.state.changes.pending.map {
                Components.Schemas.PendingBody($0, now: view.now, calendar: view.calendar)
            })
    }

    /// Starts `person`'s emergency hold: its id, and how long to hold in real time.
    public static func beginEmergency(
        for person: String, policy: some PolicyAccess
    ) throws(ControlFailure)
        -> Components.Schemas.HoldResponse
    {
        let begun = try policy.perform(.beginEmergency, for: person).expecting(\.hold)
        let wait = Double(begun.view.policy.settings.emergencyHold.milliseconds) / policy.timeScale
        return Components.Schemas.HoldResponse(
            hold: Int64(clamping: begun.result), waitMilliseconds: Int64(wait.rounded(.up)))
    }

    /// Lets go of `person`'s emergency hold `hold`: the window it opened, if it was held long enough.
    public static func completeEmergency(
        hold: UInt64, for person: String, policy: some PolicyAccess
    )
        throws(ControlFailure) -> Components.Schemas.WindowBody
    {
        windowBody(try policy.perform(.completeEmergency(hold: hold), for: person).expecting(\.window))
    }
}
