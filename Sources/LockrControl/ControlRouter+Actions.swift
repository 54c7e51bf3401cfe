import Hummingbird
import LockrAPI
import LockrPolicy

/// The routes of the actions that change a person's settings (mode, guards, pending changes, a
/// reset, the PIN) and open their apps (unlock, snooze, extend, emergency): each decodes its body
/// into a `PolicyAction`, with the sentence and the PIN checked as its `Credentials`.
extension ControlRouter {
    static func addActionRoutes(to api: RouterGroup<ControlRequestContext>, policy: some PolicyAccess) {
        api.put("mode") { request, context in
            try await respond {
                let body = try await decode(Components.Schemas.ModeRequest.self, from: request)
                let mode = body.mode
                let budgets = TimeModeSettings.budgetMinutes
                if let budget = body.budgetMinutes, !budgets.contains(budget) {
                    throw Components.Schemas.ErrorBody(
                        error: "budget_minutes must be \(budgets.lowerBound) to \(budgets.upperBound), not \(budget)",
                        code: .invalidSettings)
                }
                if let window = body.windowMinutes, !HourlySettings.windowMinutes.contains(window) {
                    throw Components.Schemas.ErrorBody(
                        error: "window_minutes must be \(HourlySettings.windowMinutes.spokenChoices), not \(window)",
                        code: .invalidSettings)
                }
                let pinCheck = try policy.verifyPIN(pin(request, context))
                let action = PolicyAction.setMode(
                    mode, budget: body.budgetMinutes.map { .seconds($0 * 60) }, perApp: body.perApp,
                    window: body.windowMinutes.map { .seconds($0 * 60) })
                let changed = try policy.perform(
                    action, Credentials(phrase: body.phrase, pin: pinCheck), for: try person(request, context, policy))
                return modeResponse(changed.expecting(\.change))
            }
        }
        api.post("guard") { request, context in
            try await respond {
                let body = try await decode(Components.Schemas.AppRequest.self, from: request)
                guard let app = body.app else {
                    throw Components.Schemas.ErrorBody(error: "'app' is required", code: .badRequest)
                }
                return guardResponse(
                    try policy.perform(.guardApp(app), for: try person(request, context, policy)).expecting(\.change))
            }
        }
        api.delete("guard/:app") { request, context in
            try await respond {
                let raw = try context.parameters.require("app")
                let app = raw.removingPercentEncoding ?? raw
                let body = try await decode(
                    Components.Schemas.PhraseRequest.self, from: request,
                    emptyIs: Components.Schemas.PhraseRequest(phrase: nil))
                let pinCheck = try policy.verifyPIN(pin(request, context))
                let changed = try policy.perform(
                    .unguardApp(app), Credentials(phrase: body.phrase, pin: pinCheck),
                    for: try person(request, context, policy))
                return guardResponse(changed.expecting(\.change))
            }
        }
        api.get("pending") { request, context in
            try await respond {
                pendingResponse(policy.view(of: try person(request, context, policy)))
            }
        }
        api.delete("pending/:id") { request, context in
            try await respond {
                let id = try pendingID(context)
                return pendingResponse(
                    try policy.perform(.cancelPending(id: id), for: try person(request, context, policy)).view)
            }
        }
        api.post("pending/:id/confirm") { request, context in
            try await respond {
                let id = try pendingID(context)
                let body = try await decode(
                    Components.Schemas.PhraseRequest.self, from: request,
                    emptyIs: Components.Schemas.PhraseRequest(phrase: nil))
                let pinCheck = try policy.verifyPIN(pin(request, context))
                let confirmed = try policy.perform(
                    .confirmPending(id: id), Credentials(phrase: body.phrase, pin: pinCheck),
                    for: try person(request, context, policy))
                return pendingResponse(confirmed.view)
            }
        }
        api.post("settings/reset") { request, context in
            try await respond {
                let body = try await decode(
                    Components.Schemas.PhraseRequest.self, from: request,
                    emptyIs: Components.Schemas.PhraseRequest(phrase: nil))
                let pinCheck = try policy.verifyPIN(pin(request, context))
                let reset = try policy.perform(
                    .resetSettings, Credentials(phrase: body.phrase, pin: pinCheck),
                    for: try person(request, context, policy))
                return modeResponse(reset.expecting(\.change))
            }
        }
        api.put("pin") { request, context in
            try await respond {
                let body = try await decode(Components.Schemas.PinRequest.self, from: request)
                if let problem = PinHash.problem(body.pin) {
                    throw Components.Schemas.ErrorBody(error: problem, code: .badRequest)
                }
                try requireCurrentPIN(request, context, policy)
                let record: PinRecord
                do { record = try PinHash.record(for: body.pin) } catch {
                    throw Components.Schemas.ErrorBody(error: "cannot hash the PIN: \(error)", code: .badRequest)
                }
                _ = try policy.perform(.setPin(record), for: People.defaultName)
                return Components.Schemas.PinResponse(set: true)
            }
        }
        api.delete("pin") { request, context in
            try await respond {
                guard policy.view(of: People.defaultName).engine.pin != nil else {
                    throw Components.Schemas.ErrorBody(error: "no PIN is set", code: .nothingToDo)
                }
                try requireCurrentPIN(request, context, policy)
                _ = try policy.perform(.setPin(nil), for: People.defaultName)
                return Components.Schemas.PinResponse(set: false)
            }
        }
        api.post("unlock") { request, context in
            try await respond {
                let body = try await decode(Components.Schemas.UnlockRequest.self, from: request)
                guard (body.app == nil) == (body.all == true) else {
                    throw Components.Schemas.ErrorBody(error: "give either 'app' or \"all\": true", code: .badRequest)
                }
                let unlocked = try policy.perform(
                    .unlock(app: body.app), Credentials(phrase: body.phrase), for: try person(request, context, policy)
                ).expecting(\.unlocked)
                let (now, calendar) = (unlocked.view.now, unlocked.view.calendar)
                return Components.Schemas.UnlockResponse(
                    opened: unlocked.result.opened.map {
                        Components.Schemas.WindowBody($0, now: now, calendar: calendar)
                    },
                    alreadyOpen: unlocked.result.alreadyOpen.map {
                        Components.Schemas.WindowBody($0, now: now, calendar: calendar)
                    })
            }
        }
        api.post("snooze") { request, context in
            try await respond {
                let body = try await decode(
                    Components.Schemas.AppRequest.self, from: request, emptyIs: Components.Schemas.AppRequest(app: nil))
                return windowBody(
                    try policy.perform(
                        .snooze(app: body.app), Credentials(phrase: body.phrase),
                        for: try person(request, context, policy)
                    ).expecting(\.window))
            }
        }
        api.post("extend") { request, context in
            try await respond {
                let body = try await decode(
                    Components.Schemas.AppRequest.self, from: request, emptyIs: Components.Schemas.AppRequest(app: nil))
                let extended = try policy.perform(
                    .extend(app: body.app), Credentials(phrase: body.phrase), for: try person(request, context, policy)
                ).expecting(\.budget)
                return Components.Schemas.ExtendResponse(budgetMinutes: extended.result.milliseconds / 60_000)
            }
        }
        api.post("emergency/hold") { request, context in
            try await respond { try beginEmergency(for: try person(request, context, policy), policy: policy) }
        }
        api.post("emergency") { request, context in
            try await respond {
                let body = try await decode(Components.Schemas.EmergencyRequest.self, from: request)
                guard body.hold >= 0 else {
                    throw Components.Schemas.ErrorBody(error: "'hold' must be a whole number from 0", code: .badRequest)
                }
                return try completeEmergency(
                    hold: UInt64(clamping: body.hold), for: try person(request, context, policy), policy: policy)
            }
        }
    }

