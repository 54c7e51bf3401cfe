import Foundation
import Glibc
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
        // The first task on the thread, so before any list work. Named apart from the DNS event
        // loops ("NIO-ELT-..."), so that whoever counts their CPU does not count this.
        group.next().execute {
            // pthread_setname_np is not visible to Swift; the kernel's own file names the thread.
            let comm = open("/proc/thread-self/comm", O_WRONLY)
            if comm >= 0 {
                _ = "lockr-lists".withCString { write(comm, $0, strlen($0)) }
                close(comm)
            }
            var parameters = sched_param(sched_priority: 0)
            // Refused only by a kernel without SCHED_IDLE, where list work runs as any other.
            _ = pthread_setschedparam(pthread_self(), idleClass, &parameters)
        }
        return group
    }()

    /// SCHED_IDLE, which Glibc's headers hide behind _GNU_SOURCE.
    private static let idleClass: Int32 = 5

    /// Runs `body` on the list thread, after the work asked before it; returns what it gave.
    public static func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await group.next().submit(body).get()
    }
}
