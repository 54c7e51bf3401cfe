import Foundation
import HTTPTypes
import Hummingbird
import LockrAPI
import LockrControl
import LockrPolicy
import LockrSpeech
import Mustache
import NIOCore

/// The web pages any device on the network opens to see where its person stands. A request is
/// mapped to a person the way a DNS query is (its address, the neighbour table); every other device
/// is the default person's. Pages are rendered on the server; nothing comes from elsewhere, and the
/// Content-Security-Policy allows no inline script or style.
public enum WebRouter {
    /// The routes, answering from `policy`; spoken sentences are heard by `speech`.
    public static func build(policy: some PolicyAccess, speech: SpeechPool?) throws -> Router<ControlRequestContext> {
        var library = MustacheLibrary()
        for (name, text) in WebAssets.templates { try library.register(text, named: name) }
        let pages = Pages(library: library)
        // The control API's context: it carries the caller's address, whose person the page is.
        let router = Router(context: ControlRequestContext.self)
        router.add(middleware: SecurityHeaders())
        router.add(middleware: ErrorPages(pages: pages))
        router.get("/") { _, context in
            let person = caller(context, policy)
            let view = policy.view(of: person)
            let body = Components.Schemas.StatusBody(
                person: person, view: view, devices: policy.devices().filter { $0.person == person })
            return pages.html(
                "status",
                ["title": StatusPage.heading(of: person), "page": StatusPage(body, timeScale: policy.timeScale)])
        }
        router.get("/events") { request, context in
            let lastSeen = request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
            do throws(HTTPFailure) {
                return LiveEventStream.response(
                    try LiveEventStream.events(
                        of: caller(context, policy), after: lastSeen, from: context.remoteAddress,
                        until: context.connectionClosed, policy: policy))
            } catch {
                return error.response
            }
        }
        router.get("/static/lockr.css") { _, _ in asset(WebAssets.stylesheet, type: "text/css; charset=utf-8") }
        router.get("/static/lockr.js") { _, _ in asset(WebAssets.script, type: "text/javascript; charset=utf-8") }
        addAppRoutes(to: router, policy: policy, pages: pages)
        addHeldRoutes(to: router, policy: policy, speech: speech)
        addAdminRoutes(to: router, policy: policy, pages: pages)
        return router
    }

    static func asset(_ text: String, type: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.cacheControl] = "max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// The person of the device that asks: as DNS queries are told apart; any other device is the
    /// default person's. A page never acts for anyone else.
    static func caller(_ context: ControlRequestContext, _ policy: some PolicyAccess) -> String {
        context.remoteAddress.flatMap(policy.person(ofCaller:)) ?? People.defaultName
    }

    /// The page that says why a form was not taken.
    static func refusedForm(_ refusal: FormRefusal, _ pages: Pages) -> Response {
        switch refusal {
        case .forged:
            pages.html(
                "refused",
                [
                    "title": "Not sent",
                    "message": "This form carried no valid token: open the page again and send it from there.",
                ],
                status: .forbidden)
        case .unreadable:
            pages.html(
                "refused", ["title": "Not sent", "message": "This form was incomplete or could not be read."],
                status: .badRequest)
        }
    }
}

/// Renders the templates into responses.
struct Pages: Sendable {
    let library: MustacheLibrary

    func html(_ template: String, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let text = library.render(values, withTemplate: template) ?? ""
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Headers every answer carries: no script, style or frame from anywhere but lockr itself, and no
/// inline ones; no sniffing, no referrer, never framed (`frame-ancestors`).
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }

    static var policy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "media-src 'self' blob:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.policy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "no-referrer"
        return response
    }
}

/// Pages instead of bare errors: for addresses lockr has no page for (404), and for forms it does
/// not take (`FormRefusal`).
struct ErrorPages<Context: RequestContext>: RouterMiddleware {
    let pages: Pages

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            return pages.html("missing", ["title": "Not here"], status: .notFound)
        } catch let refusal as FormRefusal {
            return WebRouter.refusedForm(refusal, pages)
        }
    }
}
