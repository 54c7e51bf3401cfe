import LockrAPI
import LockrPolicy

/// The actions that change a person's settings (mode, guards, pending changes, a reset, the PIN)
/// and open their apps (unlock, snooze, extend, emergency): each body becomes a `PolicyAction`, with
/// the sentence and the PIN checked as its `Credentials`.
extension ControlAPI {
    func setMode(_ input: Operations.SetMode.Input) async throws -> Operations.SetMode.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
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
        let pinCheck = try pin(input.headers.xLockrPIN)
        let action = PolicyAction.setMode(
            body.mode, budget: body.budgetMinutes.map { .seconds($0 * 60) }, perApp: body.perApp,
            window: body.windowMinutes.map { .seconds($0 * 60) })
        let changed = try policy.perform(
            action, Credentials(phrase: body.phrase, pin: pinCheck), for: try person(input.query.person))
        return .ok(.init(body: .json(ControlRouter.modeResponse(changed.expecting(\.change)))))
    }

    func guardApp(_ input: Operations.GuardApp.Input) async throws -> Operations.GuardApp.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        guard let app = body.app else {
            throw Components.Schemas.ErrorBody(error: "'app' is required", code: .badRequest)
        }
        let changed = try policy.perform(.guardApp(app), for: try person(input.query.person))
        return .ok(.init(body: .json(ControlRouter.guardResponse(changed.expecting(\.change)))))
    }

    func unguardApp(_ input: Operations.UnguardApp.Input) async throws -> Operations.UnguardApp.Output {
        let pinCheck = try pin(input.headers.xLockrPIN)
        let changed = try policy.perform(
            .unguardApp(input.path.app), Credentials(phrase: input.body?.phrase, pin: pinCheck),
            for: try person(input.query.person))
        return .ok(.init(body: .json(ControlRouter.guardResponse(changed.expecting(\.change)))))
    }

    func listPending(_ input: Operations.ListPending.Input) async throws -> Operations.ListPending.Output {
        .ok(.init(body: .json(ControlRouter.pendingResponse(policy.view(of: try person(input.query.person))))))
    }

    func cancelPending(_ input: Operations.CancelPending.Input) async throws -> Operations.CancelPending.Output {
        let cancelled = try policy.perform(
            .cancelPending(id: try pendingID(input.path.id)), for: try person(input.query.person))
        return .ok(.init(body: .json(ControlRouter.pendingResponse(cancelled.view))))
    }

    func confirmPending(_ input: Operations.ConfirmPending.Input) async throws -> Operations.ConfirmPending.Output {
        let id = try pendingID(input.path.id)
        let pinCheck = try pin(input.headers.xLockrPIN)
        let confirmed = try policy.perform(
            .confirmPending(id: id), Credentials(phrase: input.body?.phrase, pin: pinCheck),
            for: try person(input.query.person))
        return .ok(.init(body: .json(ControlRouter.pendingResponse(confirmed.view))))
    }

    func resetSettings(_ input: Operations.ResetSettings.Input) async throws -> Operations.ResetSettings.Output {
        let pinCheck = try pin(input.headers.xLockrPIN)
        let reset = try policy.perform(
            .resetSettings, Credentials(phrase: input.body?.phrase, pin: pinCheck),
            for: try person(input.query.person))
        return .ok(.init(body: .json(ControlRouter.modeResponse(reset.expecting(\.change)))))
    }

    func setPin(_ input: Operations.SetPin.Input) async throws -> Operations.SetPin.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        if let problem = PinHash.problem(body.pin) {
            throw Components.Schemas.ErrorBody(error: problem, code: .badRequest)
        }
        try requireCurrentPIN(input.headers.xLockrPIN)
        let record: PinRecord
        do { record = try PinHash.record(for: body.pin) } catch {
            throw Components.Schemas.ErrorBody(error: "cannot hash the PIN: \(error)", code: .badRequest)
        }
        _ = try policy.perform(.setPin(record), for: People.defaultName)
        return .ok(.init(body: .json(.init(set: true))))
    }

    func clearPin(_ input: Operations.ClearPin.Input) async throws -> Operations.ClearPin.Output {
        guard policy.view(of: People.defaultName).policy.pin != nil else {
            throw Components.Schemas.ErrorBody(error: "no PIN is set", code: .nothingToDo)
        }
        try requireCurrentPIN(input.headers.xLockrPIN)
        _ = try policy.perform(.setPin(nil), for: People.defaultName)
        return .ok(.init(body: .json(.init(set: false))))
    }

    func unlock(_ input: Operations.Unlock.Input) async throws -> Operations.Unlock.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        guard (body.app == nil) == (body.all == true) else {
            throw Components.Schemas.ErrorBody(error: "give either 'app' or \"all\": true", code: .badRequest)
        }
        let unlocked = try policy.perform(
            .unlock(app: body.app), Credentials(phrase: body.phrase), for: try person(input.query.person)
        ).expecting(\.unlocked)
        let (now, calendar) = (unlocked.view.now, unlocked.view.calendar)
        return .ok(
            .init(
                body: .json(
                    .init(
                        opened: unlocked.result.opened.map { .init($0, now: now, calendar: calendar) },
                        alreadyOpen: unlocked.result.alreadyOpen.map { .init($0, now: now, calendar: calendar) }))))
    }

    func snooze(_ input: Operations.Snooze.Input) async throws -> Operations.Snooze.Output {
        var body = Components.Schemas.AppRequest()
        if case .json(let given) = input.body { body = given }
        let opened = try policy.perform(
            .snooze(app: body.app), Credentials(phrase: body.phrase), for: try person(input.query.person))
        return .ok(.init(body: .json(ControlRouter.windowBody(opened.expecting(\.window)))))
    }

    func extend(_ input: Operations.Extend.Input) async throws -> Operations.Extend.Output {
        var body = Components.Schemas.AppRequest()
        if case .json(let given) = input.body { body = given }
        let extended = try policy.perform(
            .extend(app: body.app), Credentials(phrase: body.phrase), for: try person(input.query.person)
        ).expecting(\.budget)
        return .ok(.init(body: .json(.init(budgetMinutes: extended.result.milliseconds / 60_000))))
    }

    func beginEmergencyHold(
        _ input: Operations.BeginEmergencyHold.Input
    ) async throws -> Operations.BeginEmergencyHold.Output {
        .ok(.init(body: .json(try ControlRouter.beginEmergency(for: try person(input.query.person), policy: policy))))
    }

    func completeEmergency(
        _ input: Operations.CompleteEmergency.Input
    ) async throws -> Operations.CompleteEmergency.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        guard body.hold >= 0 else {
            throw Components.Schemas.ErrorBody(error: "'hold' must be a whole number from 0", code: .badRequest)
        }
        let window = try ControlRouter.completeEmergency(
            hold: UInt64(body.hold), for: try person(input.query.person), policy: policy)
        return .ok(.init(body: .json(window)))
    }

    /// Changing or clearing a PIN needs the current one.
    private func requireCurrentPIN(_ presented: String?) throws {
        guard try pin(presented) != .missing else { throw ControlFailure.refused(.pinRequired) }
    }

    private func pendingID(_ id: Int) throws -> Int {
        guard id > 0 else {
            throw Components.Schemas.ErrorBody(
                error: "a pending change's id is a whole number (`lockr pending list`)", code: .badRequest)
        }
        return id
    }
}
