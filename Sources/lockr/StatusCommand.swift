import ArgumentParser
import LockrAPI
import LockrControl
import LockrPolicy
import PlainText

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Show each person's mode and, per guarded app: open or locked, why, use today, window end, next reset."
    )

    @OptionGroup var client: ClientOptions
    @OptionGroup var person: PersonOption

    func run() async throws {
        let status = await client.call { try await $0.getStatus(query: .init(person: person.person)).ok.body.json }
        client.show(status, Self.text)
    }

    static func text(_ household: Components.Schemas.HouseholdStatusBody) -> String {
        var lines: [String] = []
        if let warning = household.clockWarning { lines.append("WARNING: \(warning)") }
        let named = household.people.count > 1 || household.people.first?.person != People.defaultName
        for status in household.people {
            if named { lines.append((lines.isEmpty ? "" : "\n") + "== \(status.person) ==") }
            lines.append(text(status))
        }
        if !household.backends.isEmpty { lines.append("Backends:") }
        let nameWidth = max(12, (household.backends.map(\.name.count).max() ?? 0) + 2)
        for backend in household.backends { lines.append("  " + Self.text(backend, nameWidth: nameWidth)) }
        if let dnstap = household.dnstap { lines.append(text(dnstap)) }
        return lines.joined(separator: "\n")
    }

    /// The dnstap line: where it listens, who is connected, what it took and what it turned away.
    static func text(_ dnstap: Components.Schemas.DnstapBody) -> String {
        guard dnstap.problem == nil || !dnstap.listening.isEmpty else {
            return "dnstap: NOT LISTENING: \(dnstap.problem ?? "?") (trying again every 30 s)"
        }
        var parts = [
            "listening on \(dnstap.listening.joined(separator: ", "))",
            "\(dnstap.connected) resolver\(dnstap.connected == 1 ? "" : "s") connected",
            "\(dnstap.messages) messages, \(dnstap.metered) metered",
        ]
        var lost: [String] = []
        if dnstap.malformed > 0 { lost.append("\(dnstap.malformed) malformed") }
        if dnstap.broken > 0 { lost.append("\(dnstap.broken) connections cut off for bad framing") }
        if dnstap.refused > 0 { lost.append("\(dnstap.refused) turned away") }
        if !lost.isEmpty { parts.append(lost.joined(separator: ", ")) }
        if let last = dnstap.lastMessage { parts.append("last at \(last)") }
        return "dnstap: " + parts.joined(separator: "; ")
    }

    /// One person's part.
    static func text(_ status: Components.Schemas.StatusBody) -> String {
        var lines = [
            "Now: \(status.nowLocal) (\(status.timeZone)).",
            "Mode: \(status.summary). Day \(status.day) ends at \(status.dayEnds.spokenTime).",
        ]
        if let safeSearch = status.safeSearch { lines.append("Safe search: \(safeSearch).") }
        if status.mode == .time { lines.append(budgetLine(status)) }
        let width = max(8, status.apps.map(\.id.count).max() ?? 0)
        if status.apps.isEmpty { lines.append("No app is guarded: `lockr guard add APP`.") }
        for app in status.apps {
            var parts = [app.id.padded(to: width), app.open ? "open  " : "locked"]
            let figures = app.budgetSeconds.map { BudgetFigures(app, budgetSeconds: $0) }
            if let ends = app.windowEnds {
                parts.append("until \(ends.spokenTime)")
            } else if app.open, let figures {
                parts.append("\(figures.leftMinutes) min left")
            } else if !app.open {
                parts.append(app.state.text)
            }
            parts.append(
                app.guarded ? "· used " + useText(app, figures: status.perApp ? figures : nil) : "· not guarded")
            lines.append("  " + parts.joined(separator: "  "))
        }
        var counters = [
            "snoozes \(status.snoozes.used)/\(status.snoozes.perDay)",
            "extensions \(status.extensions.used)/\(status.extensions.perDay)",
            "emergencies \(status.emergencies.used)/\(status.emergencies.perDay)",
        ]
        if status.gateMisses > 0 || status.mode == .extreme { counters.append("wrong answers \(status.gateMisses)") }
        lines.append("Today: " + counters.joined(separator: " · "))
        if let cooldown = status.cooldownEnds {
            lines.append("Cooldown until \(cooldown.spokenTime) after \(status.gateMisses) wrong answers.")
        }
        if !status.devices.isEmpty { lines.append("Devices:") }
        for device in status.devices { lines.append("  \(deviceName(device))  · \(deviceState(device))") }
        if !status.schedules.isEmpty { lines.append("Schedules:") }
        for schedule in status.schedules { lines.append("  " + scheduleLine(schedule)) }
        let profiles = status.profiles.filter(\.active)
        if !profiles.isEmpty { lines.append("Profiles on: " + profiles.map(profileLine).joined(separator: "; ")) }
        if !status.pending.isEmpty {
            lines.append("Pending (they loosen protection; `lockr pending cancel ID` drops one):")
        }
        for pending in status.pending { lines.append("  " + pendingLine(pending, person: status.person)) }
        if !status.overridden.isEmpty {
            lines.append(
                "Set by the CLI, on top of the config file: \(status.overridden.joined(separator: ", ")) "
                    + "(`lockr settings reset` goes back to the file).")
        }
        return lines.joined(separator: "\n")
    }

    /// "3 min today"; in time mode with the budget's figures when it is the app's own ("3/5 min
    /// today"), and use in snooze or emergency windows apart, as no budget is charged for it.
    static func useText(_ app: Components.Schemas.AppBody, figures: BudgetFigures?) -> String {
        guard app.budgetSeconds != nil else { return "\(Duration.seconds(app.usedSeconds).spokenAsUse) today" }
        let charged = figures?.text ?? Duration.seconds(app.usedSeconds - app.unchargedSeconds).spokenAsUse
        guard app.unchargedSeconds > 0 else { return "\(charged) today" }
        return
            "\(charged) today, plus \(Duration.seconds(app.unchargedSeconds).spokenAsUse) in snooze or emergency (not charged)"
    }

    /// Time mode: today's budget with extensions, and, when it is shared, what is used and left of it.
    static func budgetLine(_ status: Components.Schemas.StatusBody) -> String {
        let budget = status.budgetMinutes + status.extraMinutes
        let extended =
            status.extraMinutes > 0 ? " (\(status.budgetMinutes) min + \(status.extraMinutes) min extended)" : ""
        guard !status.perApp else { return "Budget today: \(budget) min per app\(extended)." }
        let figures = BudgetFigures(
            charged: .seconds(status.totalChargedSeconds), budget: .seconds(budget * 60))
        return "Budget today: \(budget) min\(extended), shared: \(figures.usedMinutes) min used, "
            + "\(figures.leftMinutes) min left."
    }

    /// One backend's line, its name padded to `nameWidth`: `pihole6  ok, in sync · repaired 2` or
    /// `pihole6  FAILING: ... · 3 changes waiting for 45 s · retry in 8 s`.
    static func text(_ backend: Components.Schemas.BackendBody, nameWidth: Int) -> String {
        var parts: [String] = []
        switch backend.state {
        case "ok": parts.append(backend.pending == 0 ? "ok, in sync" : "ok")
        case "not_enforcing": parts.append("NOT ENFORCING: \(backend.notEnforcing.joined(separator: "; "))")
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
            backend.name.padded(to: nameWidth) + parts.joined(separator: " · ")
        for note in backend.notes { line += "\n      note: \(note)" }
        return line
    }
}

extension BudgetFigures {
    /// The figures of the budget `app` draws on: what is left of it and hence what was charged.
    init(_ app: Components.Schemas.AppBody, budgetSeconds: Int64) {
        let left = app.leftSeconds ?? 0
        self.init(charged: .seconds(max(0, budgetSeconds - left)), budget: .seconds(budgetSeconds))
    }
}
