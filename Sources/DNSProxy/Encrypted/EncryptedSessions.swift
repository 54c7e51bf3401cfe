import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// The request line and headers of a DNS-over-HTTPS POST (RFC 8484 section 4.1).
struct DoHRequest {
    let authority: String
    let path: String
    static let mediaType = "application/dns-message"
    /// Largest answer read from an upstream.
    static let maxAnswer = 65_535
}

/// DNS over TLS: queries pipelined on one connection, each carrying an id unique on it.
final class DoTSession {
    private let channel: Channel
    private let heard: @Sendable () -> Void
    private var inFlight: [UInt16: UpstreamQuery] = [:]
    private var nextID = UInt16.random(in: .min ... .max)

    init(channel: Channel, heard: @escaping @Sendable () -> Void) {
        self.channel = channel
        self.heard = heard
    }

    func send(_ query: UpstreamQuery) {
        guard inFlight.count < EncryptedUpstreamConnection.maxInFlight else {
            return query.fail("too many queries waiting on this connection")
        }
        guard query.message.count >= 12 else { return query.fail("not a DNS message") }
        var id = nextID
        while inFlight[id] != nil { id &+= 1 }
        nextID = id &+ 1
        var bytes = query.message
        bytes[0] = UInt8(id >> 8)
        bytes[1] = UInt8(id & 0xFF)
        inFlight[id] = query
        query.wireID = id
        channel.writeAndFlush(bytes, promise: nil)
    }

    func received(_ reply: [UInt8]) {
        heard()
        guard reply.count >= 12 else { return }
        let id = UInt16(reply[0]) << 8 | UInt16(reply[1])
        inFlight.removeValue(forKey: id)?.answer(reply)
    }

    /// Drops a query that was given up on; a late answer to it is ignored.
    func forget(_ query: UpstreamQuery) {
        if inFlight[query.wireID] === query { inFlight[query.wireID] = nil }
    }

    func failAll(_ reason: String) {
        let queries = inFlight.values
        inFlight = [:]
        for query in queries { query.fail(reason) }
    }
}

/// Hands each framed DNS-over-TLS answer to the session.
final class DoTReplyHandler: ChannelInboundHandler {
    typealias InboundIn = [UInt8]
    private let session: DoTSession

    init(session: DoTSession) { self.session = session }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { session.received(unwrapInboundIn(data)) }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}

/// DNS over HTTPS with HTTP/1.1: requests go out at once and answers come back in their order.
final class HTTP1Session {
    private let channel: Channel
    private let request: DoHRequest
    private let heard: @Sendable () -> Void
    private var waiting: [UpstreamQuery] = []
    private var waitingStart = 0

    init(channel: Channel, request: DoHRequest, heard: @escaping @Sendable () -> Void) {
        self.channel = channel
        self.request = request
        self.heard = heard
    }

    func send(_ query: UpstreamQuery) {
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: request.path)
        head.headers.add(name: "host", value: request.authority)
        head.headers.add(name: "content-type", value: DoHRequest.mediaType)
        head.headers.add(name: "accept", value: DoHRequest.mediaType)
        head.headers.add(name: "content-length", value: "\(query.message.count)")
        waiting.append(query)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(
            HTTPClientRequestPart.body(.byteBuffer(channel.allocator.buffer(bytes: withZeroID(query.message)))),
            promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
    }

    /// The answer to the oldest request: its status and body.
    func received(status: HTTPResponseStatus, contentType: String?, body: [UInt8]) {
        heard()
        guard waitingStart < waiting.count else { return }
        let query = waiting[waitingStart]
        waitingStart += 1
        if waitingStart == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingStart = 0
        }
        DoHAnswer.complete(query, status: Int(status.code), contentType: contentType, body: body)
    }

    func failAll(_ reason: String) {
        let queries = waiting[waitingStart...]
        waiting = []
        waitingStart = 0
        for query in queries { query.fail(reason) }
    }
}

/// Reads HTTP/1.1 responses into the session.
final class HTTP1ReplyHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    private let session: HTTP1Session
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []

    init(session: HTTP1Session) { self.session = session }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(var buffer):
            guard body.count + buffer.readableBytes <= DoHRequest.maxAnswer else {
                context.close(promise: nil)
                return
            }
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            session.received(status: head.status, contentType: head.headers.first(name: "content-type"), body: body)
            self.head = nil
            body = []
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}

