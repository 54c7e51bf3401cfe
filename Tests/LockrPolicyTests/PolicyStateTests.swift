import Testing

@testable import LockrPolicy

/// The day's turn: the record closed with its final usage, and a fresh one begun.
@Suite struct PolicyStateTests {
    @Test func aDayClosesOnlyOnceItIsOverWithItsUseAndBudgets() {
        let start = at("2026-06-01T10:00:00Z")
        var state = PolicyState(today: DayRecord(day: utc.day(containing: start)), lastSeen: start)
        state.today.snoozes = 2
        for second in stride(from: 0, to: 120, by: 2) {
            _ = state.metering.record(
                "instagram", at: start + .seconds(second), settings: MeteringSettings(), relookupGap: .seconds(30)
            ) { _ in false }
        }
        let budgets = ["*": Duration.seconds(1800)]
        #expect(state.closeDay(ifOverBy: at("2026-06-01T23:59:59Z"), calendar: utc, budgets: budgets) == nil)
        #expect(state.today.snoozes == 2)

        let closed = state.closeDay(ifOverBy: at("2026-06-02T00:00:05Z"), calendar: utc, budgets: budgets)
        #expect(closed?.day.key == "2026-06-01" && closed?.snoozes == 2 && closed?.budgets == budgets)
        #expect((closed?.used["instagram"] ?? .zero) > .zero)
        #expect(state.today.day.key == "2026-06-02" && state.today.snoozes == 0)
        #expect(state.metering.used("instagram", at: at("2026-06-02T00:00:05Z")) == .zero)
    }
}
