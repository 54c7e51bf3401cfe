import Foundation
import LockrAPI
import LockrPolicy
import NIOHTTP1

/// How the control API is asked for an action, as the CLI sends it: the method, the path under
/// `/api/v1` (without `?person=`), and the body, which carries the sentence typed for the gate. The
/// routes (ControlRouter+Actions, +Restrictions) decode each back into its action, which
/// `ActionRequestTests` holds them to.
public struct ActionRequest: Sendable {
    public let method: HTTPMethod
    public let path: String
    /// The body with the sentence typed (nil: none typed).
    public let body: @Sendable (_ phrase: String?) -> (any Encodable & Sendable)?

    init(
        _ method: HTTPMethod, _ path: String,
        body: @escaping @Sendable (_ phrase: String?) -> (any Encodable & Sendable)? = { _ in nil }
    ) {
        self.method = method
        self.path = path
        self.body = body
    }
}

extension PolicyAction {
    /// How to ask the control API for it; nil for the actions the CLI does not send as such (the
    /// gate's steps are `GateWalk`'s, an import is `config import`'s, the PIN is sent in the clear
    /// for the daemon to hash).
    public var request: ActionRequest? {
        switch self {
        case .setMode(let mode, let budget, let perApp, let window):
            ActionRequest(.PUT, "mode") {
                Components.Schemas.ModeRequest(
                    mode: mode, budgetMinutes: budget.map(Self.minutes),
                    windowMinutes: window.map(Self.minutes),
                    perApp: perApp, phrase: $0)
            }
        case .guardApp(let app): ActionRequest(.POST, "guard") { Components.Schemas.AppRequest(app: app, phrase: $0) }
        case .unguardApp(let app):
            ActionRequest(.DELETE, "guard/\(pathSegment(app))") { Components.Schemas.PhraseRequest(phrase: $0) }
        case .resetSettings: ActionRequest(.POST, "settings/reset") { Components.Schemas.PhraseRequest(phrase: $0) }
        case .cancelPending(let id): ActionRequest(.DELETE, "pending/\(id)")
        case .confirmPending(let id):
            ActionRequest(.POST, "pending/\(id)/confirm") { Components.Schemas.PhraseRequest(phrase: $0) }
        case .unlock(let app):
            ActionRequest(.POST, "unlock") {
                Components.Schemas.UnlockRequest(app: app, all: app == nil ? true : nil, phrase: $0)
            }
        case .snooze(let app): ActionRequest(.POST, "snooze") { Components.Schemas.AppRequest(app: app, phrase: $0) }
        case .extend(let app): ActionRequest(.POST, "extend") { Components.Schemas.AppRequest(app: app, phrase: $0) }
        case .beginEmergency: ActionRequest(.POST, "emergency/hold")
        case .completeEmergency(let hold):
            ActionRequest(.POST, "emergency") { _ in Components.Schemas.EmergencyRequest(hold: Int64(clamping: hold)) }
        case .addSchedule(let schedule):
            ActionRequest(.POST, "schedules") {
                Components.Schemas.ScheduleRequest(
                    name: schedule.name, days: schedule.days.description, from: Schedule.clock(schedule.from),
                    to: Schedule.clock(schedule.to), block: schedule.block, phrase: $0)
            }
        case .removeSchedule(let name):
            ActionRequest(.DELETE, "schedules/\(pathSegment(name))") { Components.Schemas.PhraseRequest(phrase: $0) }
        case .defineProfile(let profile):
            ActionRequest(.POST, "profiles") { _ in
                Components.Schemas.ProfileRequest(name: profile.name, block: profile.block)
            }
        case .removeProfile(let name): ActionRequest(.DELETE, "profiles/\(pathSegment(name))")
        case .switchProfile(let name, let how, let duration):
            ActionRequest(.POST, "profiles/\(pathSegment(name))/\(how.rawValue)") { _ in
                Components.Schemas.ProfileSwitchRequest(forMinutes: duration.map(Self.minutes))
            }
        case .importSettings, .issueChallenges, .answerChallenge, .passSpokenSentence, .beginTypedFallback, .setPin:
            nil
        }
    }

    private static func minutes(_ duration: Duration) -> Int { Int(duration.components.seconds / 60) }
}

/// `text` as one segment of a URL path or a query's value: every character but unreserved ones
/// percent-encoded, so an id such as `../status` cannot reach another endpoint.
public func pathSegment(_ text: String) -> String {
    text.addingPercentEncoding(
        withAllowedCharacters: CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))
        ?? ""
}
