import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// What one DNS-over-HTTPS request gets back.
struct DoHResponse {
    let status: Int
    let contentType: String
    let body: [UInt8]

    static func answer(_ bytes: [UInt8]) -> DoHResponse {
        DoHResponse(status: 200, contentType: DoHRequestReader.mediaType, body: bytes)
    }

    static func refusal(_ refusal: DoHRequestReader.Refusal) -> DoHResponse {
        DoHResponse(status: refusal.status, contentType: "text/plain", body: Array((refusal.reason + "\n").utf8))
    }

    /// The answer to a request, from the loop's pipeline: at once, or once the upstreams answered.
    static func answering(
        _ request: Result<DoHRequestReader.Request, DoHRequestReader.Refusal>, from source: SocketAddress,
        context: LoopContext
    ) -> DoHServerAnswer {
        switch request {
        case .failure(let refusal): return .now(.refusal(refusal))
        case .success(let request):
            switch context.handle(request.message, from: source, transport: .https, clientID: request.clientID) {
            case .reply(let bytes): return .now(.answer(bytes))
            case .later(let answer): return .later(answer.map { .answer($0) })
            case .nothing: return .now(.refusal(DoHRequestReader.Refusal(status: 400, reason: "not a DNS query")))
            }
        }
    }
}

/// A DNS-over-HTTPS response known at once (blocked, cached, refused) or still on its way.
enum DoHServerAnswer {
    case now(DoHResponse)
    case later(EventLoopFuture<DoHResponse>)
}

/// DNS over HTTPS with HTTP/2: every stream of a connection in one handler, after NIO's
/// `NIOHTTP2Handler` (which keeps the protocol's state, limits and flow control), with no channel
/// per stream. A request whole in its HEADERS frame (a GET, or one that ends the stream) is
/// answered at once; a POST's body is gathered by stream until its end. The answer goes back as a
/// HEADERS and a DATA frame on the stream, unless the stream has closed meanwhile. Answers known
/// at once are flushed together when the read is complete.
///
/// The connection's receive window is given back as requests are read. A stream's own window is
/// `initialStreamWindow`: one byte more than the largest DNS message, so a body too large is seen
/// and refused (413) without more window.
final class DoHConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// What a stream's window starts at.
    static let initialStreamWindow = DoHRequestReader.maxMessage + 1

    /// A request whose body is being read.
    private struct PartialRequest {
        let method: String
        let target: String
        let contentType: String?
        var body: [UInt8] = []
    }

    private let context: LoopContext
    private let idleness: ConnectionIdleness
    /// The client's address, read once: the handler comes after TLS, on a connected channel.
    private var source: SocketAddress?
    private var newestStream = HTTP2StreamID.rootStream
    private var reading: [HTTP2StreamID: PartialRequest] = [:]
    /// Streams whose answer waits for the upstreams.
    private var waiting: Set<HTTP2StreamID> = []
    /// Answers written while reading, flushed together when the read is complete.
    private var pendingFlush = false

    init(context: LoopContext, idleness: ConnectionIdleness) {
        self.context = context
        self.idleness = idleness
    }

    func handlerAdded(context channelContext: ChannelHandlerContext) {
        source = channelContext.channel.remoteAddress
    }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let stream = frame.streamID
        switch frame.payload {
        case .headers(let headers):
            // A client's streams count up: a HEADERS frame on a known one is a trailer.
            guard stream > newestStream else {
                if headers.endStream, let partial = reading.removeValue(forKey: stream) {
                    answer(partial, on: stream, channelContext)
                }
                return
            }
            newestStream = stream
            let partial = PartialRequest(
                method: headers.headers.first(name: ":method") ?? "",
                target: headers.headers.first(name: ":path") ?? "",
                contentType: headers.headers.first(name: "content-type"))
            // A GET is whole with its headers: answered now, not at the client's END_STREAM,
            // which may come in a later packet.
            if headers.endStream || partial.method == "GET" {
                answer(partial, on: stream, channelContext)
            } else {
                reading[stream] = partial
            }
        case .data(let payload):
            guard var partial = reading.removeValue(forKey: stream) else { return }
            if case .byteBuffer(let buffer) = payload.data {
                guard partial.body.count + buffer.readableBytes <= DoHRequestReader.maxMessage else {
                    return refuseTooLarge(stream, channelContext)
                }
                partial.body += buffer.readableBytesView
            }
            if payload.endStream {
                answer(partial, on: stream, channelContext)
            } else {
                reading[stream] = partial
            }
        default:
            break
        }
    }

    func userInboundEventTriggered(context channelContext: ChannelHandlerContext, event: Any) {
        switch event {
        case let closed as StreamClosedEvent:
            if !reading.isEmpty { reading[closed.streamID] = nil }
            if !waiting.isEmpty, waiting.remove(closed.streamID) != nil { idleness.ended() }
        case let window as NIOHTTP2WindowUpdatedEvent:
            if let update = HTTP2ConnectionWindow.refill(after: window) {
                channelContext.writeAndFlush(wrapOutboundOut(update), promise: nil)
            }
        default:
            break
        }
        channelContext.fireUserInboundEventTriggered(event)
    }

    private func answer(_ partial: PartialRequest, on stream: HTTP2StreamID, _ channelContext: ChannelHandlerContext) {
        guard let source else { return channelContext.close(promise: nil) }
        idleness.touched()
        let request = DoHRequestReader.read(
            method: partial.method, target: partial.target, contentType: partial.contentType, body: partial.body)
        switch DoHResponse.answering(request, from: source, context: context) {
        case .now(let response):
            write(response, on: stream, channelContext)
            pendingFlush = true
        case .later(let answer):
            waiting.insert(stream)
            idleness.began()
            let bound = NIOLoopBound((self, channelContext), eventLoop: channelContext.eventLoop)
            answer.whenSuccess { response in
                let (handler, channelContext) = bound.value
                guard handler.waiting.remove(stream) != nil else { return }
                handler.idleness.ended()
                handler.write(response, on: stream, channelContext)
                channelContext.flush()
            }
        }
    }

    /// A body larger than any DNS message: refused before its end, and the rest of it declined
    /// (RST_STREAM with NO_ERROR, as RFC 9113 section 8.1 allows after a complete response).
    private func refuseTooLarge(_ stream: HTTP2StreamID, _ channelContext: ChannelHandlerContext) {
        write(.refusal(DoHRequestReader.Refusal(status: 413, reason: "body too large")), on: stream, channelContext)
        channelContext.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .rstStream(.noError))), promise: nil)
        pendingFlush = true
    }

    private func write(_ response: DoHResponse, on stream: HTTP2StreamID, _ channelContext: ChannelHandlerContext) {
        var headers: HPACKHeaders = [":status": "\(response.status)", "content-type": response.contentType]
        // content-length too (dig reads the body by it), kept out of HPACK's table: each length
        // would take a place there, and every later header's lookup would pass over them all.
        headers.add(name: "content-length", value: "\(response.body.count)", indexing: .nonIndexable)
        channelContext.write(
            wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(.init(headers: headers)))), promise: nil)
        let body = channelContext.channel.allocator.buffer(bytes: response.body)
        channelContext.write(
            wrapOutboundOut(
                HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(body), endStream: true)))),
            promise: nil)
    }

    func channelReadComplete(context channelContext: ChannelHandlerContext) {
        if pendingFlush {
            pendingFlush = false
            channelContext.flush()
        }
        channelContext.fireChannelReadComplete()
    }

    func channelInactive(context channelContext: ChannelHandlerContext) {
        for _ in waiting { idleness.ended() }
        waiting = []
        reading = [:]
        idleness.stop()
        channelContext.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A stream's error (a reset, a flow-control fault) ends that stream only.
        if error is NIOHTTP2Errors.StreamError { return }
        context.close(promise: nil)
    }
}

