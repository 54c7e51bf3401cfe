import Hummingbird
import LockrAPI
import LockrPolicy
import LockrSpeech
import NIOCore
import PlainText

/// The gate's answers, as the API and the web pages give them.
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

    /// Hears the sentence in `request`'s WAV clip (the web page's) and takes it for the gate of the
    /// person that `person` names (asked once the clip is read). Throws what `respond` answers: 415,
    /// 413, 422, 429, 503 for the clip, `ControlFailure` for the gate.
    public static func hearSentence(
        in request: Request, policy: some PolicyAccess, speech: SpeechPool?,
        person: () throws -> String
    ) async throws -> Components.Schemas.GatePassedResponse {
        let type =
            request.headers[.contentType]?.split(separator: ";").first?
            .trimmed.lowercased() ?? "none"
        guard clipTypes.contains(type) else {
            throw HTTPFailure(
                status: 415, error: "send the clip as audio/wav (PCM WAV), not \(type)", code: .unsupportedAudio)
        }
        var request = request
        let clip: ByteBuffer
        do { clip = try await request.collectBody(upTo: largestClip) } catch {
            throw HTTPFailure(status: 413, error: "a clip is at most 8 MiB (20 s)", code: .clipTooLarge)
        }
        return try await hearSentence(
            in: Array(clip.readableBytesView), for: try person(), policy: policy, speech: speech)
    }

    /// Hears the sentence in the WAV `clip` and takes it for `person`'s gate.
    static func hearSentence(
        in clip: [UInt8], for person: String, policy: some PolicyAccess, speech: SpeechPool?
    ) async throws -> Components.Schemas.GatePassedResponse {
        let view = policy.view(of: person)
        guard let sentence = view.policy.gateRequirement(for: nil, at: view.now).sentence else {
            throw ControlFailure.refused(.nothingToDo("the gate asks no sentence"))
        }
        guard let speech else {
            throw HTTPFailure(status: 503, error: "this lockr hears no speech", code: .noRecogniser)
        }
        let heard: Heard
        do throws(HearingRefusal) {
            heard = try await speech.hear(clip, for: person, expecting: PhraseGate.spokenForm(of: sentence))
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
            view.policy.gateRequirement(for: app, at: view.now),
            puzzleKinds: view.policy.settings.gate.puzzles.kinds.map(\.rawValue), now: view.now, calendar: view.calendar
        )
    }
}
