import DNSWire
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
        case .reply(let bytes, _):
            return .reply(bytes)
        case .drop:
            return .nothing
        case .forward(let query, let stale, let verdict):
            let pipeline = self.pipeline
            let resolution = forwarder.resolve(query, bounds: pipeline.cacheSettings.bounds)
            @Sendable func finish(_ result: Result<CachedAnswer, Error>) -> [UInt8] {
                pipeline.finish(
                    query, upstream: result, stale: stale, verdict: verdict, transport: transport, now: Self.now()
                ).bytes
            }
            guard let stale else {
                let answer = eventLoop.makePromise(of: [UInt8].self)
                resolution.whenComplete { answer.succeed(finish($0)) }
                return .later(answer.futureResult)
            }
            // An expired answer is at hand (RFC 8767): the client gets it at once while every upstream
            // is known to be down, else when the upstreams take longer than the client-response timer.
            // Their answer, when it comes, still refreshes the cache.
            @Sendable func staleBytes() -> [UInt8] {
                pipeline.staleAnswer(query, stale: stale, verdict: verdict, transport: transport).bytes
            }
            if forwarder.upstreamsDown {
                resolution.whenComplete { _ = finish($0) }
                return .reply(staleBytes())
            }
            let answer = eventLoop.makePromise(of: [UInt8].self)
            let served = NIOLoopBoundBox(false, eventLoop: eventLoop)
            let timer = eventLoop.scheduleTask(in: forwarder.staleAnswerTimeout) {
                served.value = true
                answer.succeed(staleBytes())
            }
            resolution.whenComplete { result in
                timer.cancel()
                let bytes = finish(result)
                guard !served.value else { return }
                served.value = true
                answer.succeed(bytes)
            }
            return .later(answer.futureResult)
        }
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