/// DNS over HTTPS with HTTP/2: each query a stream of its own, every stream of the connection in
/// this one handler after NIO's `NIOHTTP2Handler` (which keeps the protocol's state, limits and
/// flow control), with no channel per stream. Confined to the connection's event loop.
final class HTTP2Session: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// A query sent, and what came back of its answer so far.
    private struct Exchange {
        let query: UpstreamQuery
        var status: Int?
        var contentType: String?
        var body: [UInt8] = []
    }

    private let request: DoHRequest
    private let heard: @Sendable () -> Void
    private var channelContext: ChannelHandlerContext?
    /// The next stream's number: a client's streams are odd and count up.
    private var nextStream: Int32 = 1
    private var exchanges: [HTTP2StreamID: Exchange] = [:]

    init(request: DoHRequest, heard: @escaping @Sendable () -> Void) {
        self.request = request
        self.heard = heard
    }

    func handlerAdded(context: ChannelHandlerContext) { channelContext = context }

    func send(_ query: UpstreamQuery) {
        guard let channelContext else { return query.fail("the connection is closed") }
        guard exchanges.count < EncryptedUpstreamConnection.maxInFlight else {
            return query.fail("too many queries waiting on this connection")
        }
        guard nextStream < Int32.max - 1 else {
            // Stream numbers are spent: the next query opens a new connection.
            query.fail("this connection's HTTP/2 streams are used up")
            return channelContext.close(promise: nil)
        }
        let stream = HTTP2StreamID(nextStream)
        nextStream += 2
        exchanges[stream] = Exchange(query: query)
        query.streamID = stream
        let headers: HPACKHeaders = [
            ":method": "POST", ":scheme": "https", ":authority": request.authority, ":path": request.path,
            "content-type": DoHRequest.mediaType, "accept": DoHRequest.mediaType,
            "content-length": "\(query.message.count)",
        ]
        let opened = channelContext.eventLoop.makePromise(of: Void.self)
        channelContext.write(
            wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(.init(headers: headers)))), promise: opened)
        let body = channelContext.channel.allocator.buffer(bytes: withZeroID(query.message))
        channelContext.writeAndFlush(
            wrapOutboundOut(
                HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(body), endStream: true)))),
            promise: nil)
        let bound = NIOLoopBound(self, eventLoop: channelContext.eventLoop)
        opened.futureResult.whenFailure { error in
            bound.value.end(stream)?.fail("cannot open an HTTP/2 stream: \(error)")
        }
    }

    /// Gives up on a query: its stream is reset, so that unanswered ones do not pile up.
    func forget(_ query: UpstreamQuery) {
        guard let stream = query.streamID, exchanges[stream]?.query === query, let channelContext else { return }
        exchanges[stream] = nil
        channelContext.writeAndFlush(
            wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .rstStream(.cancel))), promise: nil)
    }

    func failAll(_ reason: String) {
        let queries = exchanges.values.map(\.query)
        exchanges = [:]
        for query in queries { query.fail(reason) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let stream = frame.streamID
        switch frame.payload {
        case .headers(let headers):
            heard()
            guard var exchange = exchanges[stream] else { return }
            if let code = headers.headers.first(name: ":status").flatMap({ Int($0) }) {
                exchange.status = code
                exchange.contentType = headers.headers.first(name: "content-type")
            }
            exchanges[stream] = exchange
            if headers.endStream { complete(stream) }
        case .data(let payload):
            heard()
            guard var exchange = exchanges.removeValue(forKey: stream) else { return }
            if case .byteBuffer(let buffer) = payload.data {
                guard exchange.body.count + buffer.readableBytes <= DoHRequest.maxAnswer else {
                    exchange.query.fail("answer larger than a DNS message")
                    context.writeAndFlush(
                        wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .rstStream(.cancel))), promise: nil)
                    return
                }
                exchange.body += buffer.readableBytesView
            }
            exchanges[stream] = exchange
            if payload.endStream { complete(stream) }
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let closed as StreamClosedEvent:
            let why = closed.reason.map { " (\($0))" } ?? ""
            end(closed.streamID)?.fail("the HTTP/2 stream closed before an answer\(why)")
        case let window as NIOHTTP2WindowUpdatedEvent:
            if let update = HTTP2ConnectionWindow.refill(after: window) {
                context.writeAndFlush(wrapOutboundOut(update), promise: nil)
            }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll("the server closed the connection")
        channelContext = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A stream's error (a reset, a flow-control fault) ends that stream only.
        if let streamError = error as? NIOHTTP2Errors.StreamError {
            end(streamError.streamID)?.fail("HTTP/2 error: \(streamError.baseError)")
            return
        }
        context.close(promise: nil)
    }

    private func complete(_ stream: HTTP2StreamID) {
        guard let exchange = exchanges.removeValue(forKey: stream) else { return }
        DoHAnswer.complete(
            exchange.query, status: exchange.status ?? 0, contentType: exchange.contentType, body: exchange.body)
    }

    /// The query on `stream`, taken out; nil when it was answered or given up on already.
    private func end(_ stream: HTTP2StreamID) -> UpstreamQuery? {
        exchanges.removeValue(forKey: stream)?.query
    }
}

/// Turns a DNS-over-HTTPS response into the query's answer or failure.
enum DoHAnswer {
    static func complete(_ query: UpstreamQuery, status: Int, contentType: String?, body: [UInt8]) {
        guard status == 200 else { return query.fail("HTTP status \(status)") }
        guard contentType?.lowercased().hasPrefix(DoHRequest.mediaType) == true else {
            return query.fail("the answer is not \(DoHRequest.mediaType) (\(contentType ?? "no content type"))")
        }
        guard body.count >= 12 else { return query.fail("the answer is not a DNS message") }
        query.answer(body)
    }
}

/// The message with id 0, as RFC 8484 section 4.1 asks, so that HTTP caches can share answers.
private func withZeroID(_ message: [UInt8]) -> [UInt8] {
    var message = message
    if message.count >= 2 { (message[0], message[1]) = (0, 0) }
    return message
}
