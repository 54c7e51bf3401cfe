import ArgumentParser
import LockrControl

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the mode and, per guarded app: open or locked, why, use today, window end, next reset."
    )

    @OptionGroup var client: ClientOptions

    func run() async throws {
        let status = try await client.call(.GET, "status", as: StatusBody.self)
        client.show(status, Self.text)
    }

    static func text(_ status: StatusBody) -> String {
        var lines = ["Mode: \(status.summary). Day \(status.day) ends at \(status.dayEnds.spokenTime)."]
        if status.mode == "time" {
            let budget = status.perApp ? "per app" : "shared"
            lines.append(
                "Used today: \(spoken(seconds: status.totalUsedSeconds)) (budget \(status.budgetMinutes) min, \(budget))."
            )
        }
        let width = max(8, status.apps.map(\.id.count).max() ?? 0)
        if status.apps.isEmpty { lines.append("No app is guarded: `lockr guard add APP`.") }
        for app in status.apps {
            var parts = [app.id.padding(toLength: width, withPad: " ", startingAt: 0), app.open ? "open  " : "locked"]
            if let ends = app.windowEnds {
                parts.append("until \(ends.spokenTime)")
            } else if app.open, let left = app.leftSeconds {
                parts.append("\(spoken(seconds: left)) left")
            } else if !app.open {
                parts.append(String(app.reason.drop { $0 != ":" }.dropFirst(2)))
            }
            parts.append("· used \(spoken(seconds: app.usedSeconds)) today")
            if let budget = app.budgetSeconds, let left = app.leftSeconds, app.open || left > 0 {
                parts.append("of \(spoken(seconds: budget))")
            }
            lines.append("  " + parts.joined(separator: "  "))
        }
        var counters = [
            "snoozes \(status.snoozes.used)/\(status.snoozes.perDay)",
            "extensions \(status.extensions.used)/\(status.extensions.perDay)",
            "emergencies \(status.emergencies.used)/\(status.emergencies.perDay)",
        ]
        if status.mode == "extreme" { counters.append("wrong phrases \(status.phraseMisses)") }
        lines.append("Today: " + counters.joined(separator: " · "))
        if let cooldown = status.cooldownEnds {
            lines.append("Cooldown until \(cooldown.spokenTime) after \(status.phraseMisses) wrong phrases.")
        }
        return lines.joined(separator: "\n")
    }
}
