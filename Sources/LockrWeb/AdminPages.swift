import LockrAPI
import LockrControl
import LockrPolicy

/// The admin view's overview: every person with their mode and apps, every device lockr saw and
/// whose it is, and the backends' health.
struct AdminOverview {
    let csrf: String
    let error: String?
    let people: [PersonRow]
    let devices: [DeviceRow]
    let hasDevices: Bool
    let backends: [BackendRow]
    let hasBackends: Bool

    struct PersonRow {
        let name: String
        let link: String
        let summary: String
        let apps: [AppBadge]
    }

    struct AppBadge {
        let name: String
        let badge: String
        let text: String
    }

    struct DeviceRow {
        let address: String
        let mac: String
        let person: String
        /// What an assignment names it by: its MAC when known (it outlasts address changes).
        let key: String
        /// Whether an assignment may move it: not when the config file names it.
        let assignable: Bool
        let choices: [AdminPersonPage.Choice]
        let identifiedBy: String
        let lastSeen: String
        let state: String
    }

    struct BackendRow {
        let name: String
        let state: String
        let detail: String
    }

    init(
        people: [Components.Schemas.StatusBody], devices: [Components.Schemas.DeviceBody],
        backends: [Components.Schemas.BackendBody], csrf: String, error: String? = nil
    ) {
        self.csrf = csrf
        self.error = error
        let names = people.map(\.person)
        self.people = people.map { status in
            PersonRow(
                name: status.person, link: "/admin/people/\(status.person)", summary: status.summary,
                apps: status.apps.filter(\.isLimited).map {
                    AppBadge(name: $0.name, badge: StatusPage.badge($0), text: StatusPage.why($0))
                })
        }
        self.devices = devices.map { device in
            DeviceRow(
                address: device.address, mac: device.clientId.map { "id:" + $0 } ?? device.mac ?? "",
                person: device.person, key: device.clientId.map { "id:" + $0 } ?? device.mac ?? device.address,
                assignable: !device.fromConfig,
                choices: names.map { AdminPersonPage.Choice(value: $0, selected: $0 == device.person) },
                identifiedBy: device.identifiedBy.replacing("-", with: " "),
                lastSeen: device.lastSeen.local,
                state: device.note.map { "\(device.state.rawValue.replacing("_", with: " ")): \($0)" }
                    ?? device.state.rawValue.replacing("_", with: " "))
        }
        hasDevices = !devices.isEmpty
        self.backends = backends.map { backend in
            var detail =
                backend.pending == 0 ? "in sync" : "\(backend.pending) changes waiting, \(backend.lagSeconds) s behind"
            if let error = backend.lastError { detail += "; last error: \(error)" }
            return BackendRow(
                name: backend.name, state: backend.state.replacing("_", with: " "), detail: detail)
        }
        hasBackends = !backends.isEmpty
    }
}

/// One person in the admin view: where they stand, their use as charts, and what the household
/// changes for them: mode and budget, profiles on and off, schedules.
struct AdminPersonPage {
    let csrf: String
    let person: String
    let status: StatusPage
    let error: String?
    let modes: [Choice]
    let budgetMinutes: Int64
    let windowMinutes: Int64
    let days: BarChart
    let dayRows: [DayRow]
    let apps: BarChart?
    let streaks: String
    let profiles: [ProfileRow]
    let hasProfiles: Bool
    let schedules: [ScheduleRow]
    let hasSchedules: Bool
    let filters: AdminFilters

    struct Choice {
        let value: String
        let label: String
        let selected: Bool

        init(value: String, label: String? = nil, selected: Bool) {
            self.value = value
            self.label = label ?? value
            self.selected = selected
        }
    }

    struct DayRow {
        let day: String
        let used: String
        let budget: String
        let blocked: Int
        let gates: String
    }

    struct ProfileRow {
        let name: String
        let text: String
        let on: Bool
        /// `activate` or `deactivate`.
        let action: String
        let actionLabel: String
    }

