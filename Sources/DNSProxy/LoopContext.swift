import NIOCore

/// What the handlers of one event loop share: the current pipeline and the loop's forwarder.
/// Touched only on its event loop, so the hot path takes no lock; a reload swaps both in place there.
final class LoopContext: @unchecked Sendable {
    let eventLoop: EventLoop
    var pipeline: QueryPipeline
    var forwarder: UpstreamForwarder

    /// What to send back for one packet.
    enum Outcome {
        case reply([UInt8])
        case nothing
        /// The answer once the upstreams have been asked.
        case later(EventLoopFuture<[UInt8]>)
    }

    init(eventLoop: EventLoop, pipeline: QueryPipeline, forwarder: UpstreamForwarder) {
        self.eventLoop = eventLoop
        self.pipeline = pipeline
        self.forwarder = forwarder
    }

    /// Runs the pipeline on a packet.
    func handle(_ packet: [UInt8], from client: SocketAddress, transport: Transport) -> Outcome {
        eventLoop.assertInEventLoop()
        switch pipeline.begin(packet: packet, client: client, transport: transport, now: Self.now()) {
        case .reply(let bytes):
            return .reply(bytes)
        case .drop:
            return .nothing
        case .forward(let query, let stale, let verdict):
            let pipeline = self.pipeline
            let answer = eventLoop.makePromise(of: [UInt8].self)
            forwarder.resolve(query, bounds: pipeline.cacheSettings.bounds).whenComplete { result in
                answer.succeed(
                    pipeline.finish(
                        query, upstream: result, stale: stale, verdict: verdict, transport: transport, now: Self.now()))
            }
            return .later(answer.futureResult)
        }
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
