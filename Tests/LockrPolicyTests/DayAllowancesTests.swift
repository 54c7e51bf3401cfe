import Testing

@testable import LockrPolicy

/// The day's allowances on their own: each counted, each refused once used, each window as long as
/// its setting.
@Suite struct DayAllowancesTests {
    let start = at("2026-06-01T10:20:00Z")

    func allowances(perApp: Bool = false) -> DayAllowances {
        DayAllowances(
            settings: settings(.time) {
                $0.snooze.perDay = 2
                $0.time.perApp = perApp
                $0.time.budget = .seconds(30 * 60)
            })
    }

    @Test func snoozesAreCountedAndRefusedOnceUsed() throws {
        let allowances = allowances()
        var today = DayRecord(day: utc.day(containing: start))
        var windows = UnlockWindows()
        var journal = PolicyJournal()
        for round in 1...2 {
            try allowances.checkSnooze(today)
            let window = allowances.snooze(
                "tiktok", spent: ["tiktok"], today: &today, windows: &windows, journal: &journal, at: start)
            #expect(window.ends == start + .seconds(5 * 60) && window.kind == .snooze)
            #expect(today.snoozes == round && today.opens["tiktok"] == round)
        }
        #expect(throws: PolicyRefusal.limitReached("all 2 snoozes of today are used")) {
            try allowances.checkSnooze(today)
        }
        #expect(windows.all.count == 2)
        #expect(journal.drain().map(\.detail) == ["open until 10:25 (1/2 today)", "open until 10:25 (2/2 today)"])
    }

    @Test func anExtensionAddsToTheSharedBudgetOrToTheNamedAppsOwn() throws {
        var today = DayRecord(day: utc.day(containing: start))
        var journal = PolicyJournal()
        let shared = allowances()
        let key = try shared.extensionKey(for: "tiktok", today: today)
        #expect(key == MeteringState.allApps)
        #expect(shared.extend(key, for: "tiktok", today: &today, journal: &journal, at: start) == .seconds(40 * 60))
        #expect(throws: PolicyRefusal.limitReached("today's extension is used (1 per day)")) {
            try shared.extensionKey(for: nil, today: today)
        }
        let perApp = allowances(perApp: true)
        let fresh = DayRecord(day: utc.day(containing: start))
        #expect(throws: PolicyRefusal.nothingToDo("budgets are per app: name the app to extend")) {
            try perApp.extensionKey(for: nil, today: fresh)
        }
        #expect(try perApp.extensionKey(for: "youtube", today: fresh) == "youtube")
    }

    @Test func theEmergencyOpensEveryAppAndTheHoursWindowWaitsForTheNextHour() throws {
        let allowances = DayAllowances(settings: settings(.hourly))
        var today = DayRecord(day: utc.day(containing: start))
        var windows = UnlockWindows()
        var journal = PolicyJournal()
        for _ in 1...2 {
            try allowances.checkEmergency(today)
            _ = allowances.emergency(today: &today, windows: &windows, journal: &journal, at: start)
        }
        #expect(throws: PolicyRefusal.limitReached("all 2 emergency bypasses of today are used")) {
            try allowances.checkEmergency(today)
        }
        #expect(windows.emergencyEnd(for: "tiktok", at: start) == start + .seconds(5 * 60))
        let hour = allowances.openHour(
            for: "tiktok", detail: "lockr unlock", today: &today, windows: &windows, journal: &journal, at: start)
        #expect(hour.ends == start + .seconds(10 * 60) && hour.hourResets == at("2026-06-01T11:00:00Z"))
        #expect(windows.hourResets(for: "tiktok", at: start + .seconds(20 * 60)) == at("2026-06-01T11:00:00Z"))
        #expect(journal.drain().last?.detail == "lockr unlock: open until 10:30")
    }
}
