import Foundation
import Hummingbird
import LockrPolicy

/// The routes of schedules and profiles.
extension ControlRouter {
    static func addRestrictionRoutes(to api: RouterGroup<ControlRequestContext>, policy: some PolicyAccess) {
        api.get("schedules") { request, context in
            try await respond {
                policy.read(for: try person(request, context, policy)) { engine, now in
                    schedulesResponse(engine, now, change: nil)
                }
            }
        }
        api.post("schedules") { request, context in
            try await respond {
                let body = try await decode(ScheduleRequest.self, from: request)
                let schedule = try schedule(body)
                let pinCheck = try policy.verifyPIN(pin(request))
                return try policy.perform(for: try person(request, context, policy)) { (engine, now) throws(PolicyRefusal) in
                    let outcome = try engine.addSchedule(schedule, phrase: body.phrase, pin: pinCheck, at: now)
                    return schedulesResponse(engine, now, change: outcome)
                }
            }
        }
        api.delete("schedules/:name") { request, context in
            try await respond {
                let name = try parameter("name", context)
                let body = try await decode(PhraseRequest.self, from: request, emptyIs: PhraseRequest(phrase: nil))
                let pinCheck = try policy.verifyPIN(pin(request))
                return try policy.perform(for: try person(request, context, policy)) { (engine, now) throws(PolicyRefusal) in
                    let outcome = try engine.removeSchedule(name, phrase: body.phrase, pin: pinCheck, at: now)
                    return schedulesResponse(engine, now, change: outcome)
                }
            }
        }
        api.get("profiles") { request, context in
            try await respond {
                policy.read(for: try person(request, context, policy)) { engine, now in profilesResponse(engine, now) }
            }
        }
        api.get("profiles/:name") { request, context in
            try await respond {
                let name = try parameter("name", context)
                let found = policy.read(for: try person(request, context, policy)) { engine, now in
                    try? profileBody(name, engine, now)
                }
                guard let found else { throw ControlFailure.refused(.notFound("no profile \(name) (`lockr profile list` shows them)")) }
                return found
            }
        }
        api.post("profiles") { request, context in
            try await respond {
                let body = try await decode(ProfileRequest.self, from: request)
                let pinCheck = try policy.verifyPIN(pin(request))
                return try policy.perform(for: try person(request, context, policy)) { (engine, now) throws(PolicyRefusal) in
                    let profile = try engine.defineProfile(Profile(name: body.name, block: body.block), pin: pinCheck, at: now)
                    return try profileBody(profile.name, engine, now)
                }
            }
        }
        api.delete("profiles/:name") { request, context in
            try await respond {
                let name = try parameter("name", context)
                let pinCheck = try policy.verifyPIN(pin(request))
                return try policy.perform(for: try person(request, context, policy)) { (engine, now) throws(PolicyRefusal) in
                    _ = try engine.removeProfile(name, pin: pinCheck, at: now)
                    return profilesResponse(engine, now)
                }
            }
        }
        for action in ["activate", "deactivate", "toggle"] {
            api.post("profiles/:name/\(action)") { request, context in
                try await respond {
                    let name = try parameter("name", context)
                    let body = try await decode(
                        ProfileSwitchRequest.self, from: request, emptyIs: ProfileSwitchRequest(forMinutes: nil))
                    if let minutes = body.forMinutes, !(1...7 * 1440).contains(minutes) {
                        throw ErrorBody(error: "for_minutes must be 1 to \(7 * 1440) (7 days)", code: "bad_request")
                    }
                    let duration = body.forMinutes.map { Duration.seconds($0 * 60) }
                    let pinCheck = action == "activate" ? PinCheck.none : try policy.verifyPIN(pin(request))
                    return try policy.perform(for: try person(request, context, policy)) {
                        (engine, now) throws(PolicyRefusal) in
                        switch action {
                        case "activate": _ = try engine.activateProfile(name, for: duration, at: now)
                        case "deactivate": _ = try engine.deactivateProfile(name, pin: pinCheck, at: now)
                        default: _ = try engine.toggleProfile(name, for: duration, pin: pinCheck, at: now)
                        }
                        return try profileBody(name, engine, now)
                    }
                }
            }
        }
    }

    /// The schedule a request describes, checked.
    private static func schedule(_ body: ScheduleRequest) throws -> Schedule {
        guard let days = Weekdays(body.days ?? "daily") else {
            throw ErrorBody(
                error: "days: expected days such as mon-fri, sat,sun or daily, not '\(body.days ?? "")'", code: "bad_request")
        }
        guard let from = Schedule.minutes(body.from), let to = Schedule.minutes(body.to) else {
            throw ErrorBody(error: "from and to: expected times HH:MM (00:00 to 24:00)", code: "bad_request")
        }
        return Schedule(name: body.name, days: days, from: from, to: to, block: body.block)
    }

    /// A path parameter, percent-decoded.
    private static func parameter(_ name: String, _ context: ControlRequestContext) throws -> String {
        let raw = try context.parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }

    static func schedulesResponse(_ engine: PolicyEngine, _ now: Instant, change: ChangeOutcome?) -> SchedulesResponse {
        let calendar = engine.settings.calendar
        return SchedulesResponse(
            schedules: engine.restrictionStatus(at: now).schedules.map { ScheduleBody($0, now: now, calendar: calendar) },
            change: change.map { ChangeBody($0, now: now, calendar: calendar) })
    }

    static func profilesResponse(_ engine: PolicyEngine, _ now: Instant) -> ProfilesResponse {
        let calendar = engine.settings.calendar
        return ProfilesResponse(
            profiles: engine.restrictionStatus(at: now).profiles.map { ProfileBody($0, now: now, calendar: calendar) })
    }

    private static func profileBody(_ name: String, _ engine: PolicyEngine, _ now: Instant) throws(PolicyRefusal)
        -> ProfileBody
    {
        guard let status = engine.restrictionStatus(at: now).profiles.first(where: { $0.profile.name == name }) else {
            throw .notFound("no profile \(name) (`lockr profile list` shows them)")
        }
        return ProfileBody(status, now: now, calendar: engine.settings.calendar)
    }
}
