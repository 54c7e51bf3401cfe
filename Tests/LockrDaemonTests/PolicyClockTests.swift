import LockrPolicy
import Synchronization
import Testing

@testable import LockrDaemon

/// Settable wall and boot clocks.
final class FakeClocks: Sendable {
    let wallMilliseconds = Atomic<Int64>(1_780_308_000_000)
    let bootNanoseconds = Atomic<Int64>(5_000_000_000)

    func clock(resumingAfter lastSeen: Instant? = nil, scale: Double = 1) -> PolicyClock {
        PolicyClock(
            resumingAfter: lastSeen, scale: scale, wall: { self.wallMilliseconds.load(ordering: .relaxed) },
            boot: { self.bootNanoseconds.load(ordering: .relaxed) })
    }

    func pass(seconds: Int64) { pass(milliseconds: seconds * 1000) }

    func pass(milliseconds: Int64) {
        wallMilliseconds.add(milliseconds, ordering: .relaxed)
        bootNanoseconds.add(milliseconds * 1_000_000, ordering: .relaxed)
    }
}

@Suite struct PolicyClockTests {
    @Test func policyTimeFollowsTheBootClockNotWallJumps() {
        let clocks = FakeClocks()
        let clock = clocks.clock()
        let start = clock.now()
        clocks.pass(seconds: 10)
        #expect(clock.now() == start + .seconds(10))
        #expect(clock.wallOffset() == .zero)
        // Someone sets the clock an hour ahead: policy time does not jump, the offset shows it.
        clocks.wallMilliseconds.add(3_600_000, ordering: .relaxed)
        #expect(clock.now() == start + .seconds(10))
        #expect(clock.wallOffset() == .seconds(3600))
        // And back by two hours.
        clocks.wallMilliseconds.add(-7_200_000, ordering: .relaxed)
        clocks.pass(seconds: 5)
        #expect(clock.now() == start + .seconds(15))
        #expect(clock.wallOffset() == .seconds(-3600))
    }

    @Test func aClockSetBackAcrossARestartResumesFromTheLastTimeSeen() {
        let clocks = FakeClocks()
        let lastSeen = Instant(milliseconds: clocks.wallMilliseconds.load(ordering: .relaxed) + 3_600_000)
        let clock = clocks.clock(resumingAfter: lastSeen)
        #expect(clock.now() == lastSeen)
        // A later wall clock (real downtime) is taken as it is.
        let earlier = Instant(milliseconds: clocks.wallMilliseconds.load(ordering: .relaxed) - 60_000)
        #expect(
            clocks.clock(resumingAfter: earlier).now().milliseconds == clocks.wallMilliseconds.load(ordering: .relaxed))
    }

    @Test func theScaleSpeedsPolicyTimeAndShortensRealTTLs() {
        let clocks = FakeClocks()
        let clock = clocks.clock(scale: 60)
        let start = clock.now()
        clocks.pass(seconds: 2)
        #expect(clock.now() == start + .seconds(120))
        #expect(clock.realSeconds(.seconds(300)) == 5)
        #expect(clock.realSeconds(.seconds(30)) == 1)
        #expect(clocks.clock().realSeconds(.seconds(30)) == 30)
    }
}
