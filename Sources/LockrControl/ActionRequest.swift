import Foundation
import LockrAPI
import LockrPolicy
import OpenAPIRuntime
import PlainText

/// How the control API is asked for an action, as the CLI sends it: the operation of docs/openapi.yaml
/// that takes it, called through the generated `Client` with the sentence typed for the gate and the
/// PIN given. `ActionRequestTests` holds each to the server: sent, it makes the change that applying
/// the action to the engine makes.
public struct ActionRequest: Sendable {
    /// Calls the operation for `person` (nil: the caller's); its answer's body.
    public let send:
        @Sendable (_ api: Client, _ person: String?, _ phrase: String?, _ pin: String?) async throws
            -> any Encodable & Sendable
}

extension PolicyAction {
    /// How to ask the control API for it; nil for the actions the CLI does not send as such (the
    /// gate's steps are `GateWalk`'s, an import is `config import`'s, the PIN is sent in the clear
    /// for the daemon to hash).
    public var request: ActionRequest? {
        switch self {
        case .setMode(let mode, let budget, let perApp, let window):
            ActionRequest { api, person, phrase, pin in
                let body = Components.Schemas.ModeRequest(
                    mode: mode, budgetMinutes: budget.map(Self.minutes), windowMinutes: window.map(Self.minutes),
                    perApp: perApp, phrase: phrase)
                return try await api.setMode(
                    query: .init(person: person), headers: .init(xLockrPIN: pin), body: .json(body)
                )
                .ok.body.json
            }
        case .guardApp(let app):
            ActionRequest { api, person, phrase, _ in
                try await api.guardApp(query: .init(person: person), body: .json(.init(app: app, phrase: phrase)))
                    .ok.body.json
            }
        case .unguardApp(let app):
            ActionRequest { api, person, phrase, pin in
                try await api.unguardApp(
                    path: .init(app: app), query: .init(person: person), headers: .init(xLockrPIN: pin),
                    body: .json(.init(phrase: phrase))
                ).ok.body.json
            }
        case .resetSettings:
            ActionRequest { api, person, phrase, pin in
                try await api.resetSettings(
                    query: .init(person: person), headers: .init(xLockrPIN: pin), body: .json(.init(phrase: phrase))
                ).ok.body.json
            }
        case .cancelPending(let id):
            ActionRequest { api, person, _, _ in
                try await api.cancelPending(path: .init(id: id), query: .init(person: person)).ok.body.json
            }
        case .confirmPending(let id):
            ActionRequest { api, person, phrase, pin in
                try await api.confirmPending(
                    path: .init(id: id), query: .init(person: person), headers: .init(xLockrPIN: pin),
                    body: .json(.init(phrase: phrase))
                ).ok.body.json
            }
        case .unlock(let app):
            ActionRequest { api, person, phrase, _ in
                let body = Components.Schemas.UnlockRequest(app: app, all: app == nil ? true : nil, phrase: phrase)
                return try await api.unlock(query: .init(person: person), body: .json(body)).ok.body.json
            }
        case .snooze(let app):
            ActionRequest { api, person, phrase, _ in
                try await api.snooze(query: .init(person: person), body: .json(.init(app: app, phrase: phrase)))
                    .ok.body.json
            }
        case .extend(let app):
            ActionRequest { api, person, phrase, _ in
                try await api.extend(query: .init(person: person), body: .json(.init(app: app, phrase: phrase)))
                    .ok.body.json
            }
        case .beginEmergency:
            ActionRequest { api, person, _, _ in
                try await api.beginEmergencyHold(query: .init(person: person)).ok.body.json
            }
        case .completeEmergency(let hold):
            ActionRequest { api, person, _, _ in
                try await api.completeEmergency(
                    query: .init(person: person), body: .json(.init(hold: Int64(clamping: hold)))
                ).ok.body.json
            }
        case .addSchedule(let schedule):
            ActionRequest { api, person, phrase, pin in
                let body = Components.Schemas.ScheduleRequest(
                    name: schedule.name, days: schedule.days.description, from: Schedule.clock(schedule.from),
                    to: Schedule.clock(schedule.to), block: schedule.block, phrase: phrase)
                return try await api.addSchedule(
                    query: .init(person: person), headers: .init(xLockrPIN: pin), body: .json(body)
                ).ok.body.json
            }
        case .changeFilters(let change):
            ActionRequest { api, person, phrase, pin in
                try await api.changeFilters(
                    query: .init(person: person), headers: .init(xLockrPIN: pin),
                    body: .json(Self.filterChangeRequest(change, phrase: phrase))
                ).ok.body.json
            }
        case .removeSchedule(let name):
            ActionRequest { api, person, phrase, pin in
                try await api.removeSchedule(
                    path: .init(name: name), query: .init(person: person), headers: .init(xLockrPIN: pin),
                    body: .json(.init(phrase: phrase))
                ).ok.body.json
            }
        case .defineProfile(let profile):
            ActionRequest { api, person, _, pin in
                try await api.defineProfile(
                    query: .init(person: person), headers: .init(xLockrPIN: pin),
                    body: .json(.init(name: profile.name, block: profile.block))
                ).ok.body.json
            }
        case .removeProfile(let name):
            ActionRequest { api, person, _, pin in
                try await api.removeProfile(
                    path: .init(name: name), query: .init(person: person), headers: .init(xLockrPIN: pin)
                ).ok.body.json
            }
        case .switchProfile(let name, let how, let duration):
            ActionRequest { api, person, _, pin in
                let body = Components.RequestBodies.ProfileSwitch.json(.init(forMinutes: duration.map(Self.minutes)))
                let path = Operations.ActivateProfile.Input.Path(name: name)
                return switch how {
                case .activate:
                    try await api.activateProfile(path: path, query: .init(person: person), body: body).ok.body.json
                case .deactivate:
                    try await api.deactivateProfile(
                        path: .init(name: name), query: .init(person: person), headers: .init(xLockrPIN: pin),
                        body: body
                    ).ok.body.json
                case .toggle:
                    try await api.toggleProfile(
                        path: .init(name: name), query: .init(person: person), headers: .init(xLockrPIN: pin),
                        body: body
                    ).ok.body.json
                }
            }
        case .importSettings, .issueChallenges, .answerChallenge, .passSpokenSentence, .beginTypedFallback, .setPin:
            nil
        }
    }

    private static func minutes(_ duration: Duration) -> Int { Int(duration.components.seconds / 60) }

    /// The request body that asks for `change`.
    private static func filterChangeRequest(
        _ change: FilterChange, phrase: String?
    ) -> Components.Schemas.FilterChangeRequest {
        typealias Kind = Components.Schemas.FilterKind
        switch change {
        case .add(let entry):
            return .init(
                change: .add, kind: Kind(rawValue: entry.kind.rawValue), value: entry.value, comment: entry.comment,
                phrase: phrase)
        case .remove(let kind, let value):
            return .init(change: .remove, kind: Kind(rawValue: kind.rawValue), value: value, phrase: phrase)
        case .safeSearch(let wanted):
            return .init(
                change: .safeSearch, safeSearch: wanted.searchEngines,
                youtube: wanted.youtube.flatMap { .init(rawValue: $0.rawValue) }, phrase: phrase)
        }
    }
}

/// `text` as one segment of a URL path or a query's value: every character but unreserved ones
/// percent-encoded, so an id such as `../status` cannot reach another endpoint.
public func pathSegment(_ text: String) -> String { PlainText.percentEncoded(text) }