/// DNS over HTTPS with HTTP/1.1: one request at a time (NIO's pipelining assistance holds the next
/// until this one's answer has gone), the connection kept open between them.
final class DoHHTTP1Handler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let context: LoopContext
    private let idleness: ConnectionIdleness
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false

    init(context: LoopContext, idleness: ConnectionIdleness) {
        self.context = context
        self.idleness = idleness
    }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
            tooLarge = false
        case .body(let buffer):
            if body.count + buffer.readableBytes > DoHRequestReader.maxMessage {
                tooLarge = true
                body = []
            } else if !tooLarge {
                body += buffer.readableBytesView
            }
        case .end:
            guard let head, let source = channelContext.remoteAddress else { return }
            self.head = nil
            let request: Result<DoHRequestReader.Request, DoHRequestReader.Refusal> =
                tooLarge
                ? .failure(DoHRequestReader.Refusal(status: 413, reason: "body too large"))
                : DoHRequestReader.read(
                    method: head.method.rawValue, target: head.uri,
                    contentType: head.headers.first(name: "content-type"),
                    body: body)
            body = []
            idleness.touched()
            let keepAlive = head.isKeepAlive && !tooLarge
            switch DoHResponse.answering(request, from: source, context: context) {
            case .now(let response):
                respond(response, keepAlive: keepAlive, channelContext)
            case .later(let answer):
                idleness.began()
                let bound = NIOLoopBound((self, channelContext), eventLoop: channelContext.eventLoop)
                answer.whenSuccess { response in
                    let (handler, channelContext) = bound.value
                    handler.idleness.ended()
                    handler.respond(response, keepAlive: keepAlive, channelContext)
                }
            }
        }
    }

    private func respond(_ response: DoHResponse, keepAlive: Bool, _ channelContext: ChannelHandlerContext) {
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status))
        head.headers.add(name: "content-type", value: response.contentType)
        head.headers.add(name: "content-length", value: "\(response.body.count)")
        if !keepAlive { head.headers.add(name: "connection", value: "close") }
        channelContext.write(wrapOutboundOut(.head(head)), promise: nil)
        channelContext.write(
            wrapOutboundOut(.body(.byteBuffer(channelContext.channel.allocator.buffer(bytes: response.body)))),
            promise: nil)
        let done = channelContext.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = channelContext.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func channelInactive(context channelContext: ChannelHandlerContext) {
        idleness.stop()
        channelContext.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}