    /// Changing or clearing a PIN needs the current one.
    private static func requireCurrentPIN(
        _ request: Request, _ context: ControlRequestContext, _ policy: some PolicyAccess
    ) throws {
        guard try policy.verifyPIN(pin(request, context)) != .missing else {
            throw ControlFailure.refused(.pinRequired)
        }
    }

    static func modeResponse(_ changed: Performed<ChangeOutcome>) -> Components.Schemas.ModeResponse {
        let view = changed.view
        return Components.Schemas.ModeResponse(
            mode: view.engine.settings.mode.rawValue, summary: view.engine.modeSummary,
            change: Components.Schemas.ChangeBody(changed.result, now: view.now, calendar: view.calendar))
    }

    static func guardResponse(_ changed: Performed<ChangeOutcome>) -> Components.Schemas.GuardResponse {
        let view = changed.view
        return Components.Schemas.GuardResponse(
            guarded: view.engine.guarded,
            change: Components.Schemas.ChangeBody(changed.result, now: view.now, calendar: view.calendar))
    }

    static func windowBody(_ opened: Performed<UnlockWindow>) -> Components.Schemas.WindowBody {
        Components.Schemas.WindowBody(opened.result, now: opened.view.now, calendar: opened.view.calendar)
    }

    static func pendingResponse(_ view: PolicyView) -> Components.Schemas.PendingResponse {
        Components.Schemas.PendingResponse(
            pending: view.engine.state.changes.pending.map {
                Components.Schemas.PendingBody($0, now: view.now, calendar: view.calendar)
            })
    }

    private static func pendingID(_ context: ControlRequestContext) throws -> Int {
        guard let id = Int(try context.parameters.require("id")), id > 0 else {
            throw Components.Schemas.ErrorBody(
                error: "a pending change's id is a whole number (`lockr pending list`)", code: .badRequest)
        }
        return id
    }

    /// Starts `person`'s emergency hold: its id, and how long to hold in real time.
    public static func beginEmergency(
        for person: String, policy: some PolicyAccess
    ) throws(ControlFailure)
        -> Components.Schemas.HoldResponse
    {
        let begun = try policy.perform(.beginEmergency, for: person).expecting(\.hold)
        let wait = Double(begun.view.engine.settings.emergencyHold.milliseconds) / policy.timeScale
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
