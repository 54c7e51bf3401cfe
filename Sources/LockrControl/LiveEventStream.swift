import Foundation
import HTTPTypes
import Hummingbird
import LockrAPI
import LockrPolicy
import NIOCore
import OpenAPIRuntime

/// The live events as server-sent events, for the control API's `GET events` and the web pages'
/// `/events`: OpenAPIRuntime's events, encoded by its encoder.
public enum LiveEventStream {
    /// How often a quiet stream sends an empty line, so that clients and proxies see it alive.
    static let keepaliveInterval: Duration = .seconds(15)

    /// The events of everyone (`person` nil) or of `person`, from now on, after those kept since
    /// `lastSeen` (a `Last-Event-ID`), for a client at `source`: first `retry: 3000`, then each event
    /// (its id, its type as the event name, its `LiveEventBody` as one line of JSON), and an empty
    /// line when none came for a while. Ends when the daemon stops, or at once when `closed`
    /// completes (the client went). A source over its share of streams is refused with 429, and
    /// everyone once all are taken with 503, each `busy` with `Retry-After`, and the connection closes.
    public static func events(
        of person: String?, after lastSeen: String?, from source: SocketAddress?,
        until closed: EventLoopFuture<Void>?, policy: some PolicyAccess
    ) throws(HTTPFailure) -> AsyncStream<ServerSentEvent> {
        let quota = policy.liveEvents.streams
        let numbered: AsyncStream<NumberedLiveEvent>
        switch policy.liveEvents.listen(after: lastSeen, from: source?.ipAddress ?? "") {
        case .success(let stream): numbered = stream
        case .failure(.sourceFull):
            throw HTTPFailure(
                status: 429, error: "this address holds \(quota.perSource) event streams already: close one",
                code: .busy, retryAfterSeconds: 30, closesConnection: true)
        case .failure(.allTaken):
            throw HTTPFailure(
                status: 503, error: "every one of the \(quota.total) event streams is taken: try again later",
                code: .busy, retryAfterSeconds: 30, closesConnection: true)
        }
        // A client that cannot keep up loses its oldest events, as the hub's listeners do.
        let (events, sink) = AsyncStream.makeStream(
            of: ServerSentEvent.self, bufferingPolicy: .bufferingNewest(LiveEventHub.listenerBuffer))
        sink.yield(ServerSentEvent(retry: 3000))
        let forwarding = Task {
            for await event in numbered where person == nil || event.person == person {
                sink.yield(serverSentEvent(event, calendar: policy.view(of: event.person).calendar))
            }
            sink.finish()
        }
        let keepingAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: keepaliveInterval)
                sink.yield(ServerSentEvent())
            }
        }
        sink.onTermination = { _ in
            forwarding.cancel()
            keepingAlive.cancel()
        }
        // Gone without a word, the client would be noticed only by the next write.
        closed?.whenComplete { _ in sink.finish() }
        return events
    }

    /// One live event as a server-sent event: its id, its type as the event name, its body as one
    /// line of JSON.
    static func serverSentEvent(_ event: NumberedLiveEvent, calendar: DayCalendar) -> ServerSentEvent {
        let body = Components.Schemas.LiveEventBody(event, calendar: calendar)
        let data = (try? ControlJSON.encoder().encode(body)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return ServerSentEvent(id: body.id, event: body._type, data: data)
    }

    /// `events` as a `text/event-stream` response of Hummingbird's (the web pages' own route).
    public static func response(_ events: AsyncStream<ServerSentEvent>) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        let bytes = events.asEncodedServerSentEvents()
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                for try await chunk in bytes { try await writer.write(ByteBuffer(bytes: chunk)) }
                try await writer.finish(nil)
            })
    }
}
