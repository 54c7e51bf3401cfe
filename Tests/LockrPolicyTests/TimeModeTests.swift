import CivilTime
import Foundation
import Testing

@testable import LockrPolicy

@Suite struct MeteringTests {
    let start = at("2026-06-01T10:00:00Z")

    @Test func denseForegroundUseIsMetered() {
        var policy = engine(settings(.time), now: start)
        policy.query("instagram", from: start, every: .seconds(5), count: 120)  // 10 minutes of use
        let used = policy.used("instagram", at: start + .seconds(600))
        #expect(used >= .seconds(590) && used <= .seconds(610))
    }

    @Test func backgroundPingsNeverEatBudget() {
        var policy = engine(settings(.time), now: start)
        policy.query("instagram", from: start, every: .seconds(180), count: 40)  // two hours of pings
        #expect(policy.used("instagram", at: start + .seconds(7200)) == .zero)
        // A ping a minute is still background: the app's names come back later than a TTL allows.
        policy.query("tiktok", from: start, every: .seconds(60), count: 60)
        #expect(policy.used("tiktok", at: start + .seconds(3600)) == .zero)
    }

    @Test func aBurstCountsFromTheSliceItStartedIn() {
        var policy = engine(settings(.time), now: start)
        policy.query("instagram", from: start + .seconds(1), every: .seconds(4), count: 3)  // 1 s, 5 s, 9 s
        #expect(policy.used("instagram", at: start + .seconds(9)) == .seconds(9))
        #expect(policy.used("instagram", at: start + .seconds(60)) == .seconds(10))
    }

    @Test func aShortSwitchAwayIsCountedAndALongPauseIsNot() {
        var policy = engine(settings(.time), now: start)
        policy.query("instagram", from: start, every: .seconds(2), count: 30)  // 0-58 s
        policy.query("instagram", from: start + .seconds(80), every: .seconds(2), count: 30)  // 20 s away, then 80-138 s
        #expect(policy.used("instagram", at: start + .seconds(140)) == .seconds(140))
        policy.query("instagram", from: start + .seconds(300), every: .seconds(2), count: 30)  // 160 s away
        #expect(policy.used("instagram", at: start + .seconds(360)) == .seconds(200))
    }

    @Test func twoAppsInterleavedShareTheBudgetWithoutCountingTwice() {
        var policy = engine(settings(.time), now: start)
        for minute in 0..<10 {
            let app = minute.isMultiple(of: 2) ? "instagram" : "tiktok"
            policy.query(app, from: start + .seconds(60 * minute), every: .seconds(3), count: 20)
        }
        let end = start + .seconds(600)
        let status = policy.readout.status(at: end)
        #expect(status.totalUsed >= .seconds(590) && status.totalUsed <= .seconds(600))
        let instagram = policy.used("instagram", at: end)
        let tiktok = policy.used("tiktok", at: end)
        #expect(instagram >= .seconds(290) && instagram <= .seconds(310))
        #expect(tiktok >= .seconds(290) && tiktok <= .seconds(310))
    }
}

@Suite struct TimeModeTests {
    let start = at("2026-06-01T10:00:00Z")

    func fiveMinutes(_ change: (inout PolicySettings) -> Void = { _ in }) -> PolicySettings {
        settings(.time) {
            $0.time.budget = .seconds(300)
            change(&$0)
        }
    }

