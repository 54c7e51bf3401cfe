import LockrAPI
import LockrPolicy

/// A person's days as `GET stats` and the web pages show them.
extension ControlRouter {
    /// `person`'s day `day`, or their last `count` days (today's included), and their streaks.
    public static func stats(
        of person: String, day: String?, count: Int, policy: some PolicyAccess
    ) throws
        -> Components.Schemas.PersonStatsBody
    {
        let view = policy.view(of: person)
        let calendar = view.calendar
        let today = calendar.day(containing: view.now)
        var first = today
        for _ in 1..<count { first = calendar.day(containing: first.start - .seconds(1)) }
        let range = day.map { ($0, $0) } ?? (first.key, today.key)
        let history = try policy.days(of: person, from: "0000-00-00", to: today.key)
        let streaks = Streaks(days: history)
        let shown = history.filter { $0.day.key >= range.0 && $0.day.key <= range.1 }
        return Components.Schemas.PersonStatsBody(
            person: person,
            days: shown.map { record in
                dayBody(record, apps: view.policy.apps, queries: policy.queryCounts(of: person, in: record.day))
            },
            streaks: Components.Schemas.StreaksBody(
                heldLimits: Components.Schemas.RunBody(
                    current: streaks.heldLimits.current, best: streaks.heldLimits.best),
                withoutEmergency: Components.Schemas.RunBody(
                    current: streaks.withoutEmergency.current, best: streaks.withoutEmergency.best)))
    }

    private static func dayBody(
        _ record: DayRecord, apps names: [String: String], queries: [String: Int]
    ) -> Components.Schemas.DayStatsBody {
        func seconds(_ duration: Duration?) -> Int64 { (duration ?? .zero).milliseconds / 1000 }
        func budget(_ key: String) -> Int64? {
            record.budgets[key].map { seconds($0 + (record.extraBudget[key] ?? .zero)) }
        }
        let appIDs = Set(record.used.keys).union(record.sessions.keys).union(record.opens.keys)
            .union(record.blocked.keys).subtracting([MeteringState.allApps])
        let apps = appIDs.sorted {
            (record.used[$0] ?? .zero, record.blocked[$0] ?? 0, $1) > (
                record.used[$1] ?? .zero, record.blocked[$1] ?? 0, $0
            )
        }.map { app in
            Components.Schemas.AppDayBody(
                id: app, name: names[app] ?? app, usedSeconds: seconds(record.used[app]), budgetSeconds: budget(app),
                opens: record.sessions[app] ?? 0, windows: record.opens[app] ?? 0, blocked: record.blocked[app] ?? 0)
        }
        return Components.Schemas.DayStatsBody(
            day: record.day.key, budgetSeconds: budget(MeteringState.allApps),
            usedSeconds: seconds(record.used[MeteringState.allApps]),
            chargedSeconds: seconds(record.charged[MeteringState.allApps]), apps: apps,
            gates: record.gates.keys.sorted().map { kind in
                Components.Schemas.GateDayBody(
                    kind: kind, passed: record.gates[kind]!.passed, failed: record.gates[kind]!.failed)
            },
            snoozes: record.snoozes, extensions: record.extensions, emergencies: record.emergencies,
            heldLimits: record.heldLimits, queries: .init(additionalProperties: queries))
    }
}
