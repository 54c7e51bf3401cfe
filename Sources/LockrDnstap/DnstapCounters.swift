import Foundation
import Synchronization

/// What the dnstap listener took and turned away since it started: what `lockr status` and the
/// metrics show, so that loss is seen rather than guessed.
public final class DnstapCounters: Sendable {
    private let connectedNow = Atomic<Int>(0)
    private let refusedConnections = Atomic<Int>(0)
    private let brokenConnections = Atomic<Int>(0)
    private let messages = Atomic<Int>(0)
    private let meteredMessages = Atomic<Int>(0)
    private let malformedMessages = Atomic<Int>(0)
    private let lastMessageMilliseconds = Atomic<Int64>(0)

    public init() {}

    /// The figures at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Writers connected now.
        public var connected: Int
        /// Connections turned away: not allowed, or over `max-connections`.
        public var refused: Int
        /// Connections closed for breaking Frame Streams (garbage, a wrong content type, no START
        /// in time); what they would have sent is lost.
        public var broken: Int
        /// dnstap messages read.
        public var messages: Int
        /// Client questions for a guarded app's name, metered.
        public var metered: Int
        /// Data frames that were no dnstap message, or a client message without address or question.
        public var malformed: Int
        /// When the last message came; nil before the first.
        public var lastMessage: Date?
    }

    /// The figures now.
    public var snapshot: Snapshot {
        let last = lastMessageMilliseconds.load(ordering: .relaxed)
        return Snapshot(
            connected: connectedNow.load(ordering: .relaxed), refused: refusedConnections.load(ordering: .relaxed),
            broken: brokenConnections.load(ordering: .relaxed), messages: messages.load(ordering: .relaxed),
            metered: meteredMessages.load(ordering: .relaxed), malformed: malformedMessages.load(ordering: .relaxed),
            lastMessage: last == 0 ? nil : Date(timeIntervalSince1970: Double(last) / 1000))
    }

    /// Takes a connection when fewer than `limit` are open; false (counted as refused) otherwise.
    func connect(limit: Int) -> Bool {
        var current = connectedNow.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = connectedNow.compareExchange(
                expected: current, desired: current + 1, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        refusedConnections.add(1, ordering: .relaxed)
        return false
    }

    func disconnect() { connectedNow.subtract(1, ordering: .relaxed) }
    func refuse() { refusedConnections.add(1, ordering: .relaxed) }
    func broke() { brokenConnections.add(1, ordering: .relaxed) }

    /// Counts a batch: `read` messages, `malformed` of them bad, `metered` of them metered.
    func took(read: Int, malformed: Int, metered: Int) {
        messages.add(read, ordering: .relaxed)
        malformedMessages.add(malformed, ordering: .relaxed)
        meteredMessages.add(metered, ordering: .relaxed)
        lastMessageMilliseconds.store(Int64(Date().timeIntervalSince1970 * 1000), ordering: .relaxed)
    }
}
