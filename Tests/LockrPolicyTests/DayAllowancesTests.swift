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

    @Test func theHoursWindowIsCheckedBeforeTheGate() throws {
        let hourly = DayAllowances(settings: settings(.hourly))
        let text = AccessText(calendar: utc)
        let free: (String) -> Restriction? = { _ in nil }
        #expect(throws: PolicyRefusal.self) {
            try allowances().hourWindows(
                for: ["tiktok"], windows: UnlockWindows(), text: text, at: start, restriction: free)
        }
        let bedtime = Restriction(source: .schedule("bedtime"), until: start + .seconds(3600))
        #expect(throws: PolicyRefusal.restricted("tiktok: \(text.text(bedtime))")) {
            try hourly.hourWindows(for: ["tiktok"], windows: UnlockWindows(), text: text, at: start) { _ in bedtime }
        }
        var windows = UnlockWindows()
        let open = UnlockWindow(
            app: "tiktok", kind: .hourly, opened: start, ends: start + .seconds(600),
            hourResets: at("2026-06-01T11:00:00Z"))
        windows.open(open)
        let (available, alreadyOpen) = try hourly.hourWindows(
            for: ["tiktok", "youtube"], windows: windows, text: text, at: start, restriction: free)
        #expect(available == ["youtube"] && alreadyOpen == [open])
        #expect(throws: PolicyRefusal.windowUsed(app: "tiktok", nextAt: "11:00")) {
            try hourly.hourWindows(
                for: ["tiktok"], windows: windows, text: text, at: start + .seconds(601), restriction: free)
        }
    }

    @Test func aSnoozeNeedsAnAppOutOfBudgetAndAHoldItsSeconds() throws {
        let text = AccessText(calendar: utc)
        let today = DayRecord(day: utc.day(containing: start))
        let spent: (String) -> AppAccess = {
            $0 == "tiktok" ? .budgetSpent(charged: .seconds(1800), budget: .seconds(1800)) : .free
        }
        #expect(
            try allowances().snoozeTargets(
                ["tiktok", "youtube"], today: today, text: text, access: spent, restriction: { _ in nil }) == ["tiktok"]
        )
        #expect(throws: PolicyRefusal.nothingToDo("nothing to snooze: no guarded app is out of budget")) {
            try allowances().snoozeTargets(
                ["youtube"], today: today, text: text, access: spent, restriction: { _ in nil })
        }
        #expect(throws: PolicyRefusal.holdIncomplete("let go after 7 s of 8 s: nothing granted")) {
            try allowances().checkHold(.milliseconds(7900), today: today)
        }
        #expect(throws: PolicyRefusal.holdIncomplete("no such emergency hold; start a new one")) {
            try allowances().checkHold(nil, today: today)
        }
        try allowances().checkHold(.seconds(8), today: today)
    }

    @Test func eachAllowanceIsCheckedIntoAGrantThatSaysWhetherTheGateComesFirst() throws {
        let hourly = settings(.hourly) { $0.gate.hourly = [.phrase] }
        var policy = engine(hourly, now: start)
        let allowances = DayAllowances(settings: hourly)
        let unlock = try allowances.check(.unlock(app: "TikTok"), policy.readout, held: nil, at: start)
        #expect(unlock == .hourWindows(app: "tiktok", available: ["tiktok"], alreadyOpen: []))
        #expect(unlock.isGated && unlock.opens == ["tiktok"] && unlock.app == "tiktok")
        var (today, windows, journal) = (policy.state.today, policy.state.windows, PolicyJournal())
        let granted = allowances.grant(unlock, today: &today, windows: &windows, journal: &journal, at: start)
        #expect(granted.unlocked?.opened.map(\.app) == ["tiktok"] && today.opens["tiktok"] == 1)
        #expect(journal.drain().map(\.detail) == ["gate passed: open until 10:30"])

        // Once open, a second unlock has nothing to grant: no gate is asked for.
        _ = try policy.apply(
            .unlock(app: "tiktok"),
            credentials: Credentials(phrase: hourly.extreme.sentence(opening: hourly.windowLength)), at: start)
        let again = try allowances.check(.unlock(app: "tiktok"), policy.readout, held: nil, at: start)
        #expect(!again.isGated && again.opens.isEmpty)

        #expect(throws: PolicyRefusal.notInThisMode("extend belongs to time mode")) {
            try allowances.check(.extend(app: nil), policy.readout, held: nil, at: start)
        }
        #expect(throws: PolicyRefusal.holdIncomplete("no such emergency hold; start a new one")) {
            try allowances.check(.completeEmergency(hold: 7), policy.readout, held: nil, at: start)
        }
        let emergency = try allowances.check(.completeEmergency(hold: 7), policy.readout, held: .seconds(9), at: start)
        #expect(!emergency.isGated && emergency.opens == ["instagram", "tiktok", "youtube"])
    }

    @Test func aSnoozeGrantOpensOnlyTheAppsOutOfBudget() throws {
        let time = settings(.time) { $0.time.budget = .seconds(60) }
        var policy = engine(time, now: start)
        policy.query("tiktok", from: start, every: .seconds(10), count: 13)
        let later = start + .seconds(130)
        let snooze = try DayAllowances(settings: time).check(.snooze(app: nil), policy.readout, held: nil, at: later)
        #expect(snooze == .snooze(app: nil, spent: ["instagram", "tiktok", "youtube"]) && snooze.isGated)
    }
}