    struct ScheduleRow {
        let name: String
        let text: String
    }

    init(
        _ status: Components.Schemas.StatusBody, stats: Components.Schemas.PersonStatsBody, dayKeys: [String],
        profiles: [Components.Schemas.ProfileBody],
        schedules: [Components.Schemas.ScheduleBody], filters: Components.Schemas.FiltersResponse,
        timeScale: Double, csrf: String, error: String?
    ) {
        self.csrf = csrf
        self.filters = AdminFilters(filters)
        person = status.person
        self.status = StatusPage(status, timeScale: timeScale)
        self.error = error
        modes = Mode.allCases.map { Choice(value: $0.rawValue, selected: $0 == status.mode) }
        budgetMinutes = status.budgetMinutes
        windowMinutes = status.windowMinutes
        days = BarChart.days(stats.days, keys: dayKeys)
        dayRows = stats.days.reversed().map { day in
            let gates = day.gates.map { "\($0.kind) \($0.passed) passed, \($0.failed) failed" }
            return DayRow(
                day: day.day, used: Duration.seconds(day.usedSeconds).spokenAsUse,
                budget: day.budgetSeconds.map { "\($0 / 60) min" } ?? "",
                blocked: day.apps.reduce(0) { $0 + $1.blocked },
                gates: gates.isEmpty ? "none" : gates.joined(separator: "; "))
        }
        apps = stats.days.last.flatMap { $0.apps.isEmpty ? nil : BarChart.apps($0) }
        let (held, calm) = (stats.streaks.heldLimits, stats.streaks.withoutEmergency)
        streaks =
            "Limits held \(Self.days(held.current)) in a row (best \(Self.days(held.best))); "
            + "no emergency \(Self.days(calm.current)) (best \(Self.days(calm.best)))."
        self.profiles = profiles.map { profile in
            ProfileRow(
                name: profile.name,
                text: "blocks \(profile.block.joined(separator: ", "))"
                    + (profile.active ? "; on" + (profile.until.map { " until \($0.local)" } ?? "") : "; off"),
                on: profile.active, action: profile.active ? "deactivate" : "activate",
                actionLabel: profile.active ? "Switch \(profile.name) off" : "Switch \(profile.name) on")
        }
        hasProfiles = !profiles.isEmpty
        self.schedules = schedules.map { schedule in
            ScheduleRow(
                name: schedule.name,
                text:
                    "\(schedule.days) \(schedule.from)-\(schedule.to), blocks \(schedule.block.joined(separator: ", "))"
                    + (schedule.activeUntil.map { "; in force until \($0.local)" } ?? ""))
        }
        hasSchedules = !schedules.isEmpty
    }
}

extension AdminPersonPage {
    fileprivate static func days(_ count: Int) -> String { count == 1 ? "1 day" : "\(count) days" }
}

/// The query log in the admin view, with its filters.
struct AdminQueriesPage {
    let csrf: String
    let people: [AdminPersonPage.Choice]
    let client: String
    let blocked: Bool
    let since: [Span]
    let entries: [Row]
    let hasEntries: Bool
    let note: String

    struct Span {
        let value: String
        let label: String
        let selected: Bool
    }

    struct Row {
        let at: String
        let client: String
        let person: String
        let name: String
        let type: String
        let outcome: String
        let reason: String
    }

    static let spans: [(seconds: Int64, label: String)] = [
        (900, "15 min"), (3600, "1 hour"), (86_400, "1 day"), (604_800, "7 days"),
    ]