    @Test func theBudgetRunsOutAndTheAppIsBlockedUntilTheDayResets() {
        var policy = engine(fiveMinutes(), now: start)
        let last = policy.query("instagram", from: start, every: .seconds(2), count: 150)  // up to 298 s
        #expect(last == .allow(ttl: .seconds(2)))
        #expect(
            policy.admit("instagram", at: start + .seconds(300)).reason
                == "instagram: daily budget spent (5/5 min)")
        // The budget is shared by default: other apps are blocked too.
        #expect(!policy.admit("youtube", at: start + .seconds(301)).isAllowed)
        #expect(policy.admit("instagram", at: at("2026-06-02T00:00:00Z")).isAllowed)
        #expect(policy.drainEvents().map(\.type).contains(.dayReset))
    }

    @Test func exhaustionInTheMiddleOfASliceBlocksAtThatMoment() {
        var first = engine(fiveMinutes { $0.time.metering.slice = .seconds(60) }, now: start)
        first.query("instagram", from: start, every: .seconds(2), count: 121)  // 0-240 s
        #expect(first.admit("instagram", at: start + .seconds(270)) == .allow(ttl: .seconds(30)))
        // A restart in the middle of a slice keeps the slice accruing: 275 s used at 275 s...
        var policy = first.restarted(at: start + .seconds(275))
        #expect(policy.used("instagram", at: start + .seconds(275)) == .seconds(275))
        // ...and the budget runs out at 300 s, where the slice ends, as without the restart.
        #expect(policy.admit("instagram", at: start + .seconds(299)) == .allow(ttl: .seconds(1)))
        #expect(!policy.admit("instagram", at: start + .seconds(300)).isAllowed)
    }

    @Test func perAppBudgetsAreSeparate() {
        var policy = engine(fiveMinutes { $0.time.perApp = true }, now: start)
        policy.query("instagram", from: start, every: .seconds(2), count: 151)
        #expect(!policy.admit("instagram", at: start + .seconds(302)).isAllowed)
        #expect(policy.admit("tiktok", at: start + .seconds(302)).isAllowed)
    }

    @Test func snoozeGivesAShortGraceAFewTimesADay() throws {
        var policy = engine(fiveMinutes { $0.snooze = Allowance(length: .seconds(300), perDay: 2) }, now: start)
        #expect(throws: PolicyRefusal.nothingToDo("nothing to snooze: no guarded app is out of budget")) {
            try policy.snooze(nil, at: start)
        }
        policy.query("instagram", from: start, every: .seconds(2), count: 151)
        var now = start + .seconds(310)
        for _ in 1...2 {
            let window = try policy.snooze(nil, at: now)
            #expect(window.ends == now + .seconds(300))
            #expect(policy.admit("instagram", at: now + .seconds(299)).isAllowed)
            now = now + .seconds(300)
            #expect(!policy.admit("instagram", at: now).isAllowed)
        }
        #expect(throws: PolicyRefusal.limitReached("all 2 snoozes of today are used")) {
            try policy.snooze(nil, at: now)
        }
        #expect(policy.readout.status(at: now).snoozes == (2, 2))
    }

    @Test func extendAddsTimeOncePerDay() throws {
        var policy = engine(fiveMinutes(), now: start)
        policy.query("instagram", from: start, every: .seconds(2), count: 151)
        let now = start + .seconds(310)
        #expect(!policy.admit("instagram", at: now).isAllowed)
        #expect(try policy.extend(nil, at: now) == .seconds(900))
        #expect(policy.admit("instagram", at: now).isAllowed)
        #expect(throws: PolicyRefusal.self) { try policy.extend(nil, at: now) }
        // The extension is for today only.
        let tomorrow = at("2026-06-02T10:00:00Z")
        #expect(policy.readout.status(at: tomorrow).apps[0].budget == .seconds(900))
        policy.tick(at: tomorrow)
        #expect(policy.readout.status(at: tomorrow).apps[0].budget == .seconds(300))
        #expect(try policy.extend(nil, at: tomorrow) == .seconds(900))
    }

    @Test func theDayResetsAtTheConfiguredLocalTimeAcrossDST() {
        let berlin = DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin"), dayStartMinutes: 4 * 60)
        let evening = at("2026-10-24T22:00:00+02:00")
        var policy = engine(fiveMinutes { $0.calendar = berlin }, now: evening)
        policy.query("instagram", from: evening, every: .seconds(2), count: 151)
        // The night has 25 hours on the clock's count: 03:59 CET is still the old day.
        #expect(!policy.admit("instagram", at: at("2026-10-25T03:59:59+01:00")).isAllowed)
        #expect(policy.admit("instagram", at: at("2026-10-25T04:00:00+01:00")).isAllowed)
        #expect(policy.readout.status(at: at("2026-10-25T04:00:00+01:00")).day.key == "2026-10-25")
    }

    @Test func restartKeepsUsageAndCounters() throws {
        var policy = engine(fiveMinutes(), now: start)
        policy.query("instagram", from: start, every: .seconds(2), count: 151)
        _ = try policy.snooze(nil, at: start + .seconds(310))
        var restarted = policy.restarted(at: start + .seconds(320))
        #expect(restarted.readout.status(at: start + .seconds(320)).snoozes.used == 1)
        #expect(restarted.admit("instagram", at: start + .seconds(320)).isAllowed)
        #expect(!restarted.admit("instagram", at: start + .seconds(611)).isAllowed)
        #expect(restarted.used("instagram", at: start + .seconds(611)) >= .seconds(300))
    }

    @Test func timeNeverGoesBackwards() {
        var policy = engine(fiveMinutes(), now: start)
        policy.query("instagram", from: start, every: .seconds(2), count: 151)
        // An earlier time (a clock set back) is treated as the latest seen: still blocked, no new day.
        #expect(!policy.admit("instagram", at: at("2026-05-31T10:00:00Z")).isAllowed)
        #expect(policy.readout.status(at: at("2026-05-31T10:00:00Z")).day.key == "2026-06-01")
    }
}

