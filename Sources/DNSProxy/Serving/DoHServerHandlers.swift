import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// When a DNS-over-HTTPS connection closes for idleness: `idleTimeout` after its handshake, its
/// last answer or its start, never while queries wait. Shared by its streams; confined to its loop.
final class ConnectionIdleness {
    private let channel: Channel
    private let idleTimeout: TimeAmount
    private let activity: TCPActivity
    private var waiting = 0
    private var deadline: Scheduled<Void>?

    init(channel: Channel, idleTimeout: TimeAmount, activity: TCPActivity) {
        self.channel = channel
        self.idleTimeout = idleTimeout
        self.activity = activity
        restart()
    }

    func began() {
        waiting += 1
        activity.began()
        deadline?.cancel()
    }

    func ended() {
        waiting -= 1
        activity.ended()
        if waiting == 0 { restart() }
    }

    private func restart() {
        deadline?.cancel()
        let channel = channel
        deadline = channel.eventLoop.scheduleTask(in: idleTimeout) { channel.close(promise: nil) }
    }
}

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
    ) -> EventLoopFuture<DoHResponse> {
        switch request {
        case .failure(let refusal): return context.eventLoop.makeSucceededFuture(.refusal(refusal))
        case .success(let request):
            switch context.handle(request.message, from: source, transport: .https, clientID: request.clientID) {
            case .reply(let bytes): return context.eventLoop.makeSucceededFuture(.answer(bytes))
            case .later(let answer): return answer.map { .answer($0) }
            case .nothing:
                return context.eventLoop.makeSucceededFuture(
                    .refusal(DoHRequestReader.Refusal(status: 400, reason: "not a DNS query")))
            }
        }
    }
}

/// One DNS-over-HTTPS request on its own HTTP/2 stream: read, answered, the stream closed.
final class DoHStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let context: LoopContext
    private let idleness: ConnectionIdleness
    private var method = ""
    private var target = ""
    private var contentType: String?
    private var body: [UInt8] = []
    private var answered = false

    init(context: LoopContext, idleness: ConnectionIdleness) {
        self.context = context
        self.idleness = idleness
    }

    func channelRead(context channelContext: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            method = frame.headers.first(name: ":method") ?? method
            target = frame.headers.first(name: ":path") ?? target
            contentType = frame.headers.first(name: "content-type") ?? contentType
            if frame.endStream { finish(channelContext) }
        case .data(let frame):
            if case .byteBuffer(let buffer) = frame.data {
                guard body.count + buffer.readableBytes <= DoHRequestReader.maxMessage else {
                    return respond(
                        .refusal(DoHRequestReader.Refusal(status: 413, reason: "body too large")), channelContext)
                }
                body += buffer.readableBytesView
            }
            if frame.endStream { finish(channelContext) }
        default:
            break
        }
    }

    private func finish(_ channelContext: ChannelHandlerContext) {
        guard let source = channelContext.channel.parent?.remoteAddress else {
            return channelContext.close(promise: nil)
        }
        answered = true
        idleness.began()
        let request = DoHRequestReader.read(method: method, target: target, contentType: contentType, body: body)
        body = []
        let bound = NIOLoopBound((self, channelContext), eventLoop: channelContext.eventLoop)
        DoHResponse.answering(request, from: source, context: context).whenSuccess { response in
            let (handler, channelContext) = bound.value
            handler.idleness.ended()
            handler.respond(response, channelContext)
        }
    }

    private func respond(_ response: DoHResponse, _ channelContext: ChannelHandlerContext) {
        answered = true
        let headers: HPACKHeaders = [
            ":status": "\(response.status)", "content-type": response.contentType,
            "content-length": "\(response.body.count)",
        ]
        channelContext.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        let data = channelContext.channel.allocator.buffer(bytes: response.body)
        channelContext.writeAndFlush(
            wrapOutboundOut(.data(.init(data: .byteBuffer(data), endStream: true))), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
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
            idleness.began()
            let bound = NIOLoopBound((self, channelContext), eventLoop: channelContext.eventLoop)
            let keepAlive = head.isKeepAlive && !tooLarge
            DoHResponse.answering(request, from: source, context: context).whenSuccess { response in
                let (handler, channelContext) = bound.value
                handler.idleness.ended()
                handler.respond(response, keepAlive: keepAlive, channelContext)
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

    func errorCaught(context: ChannelHandlerContext, error: Error) { context.close(promise: nil) }
}
