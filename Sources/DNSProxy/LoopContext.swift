import NIOCore

/// What the handlers of one event loop share: the current pipeline and that loop's forwarder.
/// Touched only on its event loop, so the hot path takes no lock; a reload swaps it in place there.
final class LoopContext: @unchecked Sendable {
    let eventLoop: EventLoop
    var pipeline: QueryPipeline
    var forwarder: UpstreamForwarder

    init(eventLoop: EventLoop, pipeline: QueryPipeline, forwarder: UpstreamForwarder) {
        self.eventLoop = eventLoop
        self.pipeline = pipeline
        self.forwarder = forwarder
    }

    /// Runs the pipeline on a packet; `send` gets the answer, now or when the upstream replies.
    func handle(_ packet: [UInt8], from client: SocketAddress, transport: Transport, send: @escaping @Sendable ([UInt8]) -> Void)
        -> [UInt8]?
    {
        eventLoop.assertInEventLoop()
        let pipeline = self.pipeline
        switch pipeline.begin(packet: packet, client: client, transport: transport, now: Self.now()) {
        case .reply(let bytes):
            return bytes
        case .drop:
            return nil
        case .forward(let query, let stale):
            forwarder.resolve(query, bounds: pipeline.cacheSettings.bounds).whenComplete { result in
                send(pipeline.finish(query, upstream: result, stale: stale, transport: transport, now: Self.now()))
            }
            return nil
        }
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
