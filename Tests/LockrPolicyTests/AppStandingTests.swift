import Testing

@testable import LockrPolicy

/// Where each app stands and what a query of it is answered, with no engine around it: the
/// settings and schedules from `Commitments`, the windows and metering from `PolicyState`.
@Suite struct AppStandingTests {
    let start = at("2026-06-01T12:10:00Z")
    let bedtime = Schedule(name: "bedtime", days: .everyDay, from: 12 * 60, to: 13 * 60, block: ["youtube"])

    func fresh(_ mode: Mode, _ change: (inout PolicySettings) -> Void = { _ in }) -> (Commitments, PolicyState) {
        var state = PolicyState(today: DayRecord(day: utc.day(containing: start)), lastSeen: start)
        let configuration = PolicyConfiguration(
            settings: settings(mode, change), apps: testApps, names: NameRules(), guarded: ["tiktok"],
            schedules: [bedtime], profiles: [], groups: [:])
        return (Commitments(configuration: configuration, state: &state), state)
    }

    @Test func anAppNeitherGuardedNorBlockedIsNoneOfThePolicys() {
        let (commitments, initial) = fresh(.hourly)
        var (standing, state, journal) = (AppStanding(), initial, PolicyJournal())
        let answer = standing.decide(
            "whatsapp", queriedAt: start, commitments, state: &state, journal: &journal, at: start)
        #expect(answer == .notGuarded && journal.drain().isEmpty)
        #expect(standing.watchedApps(commitments, state, at: start) == ["tiktok", "youtube"])
    }

    @Test func theHoursFirstQueryOpensItsWindowAndIsLoggedOnceAsThatOpening() {
        let (commitments, initial) = fresh(.hourly) { $0.hourly.openOnFirstQuery = true }
        var (standing, state, journal) = (AppStanding(), initial, PolicyJournal())
        standing.markAll(commitments, state, at: start)
        let answer = standing.decide(
            "tiktok", queriedAt: start, commitments, state: &state, journal: &journal, at: start)
        guard case .allow(let ttl) = answer else {
            Issue.record("the first query opens tiktok: \(answer)")
            return
        }
        #expect(ttl <= PolicySettings().maximumTTL)
        #expect(state.windows.all.count == 1 && state.today.opens["tiktok"] == 1)
        #expect(journal.drain().map(\.type) == [.unlock], "the window's opening, not a second unlock")
        standing.noteAll(commitments, state, journal: &journal, at: start + .seconds(1))
        #expect(journal.drain().isEmpty, "nothing changed since")
    }

    @Test func aScheduledAppIsBlockedWithItsReasonAndItsLockLoggedOnce() {
        let (commitments, initial) = fresh(.hourly)
        var (standing, state, journal) = (AppStanding(), initial, PolicyJournal())
        standing.markAll(commitments, state, at: start - .seconds(3600))
        let answer = standing.decide(
            "youtube", queriedAt: start, commitments, state: &state, journal: &journal, at: start)
        guard case .block(.restricted(let restriction), let reason) = answer else {
            Issue.record("bedtime blocks youtube: \(answer)")
            return
        }
        #expect(restriction.source == .schedule("bedtime") && reason.contains("bedtime"))
        #expect(journal.drain().map(\.type) == [.lock])
        _ = standing.decide("youtube", queriedAt: start, commitments, state: &state, journal: &journal, at: start)
        #expect(journal.drain().isEmpty)

        let after = at("2026-06-01T13:00:00Z")
        standing.noteAll(commitments, state, journal: &journal, at: after)
        #expect(journal.drain().map { "\($0.type) \($0.app ?? "")" } == ["unlock youtube"], "bedtime is over")
        #expect(standing.watchedApps(commitments, state, at: after) == ["tiktok"])
    }
}
