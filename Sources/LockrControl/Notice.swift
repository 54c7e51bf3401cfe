import LockrAPI

/// What a live event says as a notification, if it is one worth interrupting someone for: a window
/// or budget running out, a lock (with why, what can be done and a suggestion), protection off,
/// and every `remindEvery`th opening of an app in a day. `lockr notify` shows it on the desktop;
/// the webhook pushes it (`[webhook] events = "text"`, as ntfy takes it).
public struct Notice: Sendable, Equatable {
    public enum Urgency: String, Sendable {
        case low, normal, critical
    }

    public let title: String
    public let body: String
    public var urgency: Urgency = .normal

    /// How often an app's openings in a day are told by default: every 5th.
    public static let remindEvery = 5

    public static func make(
        for event: Components.Schemas.LiveEventBody, remindEvery: Int = Notice.remindEvery
    ) -> Notice? {
        let app = event.appName ?? event.app
        switch event._type {
        case "window_ending":
            let minutes = event.minutesLeft ?? 0
            return Notice(
                title: "\(app ?? "lockr"): \(minutes) \(minutes == 1 ? "minute" : "minutes") left",
                body: event.state?.text.capitalizedFirst ?? event.message)
        case "budget_low":
            let minutes = event.minutesLeft ?? 0
            return Notice(
                title:
                    "\(minutes) \(minutes == 1 ? "minute" : "minutes") of \(app.map { "\($0)'s" } ?? "today's") budget left",
                body: event.message)
        case "locked":
            let why = event.state?.text.capitalizedFirst ?? event.message
            let lines = [why + ".", whatYouCanDo(event), event.suggestion.map { "Meanwhile: \($0)" }].compactMap { $0 }
            return Notice(title: "\(app ?? "An app") locked", body: lines.joined(separator: "\n"))
        case "app_opened":
            guard remindEvery > 0, let count = event.opensToday, count % remindEvery == 0 else { return nil }
            return Notice(
                title: "\(app ?? "An app") opened \(count) times today", body: "Is it what you meant to do?",
                urgency: .low)
        case "protection_off":
            return Notice(
                title: "Protection off",
                body: event.message + "\nlockr cannot limit a device that does not ask it.", urgency: .critical)
        default:
            return nil
        }
    }

    /// The ways out of a lock, by its kind.
    private static func whatYouCanDo(_ event: Components.Schemas.LiveEventBody) -> String? {
        let app = event.app ?? "APP"
        switch event.state?.code {
        case .budgetSpent:
            return "`lockr snooze \(app)` gives a short grace; `lockr extend` adds time (if any are left today)."
        case .locked:
            switch event.state?.opensBy {
            case .sentence: return "Type or say the sentence: `lockr unlock \(app)`."
            case .gate: return "Pass its gate: `lockr unlock \(app)`."
            case .firstQuery: return "Its next use opens the hour's window."
            case .unlock, nil: return "`lockr unlock \(app)` opens the hour's window."
            }
        case .cooldown: return event.state?.until.map { "The sentence can be tried again at \($0.local)." }
        case .schedule, .profile: return "Only the emergency opens it: `lockr emergency`."
        case .hourUsed: return nil  // its reason says when the next window can open
        case .window, .budgetLeft, .free, nil: return nil
        }
    }
}

extension String {
    /// "Daily budget spent (5/5 min)".
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
