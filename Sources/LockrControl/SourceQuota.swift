import Synchronization

/// How many of something (connections, event streams) may be held at once, in all and by one
/// source address, shared by every thread that takes or gives back. A device that opens more than
/// its share is refused, and so is everyone once all are taken: never the descriptors that DNS needs.
public final class SourceQuota: Sendable {
    /// At most this many at once, in all.
    public let total: Int
    /// At most this many at once from one source address.
    public let perSource: Int
    private let held = Mutex(Held())

    private struct Held {
        var count = 0
        var bySource: [String: Int] = [:]
        var refused = 0
    }

    /// Why one was refused.
    public enum Refusal: Error, Equatable {
        /// The source holds its share.
        case sourceFull
        /// Every one is taken.
        case allTaken
    }

    public init(total: Int, perSource: Int) {
        self.total = max(1, total)
        self.perSource = max(1, min(perSource, total))
    }

    /// Takes one for `source`; nil when taken (give it back with `giveBack(for:)`), else why not.
    public func take(for source: String) -> Refusal? {
        held.withLock { held in
            let refusal: Refusal? =
                held.count >= total ? .allTaken : held.bySource[source, default: 0] >= perSource ? .sourceFull : nil
            if refusal != nil {
                held.refused += 1
                return refusal
            }
            held.count += 1
            held.bySource[source, default: 0] += 1
            return nil
        }
    }

    /// Gives back one that `source` took.
    public func giveBack(for source: String) {
        held.withLock { held in
            held.count -= 1
            let left = held.bySource[source, default: 1] - 1
            held.bySource[source] = left > 0 ? left : nil
        }
    }

    /// How many are held now.
    public var count: Int { held.withLock { $0.count } }

    /// How many were refused since the start.
    public var refused: Int { held.withLock { $0.refused } }
}
