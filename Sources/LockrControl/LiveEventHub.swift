import LockrPolicy
import Synchronization

/// One person's live event, numbered in the order the daemon published it.
public struct NumberedLiveEvent: Sendable {
    /// "EPOCH-N": N counts from 1 since the daemon started at EPOCH, so that an id from before a
    /// restart is never taken for a newer one.
    public let id: String
    /// N of the id.
    let number: UInt64
    public let person: String
    public let event: LiveEvent
    /// `locked`: something to do instead, from the configured list, in turn.
    public let suggestion: String?
}

/// Hands everyone's live events to whoever listens (the event stream's clients, the webhook),
/// keeping the newest few so that a listener that reconnects with the last id it saw misses
/// nothing. A listener that cannot keep up loses its oldest events, never the daemon's time.
public final class LiveEventHub: Sendable {
    /// How many of the newest events are kept for listeners that reconnect.
    public static let kept = 256
    /// How many events wait for a slow listener before its oldest are dropped.
    static let listenerBuffer = 1024

    private let epoch: String
    private let state = Mutex(State())
    /// The event streams that clients (pages, `lockr watch`) may hold at once, in all and per address.
    public let streams: SourceQuota

    private struct State {
        var suggestions: [String] = []
        var suggested = 0
        var count: UInt64 = 0
        var recent: [NumberedLiveEvent] = []
        var listeners: [Int: AsyncStream<NumberedLiveEvent>.Continuation] = [:]
        var nextListener = 0
        var closed = false

        mutating func nextSuggestion() -> String? {
            guard !suggestions.isEmpty else { return nil }
            defer { suggested += 1 }
            return suggestions[suggested % suggestions.count]
        }
    }

    /// `epoch`: what tells this run of the daemon from others (its start time); `streams`: how
    /// many streams clients may hold (`listen(after:from:)`).
    public init(epoch: String, streams: SourceQuota = SourceQuota(total: 128, perSource: 8)) {
        self.epoch = epoch
        self.streams = streams
    }

    /// Takes the things to do instead that locks suggest in turn (none when empty).
    public func suggest(_ suggestions: [String]) {
        state.withLock { $0.suggestions = suggestions }
    }

    /// The next thing to do instead, in turn with those the locks' events carry; nil when there
    /// are none.
    public func nextSuggestion() -> String? {
        state.withLock { $0.nextSuggestion() }
    }

    /// Numbers `events` of `person` and hands them to every listener.
    public func publish(_ events: [LiveEvent], of person: String) {
        guard !events.isEmpty else { return }
        state.withLock { state in
            for event in events {
                state.count += 1
                let suggestion = event.kind == .locked ? state.nextSuggestion() : nil
                let numbered = NumberedLiveEvent(
                    id: "\(epoch)-\(state.count)", number: state.count, person: person, event: event,
                    suggestion: suggestion)
                state.recent.append(numbered)
                for listener in state.listeners.values { listener.yield(numbered) }
            }
            if state.recent.count > Self.kept { state.recent.removeFirst(state.recent.count - Self.kept) }
        }
    }

    /// As `listen(after:)`, for a client at `source`: refused when the source holds its share of
    /// `streams` or all are taken; its share comes back when the stream ends.
    public func listen(
        after lastID: String?, from source: String
    ) -> Result<AsyncStream<NumberedLiveEvent>, SourceQuota.Refusal> {
        if let refusal = streams.take(for: source) { return .failure(refusal) }
        return .success(listen(after: lastID) { [streams] in streams.giveBack(for: source) })
    }

    /// Events from now on, after those kept that came after `lastID` (none when nil; all kept when
    /// it is from an earlier run). Ends when the hub closes (at once, after those kept, once it
    /// has) or the listener stops iterating; `ended` runs then.
    public func listen(
        after lastID: String?, ended: @escaping @Sendable () -> Void = {}
    ) -> AsyncStream<NumberedLiveEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: NumberedLiveEvent.self, bufferingPolicy: .bufferingNewest(Self.listenerBuffer))
        let closed = state.withLock { state in
            for event in missed(after: lastID, in: state.recent) { continuation.yield(event) }
            guard !state.closed else { return true }
            let key = state.nextListener
            state.nextListener += 1
            state.listeners[key] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.listeners.removeValue(forKey: key) }
                ended()
            }
            return false
        }
        if closed {
            continuation.finish()
            ended()
        }
        return stream
    }

    /// Ends every listener's stream, now and for those that come later (the daemon is stopping).
    public func close() {
        let listeners = state.withLock { state in
            state.closed = true
            defer { state.listeners.removeAll() }
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }

    private func missed(after lastID: String?, in recent: [NumberedLiveEvent]) -> ArraySlice<NumberedLiveEvent> {
        guard let lastID else { return [] }
        let parts = lastID.split(separator: "-")
        guard parts.count == 2, parts[0] == epoch, let seen = UInt64(parts[1]) else { return recent[...] }
        return recent.drop { $0.number <= seen }
    }
}
