import DNSWire
import NIOCore

/// What the handlers of one event loop share: the current pipeline, the loop's forwarder, its part
/// of the query log and its counts. Touched only on its event loop, so the hot path takes no lock;
/// a reload swaps pipeline and forwarder in place there.
final class LoopContext: @unchecked Sendable {
    let eventLoop: EventLoop
    private(set) var pipeline: QueryPipeline
    var forwarder: UpstreamForwarder
    let metrics = LoopMetrics()
    private let journal: JournalBuffer?
    private var journalFlush: RepeatedTask?

    /// What to send back for one packet.
    enum Outcome {
        case reply([UInt8])
        case nothing
        /// The answer once the upstreams have been asked.
        case later(EventLoopFuture<[UInt8]>)
    }

    /// `forwarder` makes the loop's forwarder, which counts into the loop's metrics.
    init(
        eventLoop: EventLoop, pipeline: QueryPipeline, journal: QueryJournal?,
        forwarder: (LoopMetrics) -> UpstreamForwarder
    ) {
        self.eventLoop = eventLoop
        self.pipeline = pipeline
        self.forwarder = forwarder(metrics)
        self.journal = journal.map(JournalBuffer.init)
    }

    /// Starts handing the query log's entries over every `JournalBuffer.flushInterval`.
    func startJournal() {
        guard let journal else { return }
        journalFlush = eventLoop.scheduleRepeatedTask(
            initialDelay: JournalBuffer.flushInterval, delay: JournalBuffer.flushInterval
        ) { _ in journal.flush(self.pipeline) }
    }

    /// Swaps in a new pipeline, handing over first what the old one described.
    func use(_ pipeline: QueryPipeline) {
        eventLoop.assertInEventLoop()
        journal?.flush(self.pipeline)
        self.pipeline = pipeline
    }

    /// Stops the query log's hand-overs, handing over what is left.
    func stopJournal() {
        eventLoop.assertInEventLoop()
        journalFlush?.cancel()
        journalFlush = nil
        journal?.flush(pipeline)
    }

    /// Runs the pipeline on a packet; `clientID` is the one it came with over TLS or HTTPS.
    func handle(
        _ packet: [UInt8], from client: SocketAddress, transport: Transport, clientID: String? = nil
    ) -> Outcome {
        eventLoop.assertInEventLoop()
        var note = QueryNote()
        let arrived = Self.now()
        switch pipeline.begin(
            packet: packet, client: client, transport: transport, clientID: clientID, now: arrived, note: &note)
        {
        case .reply(let bytes, let outcome):
            metrics.answered(outcome, type: note.query?.type ?? 0)
            journal?.record(note, source: client, outcome: outcome, pipeline: pipeline)
            return .reply(bytes)
        case .drop:
            return .nothing
        case .forward(let query, let stale, let verdict):
            metrics.missedCache()
            let pipeline = self.pipeline
            let journal = self.journal
            let metrics = self.metrics
            let note = note
            let resolution = forwarder.resolve(query, bounds: pipeline.cacheSettings.bounds)
            @Sendable func finish(_ result: Result<UpstreamAnswer, Error>) -> PipelineAnswer {
                pipeline.finish(
                    query, upstream: result.map(\.answer), stale: stale, verdict: verdict, transport: transport,
                    now: Self.now())
            }
            /// Notes the answer the client got.
            @Sendable func record(_ outcome: QueryOutcome, _ result: Result<UpstreamAnswer, Error>?) {
                metrics.answered(outcome, type: query.type)
                journal?.record(
                    note, source: client, outcome: outcome, pipeline: pipeline,
                    upstream: try? result?.get().server,
                    latencyMicroseconds: max(1, UInt32(clamping: (Self.now() &- arrived) / 1000)))
            }
            switch (stale, forwarder.upstreamsDown(for: query)) {
            case (nil, false):
                let answer = eventLoop.makePromise(of: [UInt8].self)
                resolution.whenComplete { result in
                    let finished = finish(result)
                    record(finished.outcome, result)
                    answer.succeed(finished.bytes)
                }
                return .later(answer.futureResult)
            case (nil, true):
                // Every upstream is known down and nothing stale is at hand: SERVFAIL unless they
                // answer within a moment, so that a client turns to another resolver instead of
                // waiting out every attempt. The first answer brings the upstreams back.
                return .later(
                    first(resolution, finish: finish, record: record, orAfter: forwarder.downUpstreamsWait) {
                        let failed = finish(.failure(ForwardError.upstreamsDown))
                        record(failed.outcome, nil)
                        return failed.bytes
                    })
            case (let stale?, let down):
                // An expired answer is at hand (RFC 8767): the client gets it at once while every
                // upstream is known to be down, else when the upstreams take longer than the
                // client-response timer. Their answer, when it comes, still refreshes the cache.
                @Sendable func staleBytes() -> [UInt8] {
                    record(.stale, nil)
                    return pipeline.staleAnswer(query, stale: stale, verdict: verdict, transport: transport).bytes
                }
                guard !down else {
                    resolution.whenComplete { _ = finish($0) }
                    return .reply(staleBytes())
                }
                return .later(
                    first(resolution, finish: finish, record: record, orAfter: forwarder.staleAnswerTimeout, staleBytes))
            }
        }
    }

    /// The upstreams' answer if it comes within `wait`, else `fallback`'s; the upstreams' answer,
    /// when it comes, is finished (the cache refreshed) either way.
    private func first(
        _ resolution: EventLoopFuture<UpstreamAnswer>,
        finish: @escaping @Sendable (Result<UpstreamAnswer, Error>) -> PipelineAnswer,
        record: @escaping @Sendable (QueryOutcome, Result<UpstreamAnswer, Error>?) -> Void,
        orAfter wait: TimeAmount,
        _ fallback: @escaping @Sendable () -> [UInt8]
    ) -> EventLoopFuture<[UInt8]> {
        let answer = eventLoop.makePromise(of: [UInt8].self)
        let served = NIOLoopBoundBox(false, eventLoop: eventLoop)
        let timer = eventLoop.scheduleTask(in: wait) {
            served.value = true
            answer.succeed(fallback())
        }
        resolution.whenComplete { result in
            timer.cancel()
            let finished = finish(result)
            guard !served.value else { return }
            served.value = true
            record(finished.outcome, result)
            answer.succeed(finished.bytes)
        }
        return answer.futureResult
    }

    static func now() -> UInt64 { NIODeadline.now().uptimeNanoseconds }
}
