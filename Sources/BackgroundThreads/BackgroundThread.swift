import Glibc

/// Makes the calling thread one that works behind the DNS event loops: named, so that `top -H`
/// shows it and whoever counts the loops' CPU (named "NIO-ELT-...") does not count it, and
/// scheduled after them, so that a loop woken by a query takes the CPU from it at once.
public enum BackgroundThread {
    /// How far the thread steps back.
    public enum Precedence: Sendable {
        /// Nice 19: the last share of the CPU among ordinary threads, but still a share when the
        /// machine stays full (work that must keep up, like writing the query log).
        case lowest
        /// SCHED_IDLE: only the CPU time nothing else wants (work that may wait, like a list's refresh).
        case idle
    }

    /// Names the calling thread `name` (at most 15 bytes are kept) and lowers it to `precedence`.
    /// A kernel that refuses either leaves the thread as it was.
    public static func become(_ name: String, precedence: Precedence) {
        // pthread_setname_np is not visible to Swift; the kernel's own file names the thread.
        let comm = open("/proc/thread-self/comm", O_WRONLY)
        if comm >= 0 {
            _ = name.withCString { write(comm, $0, strlen($0)) }
            close(comm)
        }
        switch precedence {
        case .lowest:
            // PRIO_PROCESS with 0 is the calling thread: Linux keeps the nice value per thread.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        case .idle:
            var parameters = sched_param(sched_priority: 0)
            _ = pthread_setschedparam(pthread_self(), idleClass, &parameters)
        }
    }

    /// SCHED_IDLE, which Glibc's headers hide behind _GNU_SOURCE.
    private static let idleClass: Int32 = 5
}
