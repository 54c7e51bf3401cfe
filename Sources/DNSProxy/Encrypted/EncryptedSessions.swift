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

/// One DNS-over-HTTPS query on its own HTTP/2 stream.
final class HTTP2StreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload
    private let query: UpstreamQuery
    private let request: DoHRequest
    private let heard: @Sendable () -> Void
    private var status: Int?
    private var contentType: String?
    private var body: [UInt8] = []

    init(query: UpstreamQuery, request: DoHRequest, heard: @escaping @Sendable () -> Void) {
        self.query = query
        self.request = request
        self.heard = heard
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { sendRequest(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendRequest(context: context)
        context.fireChannelActive()
    }

    private var sent = false

    private func sendRequest(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        let headers: HPACKHeaders = [
            ":method": "POST", ":scheme": "https", ":authority": request.authority, ":path": request.path,
            "content-type": DoHRequest.mediaType, "accept": DoHRequest.mediaType,
            "content-length": "\(query.message.count)",
        ]
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        let data = context.channel.allocator.buffer(bytes: withZeroID(query.message))
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(data), endStream: true))), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var ended = false
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            heard()
            if let code = headers.headers.first(name: ":status").flatMap({ Int($0) }) {
                status = code
                contentType = headers.headers.first(name: "content-type")
            }
            ended = headers.endStream
        case .data(let frame):
            heard()
            if case .byteBuffer(var buffer) = frame.data {
                guard body.count + buffer.readableBytes <= DoHRequest.maxAnswer else {
                    query.fail("answer larger than a DNS message")
                    context.close(promise: nil)
                    return
                }
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
            ended = frame.endStream
        default: break
        }
        if ended {
            DoHAnswer.complete(query, status: status ?? 0, contentType: contentType, body: body)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        query.fail("the HTTP/2 stream closed before an answer")
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        query.fail("HTTP/2 error: \(error)")
        context.close(promise: nil)
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
