import Hummingbird
import LockrAPI
import LockrPolicy
import NIOCore

extension ControlRouter {
    /// How often a quiet event stream sends a comment line, so that clients and proxies see it alive.
    static let keepaliveInterval: Duration = .seconds(15)

    /// `GET events?person=P`: server-sent events (`text/event-stream`) of everyone, or of `person`,
    /// from now on; with `Last-Event-ID`, first those kept since that one. Each event's `event` is
    /// its type and its `data` a `LiveEventBody`. The stream ends when the daemon stops.
    static func addEventsRoute(to api: RouterGroup<ControlRequestContext>, policy: some PolicyAccess) {
        api.get("events") { request, context in
            var person: String?
            if let named = request.uri.queryParameters["person"] {
                do throws(ControlFailure) {
                    person = try policy.person(named: String(named), caller: nil)
                } catch {
                    let (status, body) = error.response
                    return json(body, status: status)
                }
            }
            let lastSeen = request.headers.first { $0.name.canonicalName == "last-event-id" }?.value
            return eventStream(of: person, after: lastSeen, to: context, policy: policy)
        }
    }

    /// Server-sent events of everyone (`person` nil) or of `person`, from now on, after those kept
    /// since `lastSeen` (a `Last-Event-ID`), for the client of `context`. Ends when the daemon stops
    /// or the client goes. A client over its share of streams gets 429, and everyone once all are
    /// taken 503, each with a JSON error (`busy`) and `Retry-After`, and the connection closes.
    public static func eventStream(
        of person: String?, after lastSeen: String?, to context: ControlRequestContext, policy: some PolicyAccess
    ) -> Response {
        let events: AsyncStream<NumberedLiveEvent>
        switch policy.liveEvents.listen(after: lastSeen, from: context.remoteAddress?.ipAddress ?? "") {
        case .success(let stream):
            events = stream
        case .failure(let refusal):
            return tooManyStreams(refusal, quota: policy.liveEvents.streams)
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { [person] writer in
                try await writer.write(ByteBuffer(string: "retry: 3000\n\n"))
                try await stream(
                    events, of: person, policy: policy, until: context.connectionClosed, to: &writer)
                try await writer.finish(nil)
            })
    }

    private static func tooManyStreams(_ refusal: SourceQuota.Refusal, quota: SourceQuota) -> Response {
        let (status, why): (Int, String) =
            switch refusal {
            case .sourceFull: (429, "this address holds \(quota.perSource) event streams already: close one")
            case .allTaken: (503, "every one of the \(quota.total) event streams is taken: try again later")
            }
        var response = json(Components.Schemas.ErrorBody(error: why, code: .busy), status: status)
        response.headers[.retryAfter] = "30"
        response.headers[.connection] = "close"
        return response
    }

    /// Writes `events` (of `person` only, when given) as they come, and a comment when none came
    /// for a while; returns when they end, throws when the client has gone (`closed`).
    private static func stream(
        _ events: AsyncStream<NumberedLiveEvent>, of person: String?, policy: some PolicyAccess,
        until closed: EventLoopFuture<Void>, to writer: inout any ResponseBodyWriter
    ) async throws {
        let (chunks, sink) = AsyncStream.makeStream(of: String.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in events where person == nil || event.person == person {
                    sink.yield(frame(event, calendar: policy.view(of: event.person).calendar))
                }
                sink.finish()
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: keepaliveInterval)
                    sink.yield(": keepalive\n\n")
                }
            }
            // Gone without a word, the client would be noticed only by the next write.
            closed.whenComplete { _ in sink.finish() }
            defer { group.cancelAll() }
            for await chunk in chunks { try await writer.write(ByteBuffer(string: chunk)) }
        }
    }

    /// One server-sent event: its id, its type as the event name, its body as one line of JSON.
    static func frame(_ event: NumberedLiveEvent, calendar: DayCalendar) -> String {
        let body = Components.Schemas.LiveEventBody(event, calendar: calendar)
        let data = (try? ControlJSON.encoder().encode(body)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "id: \(body.id)\nevent: \(body._type)\ndata: \(data)\n\n"
    }
}
