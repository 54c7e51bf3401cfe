import Foundation
import LockrAPI
import LockrAdapters
import LockrControl
import LockrPolicy

/// Live events as a webhook takes them: the event as the control API gives it, wrapped as
/// `{"event": "live", "at": ..., "live": {...}}`, and the notification it makes, as a push.
enum WebhookNotices {
    private struct Body: Encodable {
        let event = "live"
        let at: Date
        let live: Components.Schemas.LiveEventBody
    }

    static func notice(_ event: NumberedLiveEvent, calendar: DayCalendar) -> WebhookNotice {
        let live = Components.Schemas.LiveEventBody(event, calendar: calendar)
        let json = (try? ControlJSON.encoder().encode(Body(at: live.at, live: live))) ?? Data()
        let push = Notice.make(for: live).map { notice in
            WebhookNotice.Push(
                title: event.person == People.defaultName ? notice.title : "\(notice.title) (\(event.person))",
                message: notice.body, priority: priority(notice.urgency), tags: tags(live._type))
        }
        return WebhookNotice(json: json, push: push)
    }

    /// ntfy's priorities.
    private static func priority(_ urgency: Notice.Urgency) -> String {
        switch urgency {
        case .low: "low"
        case .normal: "default"
        case .critical: "urgent"
        }
    }

    /// ntfy's tags, which it shows as emoji.
    private static func tags(_ type: String) -> [String] {
        switch type {
        case "window_ending", "budget_low": ["hourglass"]
        case "locked": ["lock"]
        case "protection_off": ["warning"]
        default: ["bell"]
        }
    }
}
