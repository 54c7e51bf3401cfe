import HTTPTypes
import Hummingbird
import LockrAPI
import LockrControl
import LockrPolicy
import LockrSpeech

/// The app pages and the forms on them, each a POST with the browser's form token that acts for
/// the caller's person only:
///
/// | method | path | form | does |
/// |---|---|---|---|
/// | GET | /apps/{app} | | the app's page: why, until when, the ways out |
/// | POST | /apps/{app}/open | action (unlock, snooze, extend), phrase | opens a window |
/// | POST | /apps/{app}/puzzles | | issues the gate's puzzles |
/// | POST | /apps/{app}/answer | id, answer | answers one |
/// | POST | /apps/{app}/fallback | | begins the wait for typing where speaking is asked |
///
/// A form that passes answers 303 to the app's page; one refused shows the page again with why,
/// under the status the API gives the same refusal.
extension WebRouter {
    static func addAppRoutes(to router: Router<ControlRequestContext>, policy: some PolicyAccess, pages: Pages) {
        router.get("/apps/:app") { request, context in
            let token = FormToken(request)
            var response = try appPage(context, policy: policy, pages: pages, token: token.value)
            if token.isNew { response.setCookie(token.cookie) }
            return response
        }
        router.post("/apps/:app/open") { request, context in
            try await act(OpenForm.self, request, context, policy: policy, pages: pages) { form, app, person in
                let action: PolicyAction
                switch form.action {
                case "unlock": action = .unlock(app: app)
                case "snooze": action = .snooze(app: app)
                case "extend": action = .extend(app: app)
                default: throw ControlFailure.refused(.nothingToDo("no such way to open it: \(form.action)"))
                }
                _ = try policy.perform(action, Credentials(phrase: form.phrase), for: person)
            }
        }
        router.post("/apps/:app/puzzles") { request, context in
            try await act(TokenOnlyForm.self, request, context, policy: policy, pages: pages) { _, app, person in
                _ = try policy.perform(.issueChallenges(app: app, seed: .random(in: .min ... .max)), for: person)
            }
        }
        router.post("/apps/:app/answer") { request, context in
            try await act(AnswerForm.self, request, context, policy: policy, pages: pages) { form, _, person in
                guard form.answer.count <= 64 else {
                    throw ControlFailure.refused(.unreadableAnswer("an answer is at most 64 characters"))
                }
                _ = try policy.perform(.answerChallenge(id: form.id, answer: form.answer), for: person)
            }
        }
        router.post("/apps/:app/fallback") { request, context in
            try await act(TokenOnlyForm.self, request, context, policy: policy, pages: pages) { _, _, person in
                _ = try policy.perform(.beginTypedFallback, for: person)
            }
        }
    }

    /// Checks the form's token, then does `action` (form, app, person) for the caller's person on
    /// the page's app:
    /// 303 back to the page when it passes, the page with the refusal when not.
    private static func act<Form: Decodable & FormWithToken>(
        _ type: Form.Type, _ request: Request, _ context: ControlRequestContext, policy: some PolicyAccess,
        pages: Pages, _ action: (Form, String, String) throws -> Void
    ) async throws -> Response {
        let form = try await FormToken.checked(Form.self, from: request)
        let app = try context.parameters.require("app")
        do {
            try action(form, app, caller(context, policy))
        } catch let error as ControlFailure {
            let (status, body) = error.response
            return try appPage(
                context, policy: policy, pages: pages, token: form.csrf, error: body.error,
                status: HTTPResponse.Status(code: status))
        }
        return Response(status: .seeOther, headers: [.location: "/apps/\(app)"])
    }

    /// The page of the app the path names, for the caller's person; 404 for an app lockr does not
    /// know or that is not guarded for them.
    private static func appPage(
        _ context: ControlRequestContext, policy: some PolicyAccess, pages: Pages, token: String, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) throws -> Response {
        let id = try context.parameters.require("app")
        let person = caller(context, policy)
        let view = policy.view(of: person)
        let body = Components.Schemas.StatusBody(person: person, view: view, devices: [])
        guard let app = body.apps.first(where: { $0.id == id.lowercased() }) else { throw HTTPError(.notFound) }
        let page = AppPage(
            app, of: body, view: view, timeScale: policy.timeScale, suggestion: policy.liveEvents.nextSuggestion(),
            csrf: token, error: error)
        return pages.html("app", ["title": app.name, "page": page], status: status)
    }
}

/// `POST /apps/{app}/open`.
struct OpenForm: Decodable, FormWithToken {
    let action: String
    let phrase: String?
    let csrf: String
}

/// `POST /apps/{app}/answer`.
struct AnswerForm: Decodable, FormWithToken {
    let id: String
    let answer: String
    let csrf: String
}

/// A form that carries nothing but its token.
struct TokenOnlyForm: Decodable, FormWithToken {
    let csrf: String
}
