import Testing

@testable import LockrPolicy

/// The meter on its own: a `MeteringState` fed queries with an injected clock, told which times
/// are grace, with no engine, mode or window around it.
@Suite struct MeterTests {
    let start = at("2026-06-01T10:00:00Z")
    let settings = MeteringSettings()
    let gap = Duration.seconds(75)

    /// A query every `every` from `from` for `count` queries.
    func stream(
        _ meter: inout MeteringState, _ app: String, from: Instant, every: Duration = .seconds(10), count: Int,
        isGrace: (Instant) -> Bool = { _ in false }
    ) -> [Bool] {
        (0..<count).map { index in
            meter.record(app, at: from + every * index, settings: settings, relookupGap: gap, isGrace: isGrace)
        }
    }

    @Test func aStreamCountsForTheAppAndTheTotalAndBeginsOneSession() {
        var meter = MeteringState()
        let sessions = stream(&meter, "tiktok", from: start, count: 13)
        #expect(sessions.filter { $0 } == [true], "one session: \(sessions)")
        let now = start + .seconds(130)
        #expect(meter.used("tiktok", at: now) == .seconds(130))
        #expect(meter.used(MeteringState.allApps, at: now) == .seconds(130))
        #expect(meter.charged("tiktok", at: now) == .seconds(130))
    }

    @Test func graceIsShownAsUseButNotCharged() {
        var meter = MeteringState()
        let graceEnds = start + .seconds(60)
        _ = stream(&meter, "youtube", from: start, count: 13) { $0 < graceEnds }
        let now = start + .seconds(130)
        #expect(meter.used("youtube", at: now) == .seconds(130))
        #expect(meter.charged("youtube", at: now) == .seconds(70))
        #expect(meter.charged(MeteringState.allApps, at: now) == .seconds(70))
    }

    @Test func useAfterTheSessionGapIsANewSessionAndANewDayStartsAtZero() {
        var meter = MeteringState()
        _ = stream(&meter, "tiktok", from: start, count: 6)
        let later = start + MeteringSettings.sessionGap + .seconds(120)
        #expect(stream(&meter, "tiktok", from: later, count: 6).contains(true))
        let used = meter.used("tiktok", at: later + .seconds(60))
        #expect(used == .seconds(120), "\(used)")
        let tomorrow = utc.day(containing: start).end
        meter.startDay(at: tomorrow)
        #expect(
            meter.used("tiktok", at: tomorrow) == .zero && meter.charged(MeteringState.allApps, at: tomorrow) == .zero)
        #expect(meter.earliestRecordable("tiktok", dayStart: tomorrow, slice: settings.slice) == tomorrow)
    }

    @Test func aNewSliceLengthKeepsTheTotalsAndStartsTheMetersOver() {
        var meter = MeteringState()
        _ = stream(&meter, "tiktok", from: start, count: 7)
        let now = start + .seconds(70)
        let before = meter.totals(at: now)
        meter.restartIfTheSliceChanged(to: settings.slice, at: now)
        #expect(meter.totals(at: now) == before, "the same slice changes nothing")
        meter.restartIfTheSliceChanged(to: .seconds(5), at: now)
        #expect(meter.totals(at: now + .seconds(600)) == before, "kept, and no longer accruing")
        #expect(meter.meters.isEmpty)
    }

    @Test func budgetsAreSharedOrPerAppWithWhatWasAdded() {
        var time = TimeModeSettings(budget: .seconds(1800))
        #expect(time.budgetKey(for: "tiktok") == MeteringState.allApps)
        #expect(time.budgets(guarded: ["tiktok", "youtube"]) == [MeteringState.allApps: .seconds(1800)])
        time.perApp = true
        #expect(time.budgetKey(for: "tiktok") == "tiktok")
        #expect(time.budgets(guarded: ["tiktok", "youtube"]).keys.sorted() == ["tiktok", "youtube"])
        #expect(time.budget(forKey: "tiktok", extra: ["tiktok": .seconds(600)]) == .seconds(2400))
        #expect(time.budget(forKey: "youtube", extra: ["tiktok": .seconds(600)]) == .seconds(1800))
    }
}
