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

    /// Bars of `values` (minutes) labelled `labels`, each `slot` wide, against their `limits` or
    /// the one `limit` (minutes).
    init(title: String, labels: [String], minutes values: [Int64], limits: [Int64?], limit: Int64?, slot: Int) {
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
                labelX: x + slot * 7 / 20, value: own.map { "\(value) min of \($0)" } ?? "\(value) min",
                tone: own.map { value > $0 } == true ? "over" : "within")
        }
        self.limit = limit.map { Limit(y: y($0)) }
        width = Self.left * 2 + max(values.count, 1) * slot
        height = Self.top + Self.plotHeight + 30
        scaleLabel = "\(highest) min"
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
            labels: keys.map { String($0.suffix(5)) }, minutes: shown.map { ($0?.usedSeconds).map(minutes) ?? 0 },
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
            labels: day.apps.map(\.name), minutes: day.apps.map { minutes($0.usedSeconds) },
            limits: day.apps.map { $0.budgetSeconds.map(minutes) }, limit: shared, slot: 96)
    }
}
