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
        if !status.backends.isEmpty { lines.append("Backends:") }
        let nameWidth = max(12, (status.backends.map(\.name.count).max() ?? 0) + 2)
        for backend in status.backends { lines.append("  " + Self.text(backend, nameWidth: nameWidth)) }
        return lines.joined(separator: "\n")
    }

    /// One backend's line, its name padded to `nameWidth`: `pihole6  ok, in sync · repaired 2` or
    /// `pihole6  FAILING: ... · 3 changes waiting for 45 s · retry in 8 s`.
    static func text(_ backend: BackendBody, nameWidth: Int) -> String {
        var parts: [String] = []
        switch backend.state {
        case "ok": parts.append(backend.pending == 0 ? "ok, in sync" : "ok")
        case "failing": parts.append("FAILING: \(backend.lastError ?? "unknown error")")
        default: parts.append("starting")
        }
        if backend.pending > 0 {
            let changes = backend.pending == 1 ? "1 change" : "\(backend.pending) changes"
            parts.append("\(changes) waiting for \(spoken(seconds: backend.lagSeconds))")
        }
        if let retry = backend.retryInSeconds { parts.append("retry in \(spoken(seconds: retry))") }
        if backend.repairs > 0 { parts.append("repaired \(backend.repairs) drifted entries") }
        if backend.metering {
            parts.append(backend.logError.map { "query log UNREADABLE: \($0)" } ?? "meters usage from its query log")
        }
        var line =
            backend.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + parts.joined(separator: " · ")
        for note in backend.notes { line += "\n      note: \(note)" }
        return line
    }
}
