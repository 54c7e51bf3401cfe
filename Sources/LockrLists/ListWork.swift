import BackgroundThreads
import Foundation
import NIOCore
import NIOPosix

/// The one thread lists are fetched, checked and built on, at the idle scheduling class
/// (SCHED_IDLE): a refresh (downloading, parsing and indexing millions of names) takes only the CPU
/// time the DNS event loops leave, so it never costs a busy machine queries a second. On a machine
/// that stays full, a refresh takes longer (a fetch may then time out and be tried again later);
/// the rules before stay in force meanwhile.
public enum ListWork {
    /// The thread's event loop: the HTTP client's, and where `run` runs.
    static let group: MultiThreadedEventLoopGroup = {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        // The first task on the thread, so before any list work.
        group.next().execute { BackgroundThread.become("lockr-lists", precedence: .idle) }
        return group
    }()

    /// Runs `body` on the list thread, after the work asked before it; returns what it gave.
    public static func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await group.next().submit(body).get()
    }
}
