import Foundation
import Testing

@testable import LockrDaemon

/// The lists' rebuild runs on a thread of its own at nice 10, its value or its error coming back.
@Suite struct LowPriorityThreadTests {
    @Test func itRunsAtTheLowerPriorityAndGivesBackWhatItMade() async throws {
        let nice = try await LowPriorityThread.run { () throws(LoadError) in
            getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        }
        #expect(nice == LowPriorityThread.niceness)
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) != LowPriorityThread.niceness, "this thread's stays")
        await #expect(throws: LoadError.self) {
            try await LowPriorityThread.run { () throws(LoadError) -> Int in throw LoadError("the list is broken") }
        }
    }
}
