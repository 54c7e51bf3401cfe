import Hummingbird
import LockrPolicy

/// The gate's routes: what it asks, puzzles issued and answered, the typed fallback.
///
/// | method | path | body | answer |
/// |---|---|---|---|
/// | GET | gate?app=APP | | `GateBody` |
/// | POST | gate/challenges | `ChallengeRequest` (optional) | `ChallengesResponse` |
/// | POST | gate/challenges/{id} | `AnswerRequest` | `GatePassedResponse` |
/// | POST | gate/fallback | | `FallbackResponse` |
///
/// A wrong answer is 403 `wrong_answer` (a miss, with the sentence's cooldowns); an answer that is
/// no number or move 400 `unreadable_answer` (nothing counted); a puzzle answered, withdrawn or
/// expired 410 `challenge_closed`.
extension ControlRouter {
    static func addGateRoutes(to api: RouterGroup<ControlRequestContext>, policy: some PolicyAccess) {
        api.get("gate") { request, context in
            try await respond {
                let app = request.uri.queryParameters["app"].map(String.init)
                return gateBody(policy.view(of: try person(request, context, policy)), app: app)
            }
        }
        api.post("gate/challenges") { request, context in
            try await respond {
                let body = try await decode(ChallengeRequest.self, from: request, emptyIs: ChallengeRequest(app: nil))
                let issued = try policy.perform(
                    Commands.IssueChallenges(for: body.app, seed: UInt64.random(in: .min ... .max)),
                    for: try person(request, context, policy))
                let view = issued.view
                return ChallengesResponse(
                    challenges: issued.result.map { ChallengeBody($0, now: view.now, calendar: view.calendar) })
            }
        }
        api.post("gate/challenges/:id") { request, context in
            try await respond {
                let id = try context.parameters.require("id")
                let body = try await decode(AnswerRequest.self, from: request)
                guard body.answer.count <= 64 else {
                    throw ErrorBody(error: "an answer is at most 64 characters", code: "bad_request")
                }
                let answered = try policy.perform(
                    Commands.AnswerChallenge(id, answer: body.answer), for: try person(request, context, policy))
                return GatePassedResponse(gate: gateBody(answered.view, app: nil))
            }
        }
        api.post("gate/fallback") { request, context in
            try await respond {
                let begun = try policy.perform(Commands.BeginTypedFallback(), for: try person(request, context, policy))
                let (now, calendar) = (begun.view.now, begun.view.calendar)
                let wait = Double(max(.zero, begun.result - now).milliseconds) / policy.timeScale
                return FallbackResponse(
                    typedFrom: TimeBody(begun.result, now: now, calendar: calendar),
                    waitMilliseconds: Int64(wait.rounded(.up)))
            }
        }
    }

    static func gateBody(_ view: PolicyView, app: String?) -> GateBody {
        GateBody(
            view.engine.gateRequirement(for: app, at: view.now),
            puzzleKinds: view.engine.settings.gate.puzzles.kinds.map(\.rawValue), now: view.now, calendar: view.calendar)
    }
}
