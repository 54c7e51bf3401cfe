import Foundation
import GRDB
import LockrPolicy

/// A person's days in the `days` and `usage` tables: the day's counters and, per app, its use and
/// what budgets were charged.
extension PolicyStore {
    static func write(_ day: DayRecord, of person: String, into db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO days
                    (person, day, start_ms, end_ms, snoozes, extensions, emergencies, phrase_misses, cooldown_until_ms,
                     gates, opens, sessions, blocked, budgets)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                person, day.day.key, day.day.start.milliseconds, day.day.end.milliseconds, day.snoozes, day.extensions,
                day.emergencies, day.gateMisses, day.cooldownUntil?.milliseconds, try json(day.gates),
                try json(day.opens), try json(day.sessions), try json(day.blocked),
                try json(day.budgets.mapValues(\.milliseconds)),
            ])
        for (app, used) in day.used {
            try db.execute(
                sql: "INSERT OR REPLACE INTO usage (person, day, app, used_ms, charged_ms) VALUES (?, ?, ?, ?, ?)",
                arguments: [person, day.day.key, app, used.milliseconds, day.charged[app]?.milliseconds])
        }
        for (budget, extra) in day.extraBudget {
            try db.execute(
                sql: "INSERT OR REPLACE INTO extra_budget (person, day, budget, extra_ms) VALUES (?, ?, ?, ?)",
                arguments: [person, day.day.key, budget, extra.milliseconds])
        }
    }

    static func day(_ key: String, of person: String, in db: Database) throws -> DayRecord? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM days WHERE person = ? AND day = ?", arguments: [person, key])
        else {
            return nil
        }
        var record = DayRecord(
            day: PolicyDay(
                key: key, start: Instant(milliseconds: row["start_ms"]), end: Instant(milliseconds: row["end_ms"])))
        record.snoozes = row["snoozes"]
        record.extensions = row["extensions"]
        record.emergencies = row["emergencies"]
        record.gateMisses = row["phrase_misses"]
        record.cooldownUntil = (row["cooldown_until_ms"] as Int64?).map(Instant.init(milliseconds:))
        record.gates = decoded(row["gates"], as: [String: GateTally].self) ?? [:]
        record.opens = decoded(row["opens"], as: [String: Int].self) ?? [:]
        record.sessions = decoded(row["sessions"], as: [String: Int].self) ?? [:]
        record.blocked = decoded(row["blocked"], as: [String: Int].self) ?? [:]
        record.budgets = (decoded(row["budgets"], as: [String: Int64].self) ?? [:]).mapValues { .milliseconds($0) }
        (record.used, record.charged) = try usage(key, of: person, in: db)
        for row in try Row.fetchAll(
            db, sql: "SELECT budget, extra_ms FROM extra_budget WHERE person = ? AND day = ?", arguments: [person, key])
        {
            let extra: Int64 = row["extra_ms"]
            record.extraBudget[row["budget"]] = Duration.milliseconds(extra)
        }
        return record
    }

    /// Use and charged use per app on a day; a row an older lockr wrote has no charged figure, and
    /// then all its use was charged.
    static func usage(
        _ key: String, of person: String, in db: Database
    ) throws -> (used: [String: Duration], charged: [String: Duration]) {
        var used: [String: Duration] = [:]
        var charged: [String: Duration] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT app, used_ms, charged_ms FROM usage WHERE person = ? AND day = ?",
            arguments: [person, key])
        {
            let milliseconds: Int64 = row["used_ms"]
            used[row["app"]] = .milliseconds(milliseconds)
            charged[row["app"]] = .milliseconds((row["charged_ms"] as Int64?) ?? milliseconds)
        }
        return (used, charged)
    }
}
