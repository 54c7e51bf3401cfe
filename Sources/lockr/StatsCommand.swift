import ArgumentParser
import Foundation
import LockrAPI
import LockrControl
import PlainText

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show use per day and app against the budget, opens, blocked queries, gates and streaks.",
        discussion: """
            An open is use that starts more than 5 minutes after the app's last. A day's limits held when no \
            snooze, extension or emergency asked for more; a day lockr has no record of (it was not running) \
            breaks a streak. Days are kept for good; queries come from the query log's hourly counts.
            """
    )

    @Option(help: ArgumentHelp("One day: its date.", valueName: "YYYY-MM-DD"))
    var day: String?
    @Flag(help: "The last 7 days.")
    var week = false
    @Flag(help: "The last 30 days.")
    var month = false
    @OptionGroup var options: ClientOptions
    @OptionGroup var person: PersonOption

    func validate() throws {
        guard [day != nil, week, month].filter({ $0 }).count <= 1 else {
            throw ValidationError("give one of --day, --week and --month")
        }
        if let day, day.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) == nil {
            throw ValidationError("--day must be a date such as 2026-03-27")
        }
    }

    func run() async throws {
        let query = Operations.GetStats.Input.Query(
            person: person.person, day: day, days: day == nil ? (week ? 7 : month ? 30 : 1) : nil)
        let stats = await options.call { try await $0.getStats(query: query).ok.body.json }
        let chart = BarChart(colour: isatty(STDOUT_FILENO) == 1)
        options.show(stats) { stats in
            stats.people.map { person in
                let days = person.days.count == 1 ? chart.day(person.days[0]) : chart.days(person.days)
                let title = person.days.count == 1 ? person.days[0].day : "\(person.days.count) days"
                return ["\(person.person), \(person.days.isEmpty ? "no days recorded" : title)"] + days
                    + [chart.streaks(person.streaks)]
            }.map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
        }
    }
}

/// Bars of block characters for use against budgets; green within, red over, when colour is on.
struct BarChart {
    let colour: Bool
    static let width = 24
    private static let eighths = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]

    /// A bar of `value` where `scale` fills the width, padded to it.
    func bar(_ value: Int64, of scale: Int64, over: Bool = false) -> String {
        let eighths = scale <= 0 ? 0 : Int(min(value, scale) * Int64(Self.width * 8) / scale)
        let text = String(repeating: "█", count: eighths / 8) + Self.eighths[eighths % 8]
        let padded = text.padded(to: Self.width)
        guard colour else { return padded }
        return (over ? "\u{1B}[31m" : "\u{1B}[32m") + padded + "\u{1B}[0m"
    }

    /// One day in full: the budget's bar, each app, allowances, gates and queries.
    func day(_ day: Components.Schemas.DayStatsBody) -> [String] {
        var lines: [String] = []
        let scale = max(day.budgetSeconds ?? 0, day.apps.map(\.usedSeconds).max() ?? 0, day.usedSeconds, 60)
        if let budget = day.budgetSeconds {
            lines.append(
                "  " + "budget".padded(to: 12)
                    + bar(day.chargedSeconds, of: budget, over: day.chargedSeconds >= budget)
                    + "  \(Duration.seconds(day.chargedSeconds).spokenAsUse) of \(spoken(seconds: budget))")
        }
        for app in day.apps {
            var detail = [
                Duration.seconds(app.usedSeconds).spokenAsUse
                    + (app.budgetSeconds.map { " of " + spoken(seconds: $0) } ?? "")
            ]
            detail.append(app.opens == 1 ? "1 open" : "\(app.opens) opens")
            if app.windows > 0 { detail.append(app.windows == 1 ? "1 window" : "\(app.windows) windows") }
            if app.blocked > 0 { detail.append("\(app.blocked) blocked") }
            let over = app.budgetSeconds.map { app.usedSeconds >= $0 } ?? false
            lines.append(
                "  " + String(app.name.prefix(11)).padded(to: 12)
                    + bar(app.usedSeconds, of: app.budgetSeconds ?? scale, over: over) + "  "
                    + detail.joined(separator: ", "))
        }
        if day.apps.isEmpty { lines.append("  no app used") }
        lines.append(
            "  snoozes \(day.snoozes), extensions \(day.extensions), emergencies \(day.emergencies)"
                + (day.heldLimits ? " (limits held)" : ""))
        if !day.gates.isEmpty {
            lines.append(
                "  gates: "
                    + day.gates.map { "\($0.kind) \($0.passed) passed, \($0.failed) failed" }.joined(separator: "; "))
        }
        let queries = day.queries.additionalProperties
        if !queries.isEmpty {
            let total = queries.values.reduce(0, +)
            lines.append("  queries: \(total) (\(queries["blocked"] ?? 0) blocked)")
        }
        return lines
    }

    /// Several days, one line each: use against the day's budget.
    func days(_ days: [Components.Schemas.DayStatsBody]) -> [String] {
        let scale = max(days.map { max($0.budgetSeconds ?? 0, $0.usedSeconds) }.max() ?? 0, 60)
        return days.map { day in
            let over = day.budgetSeconds.map { day.chargedSeconds >= $0 } ?? false
            let budget = day.budgetSeconds.map { " of " + spoken(seconds: $0) } ?? ""
            let top = day.apps.first.map { ", most \($0.name)" } ?? ""
            return "  \(day.day)  " + bar(day.usedSeconds, of: scale, over: over)
                + "  \(Duration.seconds(day.usedSeconds).spokenAsUse)\(budget)\(top)"
                + (day.heldLimits ? "" : " (asked for more)")
        }
    }

    func streaks(_ streaks: Components.Schemas.StreaksBody) -> String {
        func days(_ count: Int) -> String { count == 1 ? "1 day" : "\(count) days" }
        return "  streaks: limits held \(days(streaks.heldLimits.current)) (best \(days(streaks.heldLimits.best))), "
            + "no emergency \(days(streaks.withoutEmergency.current)) (best \(days(streaks.withoutEmergency.best)))"
    }
}
