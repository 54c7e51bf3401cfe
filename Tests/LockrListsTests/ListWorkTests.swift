import Foundation
import Glibc
import Testing

@testable import LockrLists

/// List work runs on its own thread, named apart from the DNS event loops, at the idle scheduling
/// class.
@Suite struct ListWorkTests {
    @Test func listWorkRunsOnItsOwnIdleClassThread() async throws {
        let (policy, name) = try await ListWork.run { (sched_getscheduler(0), Thread.current.name) }
        #expect(policy == 5, "SCHED_IDLE")
        #expect(name == "lockr-lists")
    }
}
