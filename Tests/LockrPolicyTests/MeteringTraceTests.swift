import Foundation
import Testing

@testable import LockrPolicy

/// Query traces of how apps are really used, against what the meter counts. The TTL lockr gives an
/// open app (at most `max-ttl`, 30 s by default) is what makes a streaming app look its names up
/// again, so the traces follow it.
@Suite struct MeteringTraceTests {
    let start = at("2026-06-01T10:00:00Z")

    /// Queries at `start + offset` for each offset (seconds), then what `app` used by `end`.
    func used(
        _ app: String = "tiktok", at offsets: [Double], until end: Double, settings: PolicySettings = settings(.time)
    ) -> Duration {
        var policy = engine(settings, now: start)
        for offset in offsets { _ = policy.admit(app, at: start + .milliseconds(Int64(offset * 1000))) }
        return policy.used(app, at: start + .milliseconds(Int64(end * 1000)))
    }

    func every(_ step: Double, from first: Double = 0, until last: Double) -> [Double] {
        Array(stride(from: first, through: last, by: step))
    }

    @Test func streamingThatLooksItsNamesUpAgainEachTTLIsCounted() {
        // Ten minutes of video: one lookup each time the 30 s TTL runs out.
        let streaming = used(at: every(30, until: 570), until: 600)
        #expect(streaming >= .seconds(570) && streaming <= .seconds(600), "\(streaming)")
        // One lookup every 15 s (a client that asks before the TTL ends).
        let twice = used(at: every(15, until: 585), until: 600)
        #expect(twice >= .seconds(580) && twice <= .seconds(600), "\(twice)")
        // A client that takes a few seconds more than the TTL to ask again is still streaming.
        let late = used(at: every(42, until: 588), until: 600)
        #expect(late >= .seconds(580) && late <= .seconds(600), "\(late)")
    }

    @Test func theReLookupGapFollowsTheTTLClamp() {
        let longer = settings(.time) { $0.maximumTTL = .seconds(60) }
        // With answers that live 60 s, a lookup a minute is an app in use...
        let minutely = used(at: every(60, until: 540), until: 600, settings: longer)
        #expect(minutely >= .seconds(540), "\(minutely)")
        // ...while with the default 30 s it is a background ping.
        #expect(used(at: every(60, until: 540), until: 600) == .zero)
    }

    @Test func scrollingInBurstsIsCounted() {
        // Five minutes of scrolling: four lookups in two seconds, then 20 s of reading.
        let bursts = stride(from: 0.0, to: 300, by: 22).flatMap { [$0, $0 + 0.5, $0 + 1, $0 + 2] }
        let scrolled = used(at: bursts, until: 300)
        #expect(scrolled >= .seconds(290) && scrolled <= .seconds(300), "\(scrolled)")
    }

    @Test func backgroundPingsAreNot() {
        #expect(used(at: every(180, until: 7200), until: 7200) == .zero)
        #expect(used(at: every(120, until: 3600), until: 3600) == .zero)
        // A burst of three when the app wakes in the background, every few minutes: each burst is a
        // slice, not a session.
        let wakeUps = stride(from: 0.0, to: 3600, by: 300).flatMap { [$0, $0 + 1, $0 + 2] }
        #expect(used(at: wakeUps, until: 3600) <= .seconds(12 * 10))
    }

    @Test func aStreamThatStopsStopsCounting() {
        var policy = engine(settings(.time), now: start)
        policy.query("tiktok", from: start, every: .seconds(30), count: 10)  // 0-270 s
        let stopped = policy.used("tiktok", at: start + .seconds(300))
        #expect(stopped >= .seconds(270) && stopped <= .seconds(280))
        #expect(policy.used("tiktok", at: start + .seconds(3600)) == stopped)
    }

