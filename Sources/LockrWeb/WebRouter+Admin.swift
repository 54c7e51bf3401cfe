import HTTPTypes
import Hummingbird
import LockrAPI
import LockrControl
import LockrPolicy
import PlainText

/// The admin view, behind the household's PIN: every page but the sign-in form needs a session
/// (`AdminSessions`), every change is a POST with the form token, and the session stands for the
/// PIN in the changes it makes (each still costs its person's gate and commitment delay where it
/// loosens). Wrong PINs count as at the CLI, with the same growing lockouts.
///
/// | method | path | does |
/// |---|---|---|
/// | GET | /admin | the overview, or the sign-in form |
/// | POST | /admin/login | form: pin, csrf |
/// | POST | /admin/logout | form: csrf |
/// | POST | /admin/devices | form: device (MAC or IP address), person, phrase, csrf: assigns it (a move that loosens waits) |
/// | GET | /admin/people/{person} | their status, charts, mode, profiles, schedules |
/// | POST | /admin/people/{person}/mode | form: mode, budget, window, phrase, csrf |
/// | POST | /admin/people/{person}/profiles/{name} | form: action (activate, deactivate), csrf |
/// | POST | /admin/people/{person}/schedules | form: name, days, from, to, block, phrase, csrf |
/// | POST | /admin/people/{person}/schedules/{name}/remove | form: phrase, csrf |
/// | POST | /admin/people/{person}/filters | form: kind (deny, allow), match, value, comment, phrase, csrf |
/// | POST | /admin/people/{person}/filters/remove | form: entry ("KIND VALUE"), phrase, csrf |
/// | POST | /admin/people/{person}/safe-search | form: search (on), youtube, phrase, csrf |
/// | GET | /admin/lists | the lists given by URL |
/// | POST | /admin/lists | form: person, kind (blocklist, allowlist), url, comment, phrase, csrf |
/// | POST | /admin/lists/refresh | form: name (every list when empty), csrf |
/// | GET | /admin/names | the home's own names |
/// | POST | /admin/names | form: name, type, data, comment, csrf: adds a local record |
/// | POST | /admin/names/remove | form: record, csrf |
/// | GET | /admin/dashboard | |
/// | GET | /admin/queries | ?person=&client=&blocked=on&since=SECONDS |
/// | GET | /admin/events | ?person= |
extension WebRouter {
    static func addAdminRoutes(to router: Router<ControlRequestContext>, policy: some PolicyAccess, pages: Pages) {
        let sessions = AdminSessions()
        let admin = router.group("admin")
        admin.get { request, _ in
            let token = FormToken(request)
            var response =
                sessions.isSignedIn(request)
                ? overview(policy: policy, pages: pages, csrf: token.value)
                : signIn(policy: policy, pages: pages, csrf: token.value)
            if token.isNew { response.setCookie(token.cookie) }
            return response
        }
        admin.post("login") { request, context in
            let form = try await FormToken.checked(PinForm.self, from: request)
            do throws(ControlFailure) {
                switch try policy.verifyPIN(PinEntry(presented: form.pin, from: context.remoteAddress)) {
                case .verified: break
                case .none: return signIn(policy: policy, pages: pages, csrf: form.csrf, status: .conflict)
                case .missing: return signIn(policy: policy, pages: pages, csrf: form.csrf, status: .forbidden)
                }
            } catch {
                let (status, body) = error.response
                return signIn(
                    policy: policy, pages: pages, csrf: form.csrf, error: body.error,
                    status: HTTPResponse.Status(code: status))
            }
            var response = Response(status: .seeOther, headers: [.location: "/admin"])
            response.setCookie(sessions.start())
            return response
        }
        admin.post("logout") { request, _ in
            _ = try await FormToken.checked(TokenOnlyForm.self, from: request)
            var response = Response(status: .seeOther, headers: [.location: "/admin"])
            response.setCookie(sessions.end(request))
            return response
        }
        admin.get("people/:person") { request, context in
            guard sessions.isSignedIn(request) else { return toSignIn }
            return try personPage(
                try known(context.parameters.require("person"), policy), policy: policy, pages: pages,
                csrf: FormToken(request).value)
        }
        admin.post("people/:person/mode") { request, context in
            try await change(ModeForm.self, request, context, sessions: sessions, policy: policy, pages: pages) {
                form, person in
                guard let mode = Mode(rawValue: form.mode) else {
                    throw ControlFailure.refused(.invalidSettings("no mode \(form.mode)"))
                }
                _ = try policy.perform(
                    .setMode(
                        mode, budget: try minutes(form.budget, "the budget"),
                        window: try minutes(form.window, "the window")),
                    Credentials(phrase: form.phrase.flatMap { $0.isEmpty ? nil : $0 }, pin: .verified), for: person)
            }
        }
        admin.post("people/:person/profiles/:name") { request, context in
            try await change(ProfileForm.self, request, context, sessions: sessions, policy: policy, pages: pages) {
                form, person in
                guard let action = ProfileSwitch(rawValue: form.action) else {
                    throw ControlFailure.refused(.nothingToDo("no such switch: \(form.action)"))
                }
                _ = try policy.perform(
                    .switchProfile(name: try context.parameters.require("name"), action), Credentials(pin: .verified),
                    for: person)
            }
        }
        admin.post("people/:person/schedules") { request, context in
            try await change(ScheduleForm.self, request, context, sessions: sessions, policy: policy, pages: pages) {
                form, person in
                let schedule = try ControlRouter.schedule(
                    Components.Schemas.ScheduleRequest(
                        name: form.name.trimmed, days: form.days, from: form.from,
                        to: form.to,
                        block: form.block.split(separator: ",").map(\.trimmed)
                            .filter { !$0.isEmpty }))
                _ = try policy.perform(
                    .addSchedule(schedule),
                    Credentials(phrase: form.phrase.flatMap { $0.isEmpty ? nil : $0 }, pin: .verified), for: person)
            }
        }
        admin.post("people/:person/schedules/:name/remove") { request, context in
            try await change(PhraseForm.self, request, context, sessions: sessions, policy: policy, pages: pages) {
                form, person in
                _ = try policy.perform(
                    .removeSchedule(name: try context.parameters.require("name")),
                    Credentials(phrase: form.phrase.flatMap { $0.isEmpty ? nil : $0 }, pin: .verified), for: person)
            }
        }
        admin.post("devices") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            let form = try await FormToken.checked(DeviceForm.self, from: request)
            do throws(ControlFailure) {
                let phrase = form.phrase.flatMap { $0.isEmpty ? nil : $0 }
                if let waiting = try policy.assignDevice(form.device, to: form.person, phrase: phrase) {
                    // The person it leaves shows the move among their waiting changes.
                    let page = "/admin/people/\(waiting.change.from)"
                    return Response(status: .seeOther, headers: [.location: page])
                }
            } catch {
                let (status, body) = error.response
                return overview(
                    policy: policy, pages: pages, csrf: form.csrf, error: body.error,
                    status: HTTPResponse.Status(code: status))
            }
            return Response(status: .seeOther, headers: [.location: "/admin"])
        }
        admin.get("queries") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            let parameters = request.uri.queryParameters
            let named = parameters["person"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            var query = QueryLogRequest(
                person: try named.map { try known($0, policy) },
                client: parameters["client"].map(String.init).flatMap { $0.isEmpty ? nil : String($0.prefix(64)) },
                blockedOnly: parameters["blocked"] == "on", limit: 200)
            query.sinceSeconds =
                parameters["since"].flatMap { Int64($0) }.flatMap { seconds in
                    AdminQueriesPage.spans.contains { $0.seconds == seconds } ? seconds : nil
                } ?? 3600
            let page = AdminQueriesPage(try policy.queries(query), request: query, csrf: FormToken(request).value)
            return pages.html("admin-queries", ["title": "Queries", "page": page, "still": true])
        }
        admin.get("dashboard") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            let page = AdminDashboardPage(try policy.querySummary(), csrf: FormToken(request).value)
            return pages.html("admin-dashboard", ["title": "Dashboard", "page": page, "still": true])
        }
        addFilterRoutes(to: admin, sessions: sessions, policy: policy, pages: pages)
        addNameRoutes(to: admin, sessions: sessions, policy: policy, pages: pages)
        admin.get("events") { request, _ in
            guard sessions.isSignedIn(request) else { return toSignIn }
            let named = request.uri.queryParameters["person"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
            let person = try named.map { try known($0, policy) }
            let view = policy.view(of: person ?? People.defaultName)
            let events = try policy.events(since: view.now - .seconds(7 * 86_400), limit: 200, person: person)
            let page = AdminEventsPage(
                events.map { Components.Schemas.EventBody($0, calendar: policy.view(of: $0.person).calendar) },
                people: policy.peopleNames(),
                person: person, csrf: FormToken(request).value)
            return pages.html("admin-events", ["title": "Events", "page": page, "still": true])
        }
    }

    /// A form's field of whole minutes: nil when left empty.
    private static func minutes(_ field: String?, _ name: String) throws(ControlFailure) -> Duration? {
        guard let field = field?.trimmed, !field.isEmpty else { return nil }
        guard let minutes = Int64(field), (0...1440).contains(minutes) else {
            throw .refused(.invalidSettings("\(name) is a whole number of minutes, 0 to 1440, not '\(field)'"))
        }
        return .seconds(minutes * 60)
    }

    /// How many days a person's use chart shows.
    static let chartDays = 14

    /// The person `name` names; 404 when nobody is.
    static func known(_ name: String, _ policy: some PolicyAccess) throws -> String {
        guard let person = try? policy.person(named: name, caller: nil) else { throw HTTPError(.notFound) }
        return person
    }

    static var toSignIn: Response { Response(status: .seeOther, headers: [.location: "/admin"]) }

    private static func signIn(
        policy: some PolicyAccess, pages: Pages, csrf: String, error: String? = nil, status: HTTPResponse.Status = .ok
    ) -> Response {
        let hasPIN = policy.view(of: People.defaultName).policy.pin != nil
        let message = error ?? (status == .forbidden ? "That is not the PIN." : nil)
        var values: [String: Any] = ["title": "Household", "csrf": csrf, "hasPIN": hasPIN, "still": true]
        values["error"] = message
        return pages.html("admin-login", values, status: status)
    }

    private static func overview(
        policy: some PolicyAccess, pages: Pages, csrf: String, error: String? = nil, status: HTTPResponse.Status = .ok
    ) -> Response {
        let people = policy.peopleNames().map { person in
            Components.Schemas.StatusBody(person: person, view: policy.view(of: person), devices: [])
        }
        let page = AdminOverview(
            people: people, devices: policy.devices(), backends: policy.backends(), csrf: csrf, error: error)
        return pages.html("admin", ["title": "Household", "page": page, "still": true], status: status)
    }

    private static func personPage(
        _ person: String, policy: some PolicyAccess, pages: Pages, csrf: String, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) throws -> Response {
        let view = policy.view(of: person)
        var day = view.calendar.day(containing: view.now)
        var keys = [day.key]
        while keys.count < chartDays {
            day = view.calendar.day(containing: day.start - .seconds(1))
            keys.insert(day.key, at: 0)
        }
        let page = AdminPersonPage(
            Components.Schemas.StatusBody(
                person: person, view: view, devices: policy.devices().filter { $0.person == person }),
            stats: try ControlRouter.stats(of: person, day: nil, count: chartDays, policy: policy), dayKeys: keys,
            profiles: ControlRouter.profilesResponse(of: person, view).profiles,
            schedules: ControlRouter.schedulesResponse(of: person, view, change: nil).schedules,
            filters: ControlRouter.filtersResponse(view), timeScale: policy.timeScale,
            csrf: csrf, error: error)
        return pages.html("admin-person", ["title": person, "page": page, "still": true], status: status)
    }

    /// A change the admin makes for the person the path names: signed in, with the form token;
    /// 303 back to their page when it is made or waits for its time, their page with why when not.
    static func change<Form: Decodable & FormWithToken>(
        _ type: Form.Type, _ request: Request, _ context: ControlRequestContext, sessions: AdminSessions,
        policy: some PolicyAccess, pages: Pages, _ action: (Form, String) throws -> Void
    ) async throws -> Response {
        guard sessions.isSignedIn(request) else { return toSignIn }
        let form = try await FormToken.checked(Form.self, from: request)
        let person = try known(context.parameters.require("person"), policy)
        do {
            try action(form, person)
        } catch {
            let (status, said) = try refusal(error)
            return try personPage(person, policy: policy, pages: pages, csrf: form.csrf, error: said, status: status)
        }
        return Response(status: .seeOther, headers: [.location: "/admin/people/\(person)"])
    }

    /// A change refused, as a page says it: its status and words (with the sentence to type, where
    /// the gate asks it); any other error is thrown on.
    static func refusal(_ error: any Error) throws -> (status: HTTPResponse.Status, text: String) {
        switch error {
        case let failure as ControlFailure:
            let (status, body) = failure.response
            return (
                HTTPResponse.Status(code: status),
                body.sentence.map { "\(body.error) The sentence: \($0)" } ?? body.error
            )
        case let body as Components.Schemas.ErrorBody: return (.badRequest, body.error)
        default: throw error
        }
    }
}

/// `POST /admin/login`.
struct PinForm: Decodable, FormWithToken {
    let pin: String
    let csrf: String
}

/// `POST /admin/devices`.
struct DeviceForm: Decodable, FormWithToken {
    let device: String
    let person: String
    /// The sentence of the person the device leaves, where the move loosens.
    let phrase: String?
    let csrf: String
}

/// `POST /admin/people/{person}/mode`.
struct ModeForm: Decodable, FormWithToken {
    let mode: String
    /// Whole minutes; empty leaves it as it is.
    let budget: String?
    let window: String?
    let phrase: String?
    let csrf: String
}

/// `POST /admin/people/{person}/profiles/{name}`.
struct ProfileForm: Decodable, FormWithToken {
    let action: String
    let csrf: String
}

/// `POST /admin/people/{person}/schedules`: `block` is a comma-separated list.
struct ScheduleForm: Decodable, FormWithToken {
    let name: String
    let days: String?
    let from: String
    let to: String
    let block: String
    let phrase: String?
    let csrf: String
}

/// A change that may need the person's sentence.
struct PhraseForm: Decodable, FormWithToken {
    let phrase: String?
    let csrf: String
}