@Suite struct EmergencyTests {
    let start = at("2026-06-01T10:00:00Z")

    @Test func aCompleteHoldOpensEveryAppForFiveMinutes() throws {
        var policy = engine(settings(.hourly), now: start)
        let hold = try policy.beginEmergency(at: start)
        let window = try policy.completeEmergency(hold: hold, at: start + .seconds(8))
        #expect(window.ends == start + .seconds(308))
        for app in ["tiktok", "instagram", "youtube"] {
            #expect(policy.admit(app, at: start + .seconds(307)).isAllowed)
        }
        #expect(!policy.admit("tiktok", at: start + .seconds(308)).isAllowed)
        // An emergency does not use up the hour's window.
        #expect(try policy.unlock("tiktok", phrase: nil, at: start + .seconds(308)).opened.count == 1)
        #expect(policy.drainEvents().contains { $0.type == .emergency })
    }

    @Test func aHoldLetGoTooSoonGrantsNothingAndIsOver() throws {
        var policy = engine(settings(.hourly), now: start)
        let hold = try policy.beginEmergency(at: start)
        #expect(throws: PolicyRefusal.holdIncomplete("let go after 7 s of 8 s: nothing granted")) {
            try policy.completeEmergency(hold: hold, at: start + .seconds(7))
        }
        #expect(!policy.admit("tiktok", at: start + .seconds(7)).isAllowed)
        #expect(throws: PolicyRefusal.holdIncomplete("no such emergency hold; start a new one")) {
            try policy.completeEmergency(hold: hold, at: start + .seconds(9))
        }
        #expect(!policy.admit("tiktok", at: start + .seconds(9)).isAllowed)
        #expect(policy.state.today.emergencies == 0)
    }

    @Test func emergenciesAreCappedPerDayAndAHoldIsUsedOnce() throws {
        var policy = engine(settings(.time) { $0.emergency.perDay = 1 }, now: start)
        let hold = try policy.beginEmergency(at: start)
        _ = try policy.completeEmergency(hold: hold, at: start + .seconds(8))
        #expect(throws: PolicyRefusal.self) { try policy.completeEmergency(hold: hold, at: start + .seconds(9)) }
        #expect(throws: PolicyRefusal.limitReached("all 1 emergency bypasses of today are used")) {
            try policy.beginEmergency(at: start + .seconds(10))
        }
        #expect(throws: PolicyRefusal.holdIncomplete("no such emergency hold; start a new one")) {
            try policy.completeEmergency(hold: 99, at: start + .seconds(10))
        }
    }
}

@Suite struct SettingsTests {
    let start = at("2026-06-01T10:00:00Z")