    @Test func aSwitchBetweenTwoAppsCountsEachOnceAndTheTotalOnce() {
        var policy = engine(settings(.time), now: start)
        // Two minutes of Instagram, scrolled...
        for second in stride(from: 0, to: 120, by: 3) { _ = policy.admit("instagram", at: start + .seconds(second)) }
        // ...then four of TikTok video: a burst as it opens, then a lookup each TTL.
        for second in [120, 121, 122] { _ = policy.admit("tiktok", at: start + .seconds(Int64(second))) }
        policy.query("tiktok", from: start + .seconds(150), every: .seconds(30), count: 7)  // 150-330 s
        let end = start + .seconds(360)
        let instagram = policy.used("instagram", at: end)
        let tiktok = policy.used("tiktok", at: end)
        let total = policy.readout.status(at: end).totalUsed
        #expect(instagram >= .seconds(110) && instagram <= .seconds(130), "\(instagram)")
        #expect(tiktok >= .seconds(210) && tiktok <= .seconds(220), "\(tiktok)")
        #expect(total >= .seconds(330) && total <= .seconds(340), "\(total)")
    }

    @Test func twoAppsStreamingAtOnceCountOnceAgainstTheSharedBudget() {
        var policy = engine(settings(.time), now: start)
        for second in stride(from: 0, through: 300, by: 30) {
            _ = policy.admit("tiktok", at: start + .seconds(Int64(second)))
            _ = policy.admit("youtube", at: start + .seconds(Int64(second) + 7))
        }
        let end = start + .seconds(320)
        #expect(policy.readout.status(at: end).totalUsed <= .seconds(320))
        #expect(policy.used("tiktok", at: end) >= .seconds(300))
        #expect(policy.used("youtube", at: end) >= .seconds(300))
    }
}

/// A kill loses at most what happened since the last save (a second): the slice that accrued when
/// lockr died accrues on after the restart, and is never counted twice.
@Suite struct MeteringAcrossRestartsTests {
    let start = at("2026-06-01T10:00:00Z")

    /// Runs `trace` through an engine that saves at every whole second; at `kill` it dies, and the
    /// engine restored from its last save is back `down` later. A query sent while lockr was down
    /// is asked again (stub resolvers retry) and reaches the restarted engine.
    func meter(_ trace: [Int64], kill: Int64?, down: Int64 = 300, end: Int64) -> Duration {
        let settings = settings(.time) { $0.time.budget = .seconds(180 * 60) }
        var live = engine(settings, guarded: ["tiktok"], now: start)
        var lastSave = live.readout.snapshot(at: start)
        var nextSave: Int64 = 1000
        var restarted = false
        for offset in trace {
            while nextSave <= offset, !(kill.map { nextSave > $0 } ?? false) {
                lastSave = live.readout.snapshot(at: start + .milliseconds(nextSave))
                nextSave += 1000
            }
            var asked = offset
            if let kill, !restarted, offset >= kill {
                live = PolicyEngine(
                    settings: settings, guarded: ["tiktok"], apps: testApps, state: lastSave,
                    now: start + .milliseconds(kill + down))
                restarted = true
                nextSave = (kill + down) / 1000 * 1000 + 1000
                asked = max(offset, kill + down)
            }
            _ = live.admit("tiktok", at: start + .milliseconds(asked))
        }
        return live.used("tiktok", at: start + .milliseconds(end))
    }

    @Test func aKillAtAnyPointOfASliceLosesAtMostASecond() {
        let traces: [(name: String, queries: [Int64])] = [
            ("scrolling, a lookup every 2 s", Array(stride(from: 0, through: 600_000, by: 2000))),
            ("streaming, a lookup every 30 s", Array(stride(from: 0, through: 600_000, by: 30_000))),
        ]
        for trace in traces {
            let reference = meter(trace.queries, kill: nil, end: 610_000)
            // Every half second of the slice from 300 s to 310 s.
            for kill in stride(from: Int64(300_000), to: 310_000, by: 500) {
                let killed = meter(trace.queries, kill: kill, end: 610_000)
                let difference = abs((killed - reference).milliseconds)
                #expect(
                    difference <= 1000,
                    "\(trace.name): kill at \(kill) ms counted \(killed), \(reference) without the kill")
            }
        }
    }
}

