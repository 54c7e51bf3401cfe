import Testing

@testable import LockrPolicy

/// What each mode says of a guarded app no schedule or profile blocks, with no engine around it.
@Suite struct ModeRulesTests {
    let noon = at("2026-06-01T12:10:00Z")
    let day = DayRecord(day: utc.day(containing: at("2026-06-01T12:10:00Z")))

    func access(
        _ mode: Mode, windows: UnlockWindows = UnlockWindows(), today: DayRecord? = nil,
        _ change: (inout PolicySettings) -> Void = { _ in }
    ) -> AppAccess {
        ModeRules(settings: settings(mode, change)).access(
            "tiktok", windows: windows, metering: MeteringState(), today: today ?? day, at: noon)
    }

    @Test func aWindowOpensTheAppInEveryMode() {
        let snooze = UnlockWindows([
            UnlockWindow(app: "tiktok", kind: .snooze, opened: noon, ends: noon + .seconds(300))
        ])
        for mode in Mode.allCases {
            #expect(access(mode, windows: snooze) == .window(.snooze, until: noon + .seconds(300)))
        }
    }

    @Test func timeModeIsOpenWhileTheBudgetLasts() {
        #expect(access(.time) == .budgetLeft(charged: .zero, budget: .seconds(1800), until: noon + .seconds(1800)))
        var extended = day
        extended.extraBudget[MeteringState.allApps] = .seconds(600)
        #expect(
            access(.time, today: extended)
                == .budgetLeft(charged: .zero, budget: .seconds(2400), until: noon + .seconds(2400)))
    }

    @Test func anHourlyWindowUsedLocksTheAppUntilTheNextClockHour() {
        let used = UnlockWindows([
            UnlockWindow(
                app: "tiktok", kind: .hourly, opened: noon - .seconds(600), ends: noon - .seconds(300),
                hourResets: at("2026-06-01T13:00:00Z"))
        ])
        #expect(access(.hourly, windows: used) == .hourUsed(next: at("2026-06-01T13:00:00Z")))
        #expect(access(.hourly) == .locked(.unlock, window: .seconds(600)))
        #expect(access(.hourly) { $0.hourly.openOnFirstQuery = true } == .locked(.firstQuery, window: .seconds(600)))
    }

    @Test func extremeModeSaysWhatOpensItAndCoolsDownAfterWrongAnswers() {
        #expect(access(.extreme) == .locked(.sentence, window: .seconds(900)))
        #expect(access(.extreme) { $0.gate.extreme = [.puzzle] } == .locked(.gate, window: .seconds(900)))
        var missed = day
        missed.cooldownUntil = noon + .seconds(120)
        missed.gateMisses = 3
        #expect(access(.extreme, today: missed) == .coolingDown(until: noon + .seconds(120), misses: 3))
        #expect(access(.hourly, today: missed) == .locked(.unlock, window: .seconds(600)), "only extreme cools down")
    }
}
