import LockrControl
import LockrPolicy

/// What the status page shows one person: each guarded app with its badge, a countdown chip for an
/// open window, the budget as a ring, and the "protection off" banner. Built from the API's own
/// `StatusBody`, so the page and `lockr status` say the same.
struct StatusPage {
    let person: String
    let summary: String
    let now: String
    let apps: [AppCard]
    let budget: BudgetRing?
    let protectionOff: [String]
    let cooldown: String?
    let pending: [String]
    var hasPending: Bool { !pending.isEmpty }
    /// What the last form sent was refused for, shown at the top.
    let error: String?
    /// The form token of this browser (see `FormToken`).
    let csrf: String

    struct AppCard {
        let name: String
        let open: Bool
        /// "open", "locked", "blocked by a schedule".
        let badge: String
        /// "open until 14:30 (hourly window)", "locked; `lockr unlock tiktok` opens 5 min".
        let text: String
        /// "4:05 left" for an open window.
        let countdown: String?
        let used: String
        /// How a locked app opens from the page, when it can.
        let unlock: UnlockForm?
        /// Why it cannot be opened from the page, when its gate asks what the page cannot take yet.
        let gateNote: String?
    }

    /// The form that opens a locked app's window: a button, with the sentence to type where the
    /// gate asks it.
    struct UnlockForm {
        let app: String
        let label: String
        let sentence: String?
    }

    /// Time mode's shared budget: used against the day's, drawn as a ring (SVG attributes only).
    struct BudgetRing {
        let usedMinutes: Int64
        let budgetMinutes: Int64
        /// The ring's dash: the used share of its circumference (r = 15.9155, so 100 units).
        let dash: String
        let label: String
    }

    /// `status` with the forms `gate` allows, for the browser holding `csrf`, and the refusal of
    /// the form last sent, if any.
    init(_ status: StatusBody, gate: GateRequirement, csrf: String, error: String? = nil) {
        person = status.person
        summary = status.summary
        now = status.nowLocal
        self.error = error
        self.csrf = csrf
        apps = status.apps.filter(\.guarded).map { app in
            let opens = !app.open && app.state.code == "locked" && ["unlock", "sentence"].contains(app.state.opensBy)
            let typable = gate.steps.isEmpty || (gate.steps == [.phrase] && gate.input != .voice)
            return AppCard(
                name: app.name, open: app.open, badge: Self.badge(app), text: app.state.text,
                countdown: app.windowEnds.map { TimeBody.countdown($0.inSeconds) + " left" },
                used: "used \(Self.minutes(app.usedSeconds)) today",
                unlock: opens && typable
                    ? UnlockForm(
                        app: app.id, label: "Open \(app.name) for \(status.windowMinutes) min",
                        sentence: gate.steps.isEmpty ? nil : gate.sentence) : nil,
                gateNote: opens && !typable
                    ? "This gate asks puzzles or the spoken sentence: `lockr unlock \(app.id)` opens it for now." : nil)
        }
        if status.mode == "time", !status.perApp {
            let budget = status.budgetMinutes + status.extraMinutes
            let used = min(status.totalChargedSeconds / 60, budget)
            let share = budget > 0 ? Double(used) / Double(budget) * 100 : 100
            self.budget = BudgetRing(
                usedMinutes: used, budgetMinutes: budget, dash: String(format: "%.1f %.1f", share, 100 - share),
                label: "\(used) of \(budget) min used today")
        } else {
            budget = nil
        }
        protectionOff = status.devices.filter { $0.state == "protection_off" }.map { device in
            "\(device.address): \(device.note ?? "stopped asking lockr")"
        }
        cooldown = status.cooldownEnds.map { "Wrong answers: the gate opens again at \($0.local)." }
        pending = status.pending.map { "\($0.change), from \($0.appliesAt.local)" }
    }

    private static func badge(_ app: AppBody) -> String {
        if app.open { return "open" }
        switch app.state.code {
        case "schedule": return "schedule"
        case "profile": return "profile"
        default: return "locked"
        }
    }

    private static func minutes(_ seconds: Int64) -> String {
        seconds < 60 ? "\(seconds) s" : "\(seconds / 60) min"
    }
}
