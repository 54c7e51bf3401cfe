import NIOCore
import NIOPosix

/// One question and answer over a fresh TCP connection (RFC 7766 framing), used when a UDP answer
/// comes back truncated.
enum TCPExchange {
    struct TimedOut: Error {}
    struct Closed: Error {}

    static func ask(
        _ server: SocketAddress, message: [UInt8], on eventLoop: EventLoop, timeout: TimeAmount
    )
        -> EventLoopFuture<[UInt8]>
    {
        let promise = eventLoop.makePromise(of: [UInt8].self)
        let timer = eventLoop.scheduleTask(in: timeout) { promise.fail(TimedOut()) }
        promise.futureResult.whenComplete { _ in timer.cancel() }
        ClientBootstrap(group: eventLoop)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers(
                        MessageToByteHandler(DNSFrameEncoder()),
                        ByteToMessageHandler(DNSFrameDecoder(maxMessageSize: 65_535)),
                        SingleReplyHandler(promise: promise))
                }
            }
            .connect(to: server)
            .whenComplete { result in
                switch result {
                case .success(let channel):
                    channel.writeAndFlush(message, promise: nil)
                    promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                case .failure(let error):
                    promise.fail(error)
                }
            }
        return promise.futureResult
    }

    private final class SingleReplyHandler: ChannelInboundHandler {
        typealias InboundIn = [UInt8]
        let promise: EventLoopPromise<[UInt8]>

        init(promise: EventLoopPromise<[UInt8]>) { self.promise = promise }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            promise.succeed(unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) { promise.fail(Closed()) }
        func errorCaught(context: ChannelHandlerContext, error: Error) {
            promise.fail(error)
            context.close(promise: nil)
        }
    }
}
