import LockrAPI
import LockrControl
import LockrPolicy
import PlainText

/// What the status page shows one person: each guarded app, and each a schedule or profile closes,
/// with its badge, a countdown chip for an
/// open window, the budget as a ring, and the "protection off" banner. Built from the API's own
/// `StatusBody`, so the page and `lockr status` say the same.
struct StatusPage {
    let person: String
    /// The page's heading: the person's name, or "Your apps" for the default person (a single
    /// user's, or every device of nobody's in particular).
    let heading: String
    let summary: String
    /// "Safe search: search engines, YouTube strict", when it is on.
    let safeSearch: String?
    let now: String
    let apps: [AppCard]
    let budget: BudgetRing?
    let protectionOff: [String]
    let cooldown: String?
    let pending: [String]
    /// Whether any are (templates see stored properties only).
    let hasPending: Bool

    struct AppCard {
        let name: String
        let open: Bool
        /// "open", "locked", "blocked by a schedule".
        let badge: String
        /// "open until 14:30 (hourly window)", "locked; its page opens it" (where the CLI would say `lockr unlock tiktok`).
        let text: String
        let countdown: Countdown?
        let used: String
        /// Its page: why, until when, and the ways out of a lock.
        let page: String
        let pageLabel: String
    }

    /// Time mode's shared budget: used against the day's, drawn as a ring (SVG attributes only).
    struct BudgetRing {
        let usedMinutes: Int64
        let budgetMinutes: Int64
        /// The ring's dash: the used share of its circumference (r = 15.9155, so 100 units).
        let dash: String
        let label: String
    }

    /// `status`; its time runs `timeScale` times as fast as real time.
    init(_ status: Components.Schemas.StatusBody, timeScale: Double) {
        person = status.person
        heading = Self.heading(of: status.person)
        summary = status.summary
        safeSearch = status.safeSearch.map { "Safe search: \($0)" }
        now = status.nowLocal
        apps = status.apps.filter(\.isLimited).map { app in
            AppCard(
                name: app.name, open: app.open, badge: Self.badge(app), text: Self.why(app),
                countdown: app.windowEnds.map { Countdown($0, timeScale: timeScale) },
                used: "used \(Duration.seconds(app.usedSeconds).spokenAsUse) today", page: "/apps/\(app.id)",
                pageLabel: app.open ? "\(app.name): details" : "\(app.name): ways to open it")
        }
        if status.mode == .time, !status.perApp {
            let budget = status.budgetMinutes + status.extraMinutes
            let used = min(status.totalChargedSeconds / 60, budget)
            let share = budget > 0 ? Double(used) / Double(budget) * 100 : 100
            self.budget = BudgetRing(
                usedMinutes: used, budgetMinutes: budget,
                dash: PlainText.fixed(share, decimals: 1) + " " + PlainText.fixed(100 - share, decimals: 1),
                label: "\(used) of \(budget) min used today")
        } else {
            budget = nil
        }
        protectionOff = status.devices.filter { $0.state == .protectionOff }.map { device in
            "\(device.address): \(device.note ?? "stopped asking lockr")"
        }
        cooldown = status.cooldownEnds.map { "Wrong answers: the gate opens again at \($0.local)." }
        pending = status.pending.map { "\($0.change), from \($0.appliesAt.local)" }
        hasPending = !pending.isEmpty
    }

    /// "Your apps" for the default person, else the person's name.
    static func heading(of person: String) -> String { person == People.defaultName ? "Your apps" : person }

    static func badge(_ app: Components.Schemas.AppBody) -> String {
        if app.open { return "open" }
        switch app.state.code {
        case .schedule: return "schedule"
        case .profile: return "profile"
        case .window, .budgetLeft, .free, .budgetSpent, .hourUsed, .cooldown, .locked: return "locked"
        }
    }

    /// Where an app stands, in a page's words: the daemon's, except that a lock the CLI's
    /// `lockr unlock` opens is opened on the page (`opener`: what there opens it).
    static func why(_ app: Components.Schemas.AppBody, opener: String = "its page") -> String {
        app.state.opensBy == .unlock ? "locked; \(opener) opens it" : app.state.text
    }

}

/// The time left in an open window: "4:05 left", and the real seconds the script counts down.
struct Countdown {
    let text: String
    let seconds: Int64

    init(_ ends: Components.Schemas.TimeBody, timeScale: Double) {
        text = Components.Schemas.TimeBody.countdown(ends.inSeconds) + " left"
        seconds = Int64((Double(ends.inSeconds) / timeScale).rounded(.up))
    }
}

extension Components.Schemas.AppBody {
    /// Whether the pages show it: guarded, or closed now all the same (a schedule or a profile
    /// closes apps of people who guard nothing).
    var isLimited: Bool { guarded || !open }
}