    init(_ response: Components.Schemas.QueriesResponse, request: QueryLogRequest, csrf: String) {
        self.csrf = csrf
        people =
            [AdminPersonPage.Choice(value: "", label: "everyone", selected: request.person == nil)]
            + response.people.map { AdminPersonPage.Choice(value: $0, selected: $0 == request.person) }
        client = request.client ?? ""
        blocked = request.blockedOnly
        since = Self.spans.map { span in
            Span(value: String(span.seconds), label: span.label, selected: span.seconds == request.sinceSeconds)
        }
        entries = response.entries.reversed().map { entry in
            Row(
                at: String(entry.at.formatted(.iso8601).prefix(19)).replacing("T", with: " "),
                client: entry.client,
                person: entry.person, name: entry.name, type: entry._type, outcome: entry.outcome.rawValue,
                reason: entry.reason ?? "")
        }
        hasEntries = !entries.isEmpty
        note =
            response.enabled
            ? "Newest first; kept \(Self.days(response.retentionDays)); \(response.dropped) dropped since lockr started."
            : "Queries are not logged (`[query-log] enabled = false`)."
    }

    private static func days(_ days: Double) -> String {
        days == days.rounded() ? "\(Int(days)) days" : "\(days) days"
    }
}

/// The event log in the admin view.
struct AdminEventsPage {
    let csrf: String
    let people: [AdminPersonPage.Choice]
    let events: [Components.Schemas.EventBody]
    let hasEvents: Bool

    init(_ events: [Components.Schemas.EventBody], people names: [String], person: String?, csrf: String) {
        self.csrf = csrf
        people =
            [AdminPersonPage.Choice(value: "", label: "everyone", selected: person == nil)]
            + names.map { AdminPersonPage.Choice(value: $0, selected: $0 == person) }
        self.events = events.reversed()
        hasEvents = !events.isEmpty
    }
}

/// The dashboard: queries and the blocked share over the last 24 hours and 7 days, drawn as bars
/// with the numbers in tables, each person's, and the names and clients asked most.
struct AdminDashboardPage {
    let csrf: String
    let enabled: Bool
    let dayText: String
    let weekText: String
    let hours: BarChart
    let days: BarChart
    let hourRows: [Row]
    let dayRows: [Row]
    let people: [Row]
    let asked: [Top]
    let blocked: [Top]
    let clients: [Top]
    /// Whether any are (templates see stored properties only).
    let hasAsked: Bool
    let hasBlocked: Bool
    /// Said when the top lists were read from the newest queries only.
    let note: String?

    struct Row {
        let label: String
        let total: Int
        let blocked: String
    }

    struct Top {
        let key: String
        let count: Int
    }

    init(_ summary: Components.Schemas.QuerySummaryBody, csrf: String) {
        self.csrf = csrf
        enabled = summary.enabled
        dayText = "Last 24 hours: " + QueryShare(summary.hours).text
        weekText = "Last 7 days: " + QueryShare(summary.days).text
        // An hour by its hour ("14"), a day by its month and day ("11-27"): both charts fit a phone.
        hours = .queries(
            "Queries per hour, the last 24 hours",
            summary.hours.map { .init(label: String($0.label.prefix(2)), total: $0.total, blocked: $0.blocked) },
            slot: 14)
        days = .queries(
            "Queries per day, the last 7 days",
            summary.days.map { .init(label: String($0.label.suffix(5)), total: $0.total, blocked: $0.blocked) },
            slot: 48)
        func rows(_ tallies: [Components.Schemas.TallyBody]) -> [Row] {
            tallies.map { Row(label: $0.label, total: $0.total, blocked: QueryShare($0).blockedText) }
        }
        hourRows = rows(summary.hours)
        dayRows = rows(summary.days)
        people = rows(summary.people)
        func tops(_ list: [Components.Schemas.TopBody]) -> [Top] { list.map { Top(key: $0.key, count: $0.count) } }
        asked = tops(summary.topAsked)
        blocked = tops(summary.topBlocked)
        clients = tops(summary.topClients)
        hasAsked = !asked.isEmpty
        hasBlocked = !blocked.isEmpty
        note =
            summary.complete
            ? nil : "The top lists count the newest \(summary.scanned) queries of the last 24 hours; it held more."
    }
}
