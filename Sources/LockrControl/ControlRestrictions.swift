import Foundation
import LockrAPI
import LockrPolicy

/// The answers about schedules and profiles, as the API and the web pages give them.
extension ControlRouter {
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

    /// Every schedule of the person `view` is of, and the change just made, if any.
    public static func schedulesResponse(
        of person: String, _ view: PolicyView, change: ChangeOutcome?
    ) -> Components.Schemas.SchedulesResponse {
        let (now, calendar) = (view.now, view.calendar)
        return Components.Schemas.SchedulesResponse(
            person: person,
            schedules: view.policy.status(at: now).schedules.map {
                Components.Schemas.ScheduleBody($0, now: now, calendar: calendar)
            },
            change: change.map { Components.Schemas.ChangeBody($0, now: now, calendar: calendar) })
    }

    /// Every profile of the person `view` is of, on or off.
    public static func profilesResponse(of person: String, _ view: PolicyView) -> Components.Schemas.ProfilesResponse {
        Components.Schemas.ProfilesResponse(
            person: person,
            profiles: view.policy.status(at: view.now).profiles.map {
                Components.Schemas.ProfileBody($0, now: view.now, calendar: view.calendar)
            })
    }

    static func profileBody(
        _ name: String, _ view: PolicyView
    ) throws(ControlFailure) -> Components.Schemas.ProfileBody {
        guard
            let status = view.policy.status(at: view.now).profiles.first(where: { $0.profile.name == name })
        else {
            throw .refused(.notFound("no profile \(name) (`lockr profile list` shows them)"))
        }
        return Components.Schemas.ProfileBody(status, now: view.now, calendar: view.calendar)
    }
}