    @Test func aLooseningModeChangeWaitsForTheDayAndSurvivesRestarts() throws {
        var policy = engine(settings(.time), now: start)
        #expect(throws: PolicyRefusal.invalidSettings("budget must be 5 to 180 minutes, not 4 h")) {
            try policy.setMode(.time, budget: .seconds(4 * 3600), at: start)
        }
        #expect(throws: PolicyRefusal.self) { try policy.setMode(.hourly, window: .seconds(7 * 60), at: start) }
        // Time to hourly loosens: in time mode it waits for the next day, when the budget resets anyway.
        // A shorter window tightens and applies at once.
        let outcome = try policy.setMode(.hourly, window: .seconds(5 * 60), at: start)
        #expect(outcome.applied.map(\.key) == ["hourly.window-minutes"])
        #expect(outcome.pending.map(\.change.key) == ["policy.mode"])
        #expect(outcome.pending.allSatisfy { $0.appliesAt == at("2026-06-02T00:00:00Z") })
        #expect(policy.settings.modeSummary == "time, budget 30 min a day for all apps")
        #expect(policy.drainEvents().map(\.type) == [.changeApplied, .changePending])
        // Pending changes survive a restart and apply on time, also when lockr was down then.
        let restarted = policy.restarted(at: start + .seconds(1))
        #expect(restarted.state.changes.pending.count == 1)
        let nextDay = restarted.restarted(at: at("2026-06-02T09:00:00Z"))
        #expect(nextDay.settings.mode == .hourly)
        #expect(nextDay.settings.hourly.window == .seconds(300))
        #expect(nextDay.state.changes.pending.isEmpty)
        // Tightening applies at once.
        var tighter = nextDay
        let extreme = try tighter.setMode(.extreme, at: at("2026-06-02T09:00:01Z"))
        #expect(extreme.pending.isEmpty && tighter.settings.mode == .extreme)
    }

    @Test func guardingAppliesAtOnceAndUnguardingWaits() throws {
        var policy = engine(settings(.hourly), guarded: ["instagram"], now: start)
        _ = try policy.guardApp("tiktok", at: start)
        let removal = try policy.unguardApp("instagram", at: start)
        #expect(removal.pending.first?.appliesAt == at("2026-06-01T11:00:00Z"))
        #expect(policy.readout.guarded == ["instagram", "tiktok"])
        #expect(throws: PolicyRefusal.unknownApp("myspace")) { _ = try policy.guardApp("myspace", at: start) }
        let restored = PolicyEngine(
            settings: policy.configuration.settings, guarded: ["instagram"], apps: testApps,
            state: policy.readout.snapshot(at: start), now: start
        )
        #expect(restored.readout.guarded == ["instagram", "tiktok"])
        policy.tick(at: at("2026-06-01T11:00:00Z"))
        #expect(policy.readout.guarded == ["tiktok"])
        #expect(policy.admit("instagram", at: at("2026-06-01T11:00:00Z")) == .notGuarded)
    }

    @Test func theCommitmentDelayAddsToTheGateAndACancelKeepsTheSetting() throws {
        let delayed = settings(.hourly) { $0.commitmentDelay = .seconds(86_400) }
        var policy = engine(delayed, now: start)
        let outcome = try policy.setMode(.hourly, window: .seconds(15 * 60), at: start)
        #expect(outcome.pending.first?.appliesAt == start + .seconds(86_400))
        #expect(policy.readout.status(at: start).pending.count == 1)
        // The mode asked for is the configuration's own: not listed as set on top of it.
        #expect(policy.readout.status(at: start).overridden == ["hourly.window-minutes"])
        _ = try policy.apply(.cancelPending(id: outcome.pending[0].id), at: start + .seconds(60))
        policy.tick(at: start + .seconds(2 * 86_400))
        #expect(policy.settings.hourly.window == .seconds(600))
        #expect(policy.state.changes.pending.isEmpty)
    }

    @Test func extremeModeChargesTheSentenceForLooseningWithItsCooldowns() throws {
        var policy = engine(settings(.extreme), now: start)
        #expect(throws: PolicyRefusal.self) { _ = try policy.setMode(.time, at: start) }
        for _ in 1...3 { _ = try? policy.setMode(.time, phrase: "let me out", at: start) }
        #expect(policy.readout.status(at: start).gateMisses == 3)
        #expect(throws: PolicyRefusal.coolingDown(remaining: .seconds(15), misses: 3)) {
            _ = try policy.setMode(.time, phrase: ExtremeSettings().sentence(opening: .seconds(900)), at: start)
        }
        let outcome = try policy.setMode(
            .time, phrase: ExtremeSettings().sentence(opening: .seconds(900)), at: start + .seconds(15))
        #expect(outcome.pending.first?.appliesAt == at("2026-06-01T11:00:00Z"))
        // Unguarding costs the sentence too; guarding more never does.
        #expect(throws: PolicyRefusal.self) { _ = try policy.unguardApp("youtube", at: start + .seconds(16)) }
        #expect(try policy.guardApp("whatsapp", at: start + .seconds(16)).pending.isEmpty)
    }

    @Test func aConfigFileThatLoosensWaitsAndInExtremeModeForTheSentence() throws {
        var policy = engine(settings(.extreme), now: start)
        let notes = policy.rebase(
            settings: settings(.extreme) { $0.extreme.strictness = .lenient },
            guarded: ["instagram", "tiktok", "youtube"],
            apps: testApps, at: start)
        #expect(notes.isEmpty)
        let pending = try #require(policy.state.changes.pending.first)
        #expect(pending.source == "configuration (config file and serve flags)" && pending.awaitingSentence)
        policy.tick(at: at("2026-06-01T12:00:00Z"))
        #expect(policy.settings.extreme.strictness == .normal, "no sentence, no change")
        _ = try policy.apply(
            .confirmPending(id: pending.id),
            credentials: Credentials(phrase: ExtremeSettings().sentence(opening: .seconds(900))),
            at: at("2026-06-01T12:00:01Z"))
        #expect(policy.settings.extreme.strictness == .lenient)
        // A restart with a file that tightens applies it at once.
        let restarted = PolicyEngine(
            settings: settings(.extreme) { $0.extreme.strictness = .strict },
            guarded: ["instagram", "tiktok", "youtube"],
            apps: testApps, state: policy.readout.snapshot(at: at("2026-06-01T12:00:02Z")),
            now: at("2026-06-01T12:00:02Z"))
        #expect(restarted.settings.extreme.strictness == .strict)
    }

    @Test func aConfigFileThatFreesNamesWaitsAndAnAppItDropsStaysGuardedUntilThen() throws {
        let names = NameRules(customApps: ["news": ["news.example"]], alwaysAllow: ["cdn.example"])
        var apps = testApps
        apps["news"] = "news"
        var policy = PolicyEngine(
            settings: settings(.hourly), guarded: ["tiktok", "news"], apps: apps, names: names, state: nil, now: start)
        #expect(policy.readout.inForceNames == names)
        // The file drops the app and its guard, always-allows another name and stops allowing one.
        let reloaded = NameRules(alwaysAllow: ["media.example"])
        policy.rebase(settings: settings(.hourly), guarded: ["tiktok"], apps: testApps, names: reloaded, at: start)
        #expect(
            policy.state.changes.pending.map(\.change.description) == [
                "guard news: guarded → not guarded", "always-allow media.example: not allowed → always allowed",
                "apps.news news.example: listed → not listed",
            ])
        #expect(policy.readout.inForceNames == NameRules(customApps: ["news": ["news.example"]], alwaysAllow: []))
        #expect(policy.readout.guarded == ["tiktok", "news"] && policy.apps["news"] != nil)
        #expect(policy.admit("news", at: start) != .notGuarded)
        // Across a restart with the new file, until the next hour.
        var restarted = PolicyEngine(
            settings: settings(.hourly), guarded: ["tiktok"], apps: testApps, names: reloaded,
            state: policy.readout.snapshot(at: start + .seconds(1)), now: start + .seconds(1))
        #expect(restarted.readout.guarded == ["tiktok", "news"] && restarted.state.changes.pending.count == 3)
        restarted.tick(at: at("2026-06-01T11:00:00Z"))
        #expect(restarted.readout.inForceNames == reloaded)
        #expect(restarted.readout.guarded == ["tiktok"] && restarted.apps["news"] == nil)
    }

    @Test func aStoreWithoutNamesTakesTheConfigurationsAsTheyAre() throws {
        let names = NameRules(alwaysAllow: ["cdn.example"], antiBypass: false)
        var state = engine(settings(.hourly), now: start).readout.snapshot(at: start)
        state.inForce?.names = nil
        let restored = PolicyEngine(
            settings: settings(.hourly), guarded: ["instagram", "tiktok", "youtube"], apps: testApps, names: names,
            state: state, now: start)
        #expect(restored.readout.inForceNames == names && restored.state.changes.pending.isEmpty)
    }

    @Test func defaultSettingsHaveNoProblems() {
        #expect(PolicySettings().problems().isEmpty)
        var bad = PolicySettings()
        bad.time.metering.slice = .seconds(7)
        #expect(bad.problems() == ["metering slice must be whole seconds that divide a minute (1-60 s)"])
    }
}
