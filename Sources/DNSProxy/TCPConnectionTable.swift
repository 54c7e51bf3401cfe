import NIOConcurrencyHelpers
import NIOCore
import Synchronization

/// DNS-over-TCP connections open now, and those closed to make room for another source or refused
/// since the start.
public struct TCPConnectionCounts: Sendable, Equatable {
    public var open = 0
    public var evicted = 0
    public var refused = 0

    public init(open: Int = 0, evicted: Int = 0, refused: Int = 0) {
        self.open = open
        self.evicted = evicted
        self.refused = refused
    }
}

/// Queries a TCP connection has waiting on upstreams, read by the table when it picks one to close.
final class TCPActivity: Sendable {
    private let waiting = Atomic<Int>(0)

    var isIdle: Bool { waiting.load(ordering: .relaxed) == 0 }

    func began() { waiting.add(1, ordering: .relaxed) }
    func ended() { waiting.subtract(1, ordering: .relaxed) }
}

/// The DNS-over-TCP connections open, by source address, shared so that no set of sources can
/// lock the others out: while slots are free anyone gets one; once every slot is taken, a
/// newcomer whose source holds at least two fewer than the busiest source takes one of that
/// source's (its oldest idle connection, else its oldest), and anyone else is refused. However
/// many slots a few sources take, a source with fewer connections than they have still gets in.
final class TCPConnectionTable: Sendable {
    private struct Held {
        let id: UInt64
        let channel: any Channel
        let activity: TCPActivity
    }

    private struct State {
        var open = 0
        var nextID: UInt64 = 0
        var bySource: [String: [Held]] = [:]
        var evicted = 0
        var refused = 0
    }

    let total: Int
    private let state = NIOLockedValueBox(State())

    init(total: Int) {
        self.total = max(1, total)
    }

    /// Admits `channel` from `source` (closing another connection to make room when that is fair)
    /// and gives its slot back when it closes; false when it is refused.
    func admit(_ channel: any Channel, from source: String, activity: TCPActivity) -> Bool {
        let (id, evicted) = state.withLockedValue { state -> (UInt64?, (any Channel)?) in
            var evicted: (any Channel)?
            if state.open >= total {
                guard let room = Self.makeRoom(for: source, in: &state) else {
                    state.refused += 1
                    return (nil, nil)
                }
                evicted = room
            }
            state.nextID += 1
            state.open += 1
            state.bySource[source, default: []].append(Held(id: state.nextID, channel: channel, activity: activity))
            return (state.nextID, evicted)
        }
        evicted?.close(promise: nil)
        guard let id else { return false }
        channel.closeFuture.whenComplete { [self] _ in release(id, of: source) }
        return true
    }

    /// What the table did, since the start.
    var counts: TCPConnectionCounts {
        state.withLockedValue { TCPConnectionCounts(open: $0.open, evicted: $0.evicted, refused: $0.refused) }
    }

    /// Takes a slot from the busiest source when it holds two more than `source`: its oldest idle
    /// connection, else its oldest; nil when no source holds that many.
    private static func makeRoom(for source: String, in state: inout State) -> (any Channel)? {
        let own = state.bySource[source]?.count ?? 0
        guard let (busiest, held) = state.bySource.max(by: { $0.value.count < $1.value.count }),
            held.count >= own + 2
        else { return nil }
        let index = held.firstIndex { $0.activity.isIdle } ?? held.startIndex
        let taken = state.bySource[busiest]!.remove(at: index)
        state.open -= 1
        state.evicted += 1
        return taken.channel
    }

    private func release(_ id: UInt64, of source: String) {
        state.withLockedValue { state in
            guard let index = state.bySource[source]?.firstIndex(where: { $0.id == id }) else { return }
            state.bySource[source]!.remove(at: index)
            if state.bySource[source]!.isEmpty { state.bySource[source] = nil }
            state.open -= 1
        }
    }
}
