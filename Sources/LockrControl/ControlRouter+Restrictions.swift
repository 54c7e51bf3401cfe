import Foundation
import Hummingbird
import LockrAPI
import LockrPolicy

/// The routes of schedules and profiles.
extension ControlRouter {
    static func addRestrictionRoutes(to api: RouterGroup<ControlRequestContext>, policy: some PolicyAccess) {
        api.get("schedules") { request, context in
            try await respond {
                let name = try person(request, context, policy)
                return schedulesResponse(of: name, policy.view(of: name), change: nil)
            }
        }
        api.post("schedules") { request, context in
            try await respond {
                let body = try await decode(Components.Schemas.ScheduleRequest.self, from: request)
                let schedule = try schedule(body)
                let pinCheck = try policy.verifyPIN(pin(request, context))
                let name = try person(request, context, policy)
                let added = try policy.perform(
                    .addSchedule(schedule), Credentials(phrase: body.phrase, pin: pinCheck), for: name)
                return schedulesResponse(of: name, added.view, change: added.result.change)
            }
        }
        api.delete("schedules/:name") { request, context in
            try await respond {
                let name = try parameter("name", context)
                let body = try await decode(
                    Components.Schemas.PhraseRequest.self, from: request,
                    emptyIs: Components.Schemas.PhraseRequest(phrase: nil))
                let pinCheck = try policy.verifyPIN(pin(request, context))
                let whose = try person(request, context, policy)
                let removed = try policy.perform(
                    .removeSchedule(name: name), Credentials(phrase: body.phrase, pin: pinCheck), for: whose)
                return schedulesResponse(of: whose, removed.view, change: removed.result.change)
            }
        }
        api.get("profiles") { request, context in
            try await respond {
                let name = try person(request, context, policy)
                return profilesResponse(of: name, policy.view(of: name))
            }
        }
        api.get("profiles/:name") { request, context in
            try await respond {
                let name = try parameter("name", context)
                return try profileBody(name, policy.view(of: try person(request, context, policy)))
            }
        }
        api.post("profiles") { request, context in
            try await respond {
                let body = try await decode(Components.Schemas.ProfileRequest.self, from: request)
                let pinCheck = try policy.verifyPIN(pin(request, context))
                let defined = try policy.perform(
                    .defineProfile(Profile(name: body.name, block: body.block)), Credentials(pin: pinCheck),
                    for: try person(request, context, policy))
                return try profileBody(body.name, defined.view)
            }
        }
        api.delete("profiles/:name") { request, context in
            try await respond {
                let name = try parameter("name", context)
                let pinCheck = try policy.verifyPIN(pin(request, context))
                let whose = try person(request, context, policy)
                return profilesResponse(
                    of: whose,
                    try policy.perform(.removeProfile(name: name), Credentials(pin: pinCheck), for: whose).view)
            }
        }
        for action in ProfileSwitch.allCases {
            api.post("profiles/:name/\(action.rawValue)") { request, context in
                try await respond {
                    let name = try parameter("name", context)
                    let body = try await decode(
                        Components.Schemas.ProfileSwitchRequest.self, from: request,
                        emptyIs: Components.Schemas.ProfileSwitchRequest(forMinutes: nil))
                    if let minutes = body.forMinutes, !(1...7 * 1440).contains(minutes) {
                        throw Components.Schemas.ErrorBody(
                            error: "for_minutes must be 1 to \(7 * 1440) (7 days)", code: .badRequest)
                    }
                    let duration = body.forMinutes.map { Duration.seconds($0 * 60) }
                    let pinCheck = action == .activate ? PinCheck.none : try policy.verifyPIN(pin(request, context))
                    let switched = try policy.perform(
                        .switchProfile(name: name, action, duration: duration), Credentials(pin: pinCheck),
                        for: try person(request, context, policy))
                    return try profileBody(name, switched.view)
                }
            }
        }
    }

    /// The schedule a request describes, checked: an `ErrorBody` says what is wrong.
    public static func schedule(
        _ body: Components.Schemas.ScheduleRequest
    ) throws(Components.Schemas.ErrorBody) -> Schedule {
        guard let days = Weekdays(body.days ?? "daily") else {
            throw Components.Schemas.ErrorBody(
                error: "days: expected days such as mon-fri, sat,sun or daily, not '\(body.days ?? "")'",
                code: .badRequest)
        }
        guard let from = Schedule.minutes(body.from), let to = Schedule.minutes(body.to) else {
            throw Components.Schemas.ErrorBody(
                error: "from and to: expected times HH:MM (00:00 to 24:00)", code: .badRequest)
        }
        return Schedule(name: body.name, days: days, from: from, to: to, block: body.block)
    }

    /// A path parameter, percent-decoded.
    private static func parameter(_ name: String, _ context: ControlRequestContext) throws -> String {
        let raw = try context.parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }

    /// Every schedule of the person `view` is of, and the change just made, if any.
    public static func schedulesResponse(
        of person: String, _ view: PolicyView, change: ChangeOutcome?
    ) -> Components.Schemas.SchedulesResponse {
        let (now, calendar) = (view.now, view.calendar)
        return Components.Schemas.SchedulesResponse(
            person: person,
            schedules: view.engine.restrictionStatus(at: now).schedules.map {
                Components.Schemas.ScheduleBody($0, now: now, calendar: calendar)
            },
            change: change.map { Components.Schemas.ChangeBody($0, now: now, calendar: calendar) })
    }

    /// Every profile of the person `view` is of, on or off.
    public static func profilesResponse(of person: String, _ view: PolicyView) -> Components.Schemas.ProfilesResponse {
        Components.Schemas.ProfilesResponse(
            person: person,
            profiles: view.engine.restrictionStatus(at: view.now).profiles.map {
                Components.Schemas.ProfileBody($0, now: view.now, calendar: view.calendar)
            })
    }

    private static func profileBody(
        _ name: String, _ view: PolicyView
    ) throws(ControlFailure) -> Components.Schemas.ProfileBody {
        guard
            let status = view.engine.restrictionStatus(at: view.now).profiles.first(where: { $0.profile.name == name })
        else {
            throw .refused(.notFound("no profile \(name) (`lockr profile list` shows them)"))
        }
        return Components.Schemas.ProfileBody(status, now: view.now, calendar: view.calendar)
    }
}
