import Foundation
import LockrAPI
import LockrControl

/// A bar chart drawn on the server as SVG (presentation by classes in the stylesheet, no inline
/// style), with its numbers as a table for those who do not see it.
struct BarChart {
    let title: String
    let width: Int
    let height: Int
    let bars: [Bar]
    /// A line for the budget, when there is one.
    let limit: Limit?
    /// The highest value on the scale, for the axis label.
    let scaleLabel: String
    let hasBars: Bool

    struct Bar {
        let x: Int
        let y: Int
        let width: Int
        let height: Int
        /// Under the bar ("11-23", "TikTok").
        let label: String
        let labelX: Int
        /// "42 min of 30": the bar's title and table cell.
        let value: String
        /// `over` when past the limit.
        let tone: String
    }

    struct Limit {
        let y: Int
    }

    static let plotHeight = 120
    static let top = 14
    static let left = 8

    /// Bars of `values` (in `unit`) labelled `labels`, each `slot` wide, against their `limits` or
    /// the one `limit`; `texts`, when given, say each bar's value in words.
    init(
        title: String, labels: [String], values: [Int64], unit: String = "min", texts: [String]? = nil,
        limits: [Int64?], limit: Int64?, slot: Int
    ) {
        self.title = title
        let highest = max(values.max() ?? 0, limit ?? 0, limits.compactMap { $0 }.max() ?? 0, 1)
        func y(_ value: Int64) -> Int { Self.top + Self.plotHeight - Int(value * Int64(Self.plotHeight) / highest) }
        bars = values.indices.map { index in
            let value = values[index]
            let x = Self.left + index * slot
            let own = limits[index] ?? limit
            return Bar(
                x: x, y: y(value), width: slot * 7 / 10, height: Self.top + Self.plotHeight - y(value),
                label: labels[index],
                labelX: x + slot * 7 / 20,
                value: texts?[index] ?? own.map { "\(value) \(unit) of \($0)" } ?? "\(value) \(unit)",
                tone: own.map { value > $0 } == true ? "over" : "within")
        }
        self.limit = limit.map { Limit(y: y($0)) }
        width = Self.left * 2 + max(values.count, 1) * slot
        height = Self.top + Self.plotHeight + 30
        scaleLabel = "\(highest) \(unit)"
        hasBars = !values.isEmpty
    }

    /// Use on each day of `keys` (local dates, oldest first) against the day's budget; a day
    /// lockr has no record of shows none.
    static func days(_ days: [Components.Schemas.DayStatsBody], keys: [String]) -> BarChart {
        let byDay = Dictionary(days.map { ($0.day, $0) }, uniquingKeysWith: { first, _ in first })
        let shown = keys.map { byDay[$0] }
        let limits = shown.map { $0?.budgetSeconds.map(minutes) }
        let limit = Set(limits.compactMap { $0 }).count == 1 ? limits.compactMap { $0 }.first : nil
        return BarChart(
            title: "Use per day" + (limit.map { "; the dashed line is the budget, \($0) min" } ?? ""),
            labels: keys.map { String($0.suffix(5)) }, values: shown.map { ($0?.usedSeconds).map(minutes) ?? 0 },
            limits: limits, limit: limit, slot: 40)
    }

    /// Seconds as whole minutes, to the nearest.
    private static func minutes(_ seconds: Int64) -> Int64 { (seconds + 30) / 60 }

    /// Use per app on `day`, against each app's budget or the shared one.
    static func apps(_ day: Components.Schemas.DayStatsBody) -> BarChart {
        let shared = day.budgetSeconds.map(minutes)
        return BarChart(
            title: "Use per app on \(day.day)"
                + (shared.map { "; the dashed line is the shared budget, \($0) min" } ?? ""),
            labels: day.apps.map(\.name), values: day.apps.map { minutes($0.usedSeconds) },
            limits: day.apps.map { $0.budgetSeconds.map(minutes) }, limit: shared, slot: 96)
    }
}

extension BarChart {
    /// Queries per span (`tallies`: an hour's or a day's), each bar saying how many were blocked.
    static func queries(_ title: String, _ tallies: [Components.Schemas.TallyBody], slot: Int) -> BarChart {
        BarChart(
            title: title, labels: tallies.map(\.label), values: tallies.map { Int64($0.total) }, unit: "queries",
            texts: tallies.map { "\($0.total) queries, \(QueryShare($0).blockedText)" },
            limits: tallies.map { _ in nil },
            limit: nil, slot: slot)
    }
}

/// Queries and the blocked share of a span, in words.
struct QueryShare {
    let total: Int
    let blocked: Int

    init(_ tally: Components.Schemas.TallyBody) {
        total = tally.total
        blocked = tally.blocked
    }

    init(_ tallies: [Components.Schemas.TallyBody]) {
        total = tallies.reduce(0) { $0 + $1.total }
        blocked = tallies.reduce(0) { $0 + $1.blocked }
    }

    /// "25 blocked (7%)".
    var blockedText: String {
        let share = total == 0 ? 0 : (blocked * 1000 / total + 5) / 10
        return "\(blocked) blocked (\(share)%)"
    }

    /// "1234 queries, 25 blocked (7%)".
    var text: String { "\(total) queries, \(blockedText)" }
}
