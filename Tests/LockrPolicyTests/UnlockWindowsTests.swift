import Testing

@testable import LockrPolicy

/// The windows and emergency holds on their own, with an injected clock.
@Suite struct UnlockWindowsTests {
    let start = at("2026-06-01T09:50:00Z")
    let nextHour = at("2026-06-01T10:00:00Z")

    var windows: UnlockWindows {
        UnlockWindows([
            UnlockWindow(
                app: "tiktok", kind: .hourly, opened: start, ends: start + .seconds(300), hourResets: nextHour),
            UnlockWindow(app: nil, kind: .snooze, opened: start, ends: start + .seconds(120)),
            UnlockWindow(app: nil, kind: .emergency, opened: start + .seconds(60), ends: start + .seconds(240)),
        ])
    }

    @Test func theLongestWindowDecidesAndGraceIsSnoozeOrEmergency() {
        #expect(windows.longest(covering: "tiktok", at: start + .seconds(10))?.kind == .hourly)
        #expect(windows.longest(covering: "youtube", at: start + .seconds(90))?.kind == .emergency)
        #expect(windows.newest(covering: "youtube", at: start + .seconds(250)) == nil)
        #expect(windows.isGrace("tiktok", at: start + .seconds(10)), "the snooze covers every app")
        #expect(!windows.isGrace("tiktok", at: start + .seconds(250)), "the hourly window is no grace")
        #expect(windows.emergencyEnd(for: "tiktok", at: start + .seconds(90)) == start + .seconds(240))
        #expect(windows.emergencyEnd(for: "tiktok", at: start + .seconds(30)) == nil)
    }

    @Test func aUsedHourKeepsItsWindowUntilTheNextHour() {
        var windows = windows
        #expect(windows.hourResets(for: "tiktok", at: start + .seconds(400)) == nextHour)
        #expect(windows.hourResets(for: "youtube", at: start + .seconds(400)) == nil)
        #expect(windows.openCount(at: start + .seconds(200)) == 2)
        windows.dropEnded(at: start + .seconds(400))
        #expect(windows.all.map(\.kind) == [.hourly], "ended, but its hour is not over")
        #expect(windows.hourResets(for: "tiktok", at: nextHour) == nil)
        windows.dropEnded(at: nextHour)
        #expect(windows.all.isEmpty)
    }

    @Test func aHoldIsEndedOnceAndForgottenAfterTenMinutes() {
        var holds = EmergencyHolds()
        let first = holds.begin(at: start)
        let second = holds.begin(at: start + .seconds(1))
        #expect(first != second)
        #expect(holds.end(first, at: start + .seconds(8)) == .seconds(8))
        #expect(holds.end(first, at: start + .seconds(9)) == nil, "ended already")
        holds.forgetStale(at: start + .seconds(601))
        #expect(holds.end(second, at: start + .seconds(602)) == nil, "forgotten")
    }
}
