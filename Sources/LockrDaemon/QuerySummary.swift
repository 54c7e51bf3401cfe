import Foundation
import LockrAPI
import LockrPolicy
import LockrStore

/// The query log summed up for the admin's dashboard: the hourly counts give the last 24 hours,
/// the last 7 days and each person's; the queries kept give the names and clients asked most.
enum QuerySummary {
    /// The names and clients listed.
    static let top = 10
    /// Queries read at most for the top lists: a busy home's day is summed from its newest ones.
    static let scanLimit = 1_000_000

    /// The summary of `store` at the wall time `now` (milliseconds), the days being those of
    /// `calendar` (with `wall` turning a policy instant into wall milliseconds).
    static func body(
        _ store: QueryLogStore, now: Int64, today: PolicyDay, calendar: DayCalendar, wall: (Instant) -> Int64
    ) throws(StoreError) -> Components.Schemas.QuerySummaryBody {
        let hour: Int64 = 3_600_000
        let currentHour = now - now % hour
        let hourStarts = (0..<24).map { currentHour - Int64(23 - $0) * hour }
        let hourly = try store.hourlyTallies(from: hourStarts[0], to: currentHour + hour)
        let hours = hourStarts.map { start in
            tally(
                calendar.clockText(Instant(Date(timeIntervalSince1970: Double(start) / 1000))),
                hourly[start] ?? QueryTally())
        }
        var days = [today]
        while days.count < 7 { days.insert(calendar.day(containing: days[0].start - .seconds(1)), at: 0) }
        let daily = try store.hourlyTallies(from: wall(days[0].start), to: wall(today.end))
        let dayTallies = days.map { day in
            let (from, to) = (wall(day.start), wall(day.end))
            let sum = daily.filter { from <= $0.key && $0.key < to }.values.reduce(into: QueryTally()) {
                $0.total += $1.total
                $0.blocked += $1.blocked
            }
            return tally(day.key, sum)
        }
        let people = try store.personTallies(from: wall(days[0].start), to: wall(today.end))
            .sorted { $0.value.total != $1.value.total ? $0.value.total > $1.value.total : $0.key < $1.key }
            .map { tally($0.key, $0.value) }
        let tops = try store.tops(since: now - 24 * hour, top: top, scanLimit: scanLimit)
        func bodies(_ list: [(key: String, count: Int)]) -> [Components.Schemas.TopBody] {
            list.map { Components.Schemas.TopBody(key: $0.key, count: $0.count) }
        }
        return Components.Schemas.QuerySummaryBody(
            enabled: true, hours: hours, days: dayTallies, people: people, topAsked: bodies(tops.asked),
            topBlocked: bodies(tops.blocked), topClients: bodies(tops.clients), scanned: tops.scanned,
            complete: tops.complete)
    }

    /// The summary when the query log is off: nothing.
    static let off = Components.Schemas.QuerySummaryBody(
        enabled: false, hours: [], days: [], people: [], topAsked: [], topBlocked: [], topClients: [], scanned: 0,
        complete: true)

    private static func tally(_ label: String, _ tally: QueryTally) -> Components.Schemas.TallyBody {
        Components.Schemas.TallyBody(label: label, total: tally.total, blocked: tally.blocked)
    }
}