extension MeteringAcrossRestartsTests {
    /// A budget spent, lockr stopped for a night (or policy time moved on with `--start-at`), and
    /// the app streaming again: the night is no use.
    @Test func aLongStopIsNeverCountedAsUse() {
        let night: Int64 = 8 * 3_600_000
        let kill: Int64 = 300_500
        let before = Array(stride(from: Int64(0), through: 300_000, by: 30_000))
        let after = [Int64(0), 30_000, 60_000].map { kill + night + $0 }
        let used = meter(before + after, kill: kill, down: night, end: kill + night + 70_000)
        #expect(used >= .seconds(300) && used <= .seconds(400), "\(used)")
    }
}

@Suite struct SnoozeChargeTests {
    let start = at("2026-06-01T10:00:00Z")

    @Test func snoozeTimeIsShownAsUseButChargedToNoBudget() throws {
        var policy = engine(settings(.time) { $0.time.budget = .seconds(300) }, now: start)
        policy.query("tiktok", from: start, every: .seconds(2), count: 150)  // spent at 300 s
        #expect(policy.admit("tiktok", at: start + .seconds(300)).reason == "tiktok: daily budget spent (5/5 min)")
        _ = try policy.snooze(nil, at: start + .seconds(300))
        policy.query("tiktok", from: start + .seconds(300), every: .seconds(2), count: 150)  // the whole snooze
        let afterSnooze = start + .seconds(600)
        #expect(policy.admit("tiktok", at: afterSnooze).reason == "tiktok: daily budget spent (5/5 min)")
        let app = policy.readout.status(at: afterSnooze).apps.first { $0.id == "tiktok" }!
        #expect(app.used >= .seconds(590) && app.used <= .seconds(600))
        #expect(app.uncharged >= .seconds(290) && app.uncharged <= .seconds(300))
        #expect(app.left == .zero)
        // An extension of 10 minutes gives 10 usable minutes, not what the snooze left of them.
        #expect(try policy.extend(nil, at: afterSnooze) == .seconds(900))
        let extended = policy.query("tiktok", from: afterSnooze, every: .seconds(2), count: 299)  // to 1196 s
        #expect(extended.isAllowed)
        #expect(
            policy.admit("tiktok", at: afterSnooze + .seconds(600)).reason == "tiktok: daily budget spent (15/15 min)")
        let status = policy.readout.status(at: afterSnooze + .seconds(600))
        #expect(status.extraBudget == .seconds(600))
        #expect(status.totalCharged == .seconds(900))
    }

    @Test func emergencyTimeIsNotChargedEither() throws {
        var policy = engine(settings(.time) { $0.time.budget = .seconds(300) }, now: start)
        let hold = try policy.beginEmergency(at: start)
        _ = try policy.completeEmergency(hold: hold, at: start + .seconds(8))
        policy.query("tiktok", from: start + .seconds(10), every: .seconds(2), count: 140)  // inside the window
        let status = policy.readout.status(at: start + .seconds(300))
        #expect(status.totalUsed >= .seconds(270))
        #expect(status.totalCharged <= .seconds(10))
    }

    @Test func budgetFiguresAlwaysAddUp() {
        for seconds in stride(from: 0, through: 300, by: 7) {
            let figures = BudgetFigures(charged: .seconds(Int64(seconds)), budget: .seconds(300))
            #expect(figures.usedMinutes + figures.leftMinutes == 5)
        }
        #expect(BudgetFigures(charged: .seconds(270), budget: .seconds(300)).text == "4/5 min")
        #expect(BudgetFigures(charged: .seconds(270), budget: .seconds(300)).leftMinutes == 1)
    }
}
