import LockrAPI
import LockrPolicy
import OpenAPIRuntime

/// The gate: what it asks, puzzles issued and answered, the typed fallback, the spoken sentence
/// (see `ControlRouter`'s gate answers for the statuses of a clip).
extension ControlAPI {
    func getGate(_ input: Operations.GetGate.Input) async throws -> Operations.GetGate.Output {
        let view = policy.view(of: try person(input.query.person))
        return .ok(.init(body: .json(ControlRouter.gateBody(view, app: input.query.app))))
    }

    func issueChallenges(_ input: Operations.IssueChallenges.Input) async throws -> Operations.IssueChallenges.Output {
        var app: String?
        if case .json(let body) = input.body { app = body.app }
        let issued = try policy.perform(
            .issueChallenges(app: app, seed: UInt64.random(in: .min ... .max)), for: try person(input.query.person)
        ).expecting(\.challenges)
        let view = issued.view
        let challenges = issued.result.map {
            Components.Schemas.ChallengeBody($0, now: view.now, calendar: view.calendar)
        }
        return .ok(.init(body: .json(.init(challenges: challenges))))
    }

    func answerChallenge(_ input: Operations.AnswerChallenge.Input) async throws -> Operations.AnswerChallenge.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        guard body.answer.count <= 64 else {
            throw Components.Schemas.ErrorBody(error: "an answer is at most 64 characters", code: .badRequest)
        }
        let answered = try policy.perform(
            .answerChallenge(id: input.path.id, answer: body.answer), for: try person(input.query.person))
        return .ok(.init(body: .json(.init(gate: ControlRouter.gateBody(answered.view, app: nil)))))
    }

    func beginTypedFallback(
        _ input: Operations.BeginTypedFallback.Input
    ) async throws -> Operations.BeginTypedFallback.Output {
        let begun = try policy.perform(.beginTypedFallback, for: try person(input.query.person)).expecting(\.typedFrom)
        let (now, calendar) = (begun.view.now, begun.view.calendar)
        let wait = Double(max(.zero, begun.result - now).milliseconds) / policy.timeScale
        return .ok(
            .init(
                body: .json(
                    .init(
                        typedFrom: .init(begun.result, now: now, calendar: calendar),
                        waitMilliseconds: Int64(wait.rounded(.up))))))
    }

    func speakSentence(_ input: Operations.SpeakSentence.Input) async throws -> Operations.SpeakSentence.Output {
        let clip: HTTPBody
        switch input.body {
        case .audioWav(let body), .audioXWav(let body), .audioWave(let body), .audioVnd_wave(let body): clip = body
        }
        let bytes: [UInt8]
        do { bytes = try await [UInt8](collecting: clip, upTo: ControlRouter.largestClip) } catch {
            throw HTTPFailure(status: 413, error: "a clip is at most 8 MiB (20 s)", code: .clipTooLarge)
        }
        let passed = try await ControlRouter.hearSentence(
            in: bytes, for: try person(input.query.person), policy: policy, speech: speech)
        return .ok(.init(body: .json(passed)))
    }
}
