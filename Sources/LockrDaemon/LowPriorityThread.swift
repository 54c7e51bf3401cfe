import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Work that takes a while and must not take the CPU from answering (building the rules of lists
/// fetched anew): done on a thread of its own at a lower scheduling priority (nice 10), so that on
/// a small machine the event loops go first and the work takes the time they leave.
enum LowPriorityThread {
    /// The nice value the thread runs at (the process's is 0 under the service).
    static let niceness: Int32 = 10

    /// The result of `body`, run on a new thread at `niceness`.
    static func run<Value: Sendable>(
        _ body: @escaping @Sendable () throws(LoadError) -> Value
    ) async throws(LoadError) -> Value {
        let result: Result<Value, LoadError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                // On Linux the nice value is each thread's own: who 0 is this thread, and raising it
                // needs no privilege.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
                continuation.resume(returning: Result { () throws(LoadError) in try body() })
            }
            thread.name = "lockr-lists"
            thread.stackSize = 8 << 20
            thread.start()
        }
        return try result.get()
    }
}
