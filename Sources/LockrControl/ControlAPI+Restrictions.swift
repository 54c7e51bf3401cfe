import LockrAPI
import LockrPolicy

/// Schedules and profiles.
extension ControlAPI {
    func listSchedules(_ input: Operations.ListSchedules.Input) async throws -> Operations.ListSchedules.Output {
        let name = try person(input.query.person)
        return .ok(.init(body: .json(ControlRouter.schedulesResponse(of: name, policy.view(of: name), change: nil))))
    }

    func addSchedule(_ input: Operations.AddSchedule.Input) async throws -> Operations.AddSchedule.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        let schedule = try ControlRouter.schedule(body)
        let pinCheck = try pin(input.headers.xLockrPIN)
        let name = try person(input.query.person)
        let added = try policy.perform(
            .addSchedule(schedule), Credentials(phrase: body.phrase, pin: pinCheck), for: name)
        return .ok(
            .init(body: .json(ControlRouter.schedulesResponse(of: name, added.view, change: added.result.change))))
    }

    func removeSchedule(_ input: Operations.RemoveSchedule.Input) async throws -> Operations.RemoveSchedule.Output {
        let pinCheck = try pin(input.headers.xLockrPIN)
        let whose = try person(input.query.person)
        let removed = try policy.perform(
            .removeSchedule(name: input.path.name), Credentials(phrase: input.body?.phrase, pin: pinCheck),
            for: whose)
        return .ok(
            .init(body: .json(ControlRouter.schedulesResponse(of: whose, removed.view, change: removed.result.change))))
    }

    func listProfiles(_ input: Operations.ListProfiles.Input) async throws -> Operations.ListProfiles.Output {
        let name = try person(input.query.person)
        return .ok(.init(body: .json(ControlRouter.profilesResponse(of: name, policy.view(of: name)))))
    }

    func getProfile(_ input: Operations.GetProfile.Input) async throws -> Operations.GetProfile.Output {
        let view = policy.view(of: try person(input.query.person))
        return .ok(.init(body: .json(try ControlRouter.profileBody(input.path.name, view))))
    }

    func defineProfile(_ input: Operations.DefineProfile.Input) async throws -> Operations.DefineProfile.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        let pinCheck = try pin(input.headers.xLockrPIN)
        let defined = try policy.perform(
            .defineProfile(Profile(name: body.name, block: body.block)), Credentials(pin: pinCheck),
            for: try person(input.query.person))
        return .ok(.init(body: .json(try ControlRouter.profileBody(body.name, defined.view))))
    }

    func removeProfile(_ input: Operations.RemoveProfile.Input) async throws -> Operations.RemoveProfile.Output {
        let pinCheck = try pin(input.headers.xLockrPIN)
        let whose = try person(input.query.person)
        let removed = try policy.perform(.removeProfile(name: input.path.name), Credentials(pin: pinCheck), for: whose)
        return .ok(.init(body: .json(ControlRouter.profilesResponse(of: whose, removed.view))))
    }

    func activateProfile(_ input: Operations.ActivateProfile.Input) async throws -> Operations.ActivateProfile.Output {
        .ok(.init(body: .json(try switchProfile(input.path.name, .activate, input.body, pin: nil, input.query.person))))
    }

    func deactivateProfile(
        _ input: Operations.DeactivateProfile.Input
    ) async throws -> Operations.DeactivateProfile.Output {
        .ok(
            .init(
                body: .json(
                    try switchProfile(
                        input.path.name, .deactivate, input.body, pin: input.headers.xLockrPIN, input.query.person))))
    }

    func toggleProfile(_ input: Operations.ToggleProfile.Input) async throws -> Operations.ToggleProfile.Output {
        .ok(
            .init(
                body: .json(
                    try switchProfile(
                        input.path.name, .toggle, input.body, pin: input.headers.xLockrPIN, input.query.person))))
    }

    /// Turns profile `name` on, off or over, for `for_minutes` when given; turning one on needs no PIN.
    private func switchProfile(
        _ name: String, _ how: ProfileSwitch, _ body: Components.RequestBodies.ProfileSwitch?, pin presented: String?,
        _ named: String?
    ) throws -> Components.Schemas.ProfileBody {
        var minutes: Int?
        if case .json(let given) = body { minutes = given.forMinutes }
        if let minutes, !(1...7 * 1440).contains(minutes) {
            throw Components.Schemas.ErrorBody(
                error: "for_minutes must be 1 to \(7 * 1440) (7 days)", code: .badRequest)
        }
        let pinCheck = how == .activate ? PinCheck.none : try pin(presented)
        let switched = try policy.perform(
            .switchProfile(name: name, how, duration: minutes.map { .seconds($0 * 60) }), Credentials(pin: pinCheck),
            for: try person(named))
        return try ControlRouter.profileBody(name, switched.view)
    }
}
