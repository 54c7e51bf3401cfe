import Hummingbird
import LockrAPI
import LockrPolicy
import LockrSpeech
import NIOCore

/// The gate's routes: what it asks, puzzles issued and answered, the typed fallback.
///
/// | method | path | body | answer |
/// |---|---|---|---|
/// | GET | gate?app=APP | | `GateBody` |
/// | POST | gate/challenges | `ChallengeRequest` (optional) | `ChallengesResponse` |
/// | POST | gate/challenges/{id} | `AnswerRequest` | `GatePassedResponse` |
/// | POST | gate/fallback | | `FallbackResponse` |
/// | POST | gate/voice | a WAV clip (`audio/wav`) | `GatePassedResponse` |
///
/// A clip is heard on the speech pool's threads: 415 for what is no PCM WAV, 413 over 8 MiB, 422
/// silence, noise or over 20 s, 429 one clip per person at a time, 503 no recogniser; the sentence
/// not heard is 403 `wrong_phrase` with `heard` (a miss).
///
/// A wrong answer is 403 `wrong_answer` (a miss, with the sentence's cooldowns); an answer that is
/// no number or move 400 `unreadable_answer` (nothing counted); a puzzle answered, withdrawn or
/// expired 410 `challenge_closed`.
extension ControlRouter {
    /// The largest clip taken: 20 s of 48 kHz stereo float is 7.7 MB.
    static let largestClip = 8 * 1024 * 1024
    static let clipTypes = ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"]

    static func addGateRoutes(
        to api: RouterGroup<ControlRequestContext>, policy: some PolicyAccess, speech: SpeechPool?
    ) {
        api.post("gate/voice") { request, context in
            try await respond {
                try await hearSentence(in: request, policy: policy, speech: speech) {
                    try person(request, context, policy)
                }
            }
        }
        api.get("gate") { request, context in
            try await respond {
                let app = request.uri.queryParameters["app"].map(String.init)
                return gateBody(policy.view(of: try person(request, context, policy)), app: app)
            }
        }
        api.post("gate/challenges") { request, context in
            try await respond {
                let body = try await decode(
                    Components.Schemas.ChallengeRequest.self, from: request,
                    emptyIs: Components.Schemas.ChallengeRequest(app: nil))
                let issued = try policy.perform(
                    .issueChallenges(app: body.app, seed: UInt64.random(in: .min ... .max)),
                    for: try person(request, context, policy)
                ).expecting(\.challenges)
                let view = issued.view
                return Components.Schemas.ChallengesResponse(
                    challenges: issued.result.map {
                        Components.Schemas.ChallengeBody($0, now: view.now, calendar: view.calendar)
                    })
            }
        }
        api.post("gate/challenges/:id") { request, context in
            try await respond {
                let id = try context.parameters.require("id")
                let body = try await decode(Components.Schemas.AnswerRequest.self, from: request)
                guard body.answer.count <= 64 else {
                    throw Components.Schemas.ErrorBody(error: "an answer is at most 64 characters", code: .badRequest)
                }
                let answered = try policy.perform(
                    .answerChallenge(id: id, answer: body.answer), for: try person(request, context, policy))
                return Components.Schemas.GatePassedResponse(gate: gateBody(answered.view, app: nil))
            }
        }
        api.post("gate/fallback") { request, context in
            try await respond {
                let begun = try policy.perform(.beginTypedFallback, for: try person(request, context, policy))
                    .expecting(\.typedFrom)
                let (now, calendar) = (begun.view.now, begun.view.calendar)
                let wait = Double(max(.zero, begun.result - now).milliseconds) / policy.timeScale
                return Components.Schemas.FallbackResponse(
                    typedFrom: Components.Schemas.TimeBody(begun.result, now: now, calendar: calendar),
                    waitMilliseconds: Int64(wait.rounded(.up)))
            }
        }
    }

    /// Hears the sentence in `request`'s WAV clip and takes it for the gate of the person that
    /// `person` names (asked once the clip is read). Throws what `respond` answers: 415, 413, 422,
    /// 429, 503 for the clip, `ControlFailure` for the gate.
    public static func hearSentence(
        in request: Request, policy: some PolicyAccess, speech: SpeechPool?,
        person: () throws -> String
    ) async throws -> Components.Schemas.GatePassedResponse {
        let type =
            request.headers[.contentType]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? "none"
        guard clipTypes.contains(type) else {
            throw HTTPFailure(
                status: 415, error: "send the clip as audio/wav (PCM WAV), not \(type)", code: .unsupportedAudio)
        }
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: largestClip) } catch {
            throw HTTPFailure(status: 413, error: "a clip is at most 8 MiB (20 s)", code: .clipTooLarge)
        }
        let person = try person()
        let view = policy.view(of: person)
        guard let sentence = view.engine.gateRequirement(for: nil, at: view.now).sentence else {
            throw ControlFailure.refused(.nothingToDo("the gate asks no sentence"))
        }
        guard let speech else {
            throw HTTPFailure(status: 503, error: "this lockr hears no speech", code: .noRecogniser)
        }
        let heard: Heard
        do throws(HearingRefusal) {
            heard = try await speech.hear(
                Array(body.readableBytesView), for: person, expecting: PhraseGate.spokenForm(of: sentence))
        } catch {
            throw HTTPFailure(error)
        }
        let passed = try policy.perform(
            .passSpokenSentence(Spoken(transcript: heard.transcript, length: heard.length)), for: person)
        return Components.Schemas.GatePassedResponse(
            gate: gateBody(passed.view, app: nil), heard: heard.transcript,
            recognitionMilliseconds: heard.recognition.milliseconds)
    }

    static func gateBody(_ view: PolicyView, app: String?) -> Components.Schemas.GateBody {
        Components.Schemas.GateBody(
            view.engine.gateRequirement(for: app, at: view.now),
            puzzleKinds: view.engine.settings.gate.puzzles.kinds.map(\.rawValue), now: view.now, calendar: view.calendar
        )
    }
}
