import Hummingbird
import LockrControl
import LockrPolicy
import LockrSpeech

/// What the page's script sends, answered in the API's JSON for the caller's person only:
///
/// | method | path | body | answer |
/// |---|---|---|---|
/// | POST | /emergency/hold | form: csrf | `HoldResponse`: the hold begins |
/// | POST | /emergency | form: csrf, hold | `WindowBody`: let go; held long enough, the window |
/// | POST | /gate/voice | a WAV clip, the token in `X-Lockr-Form` | `GatePassedResponse` |
///
/// The server times the hold: a hold let go before its time grants nothing. Without the token:
/// 403 `bad_form_token`.
extension WebRouter {
    static func addHeldRoutes(to router: Router<ControlRequestContext>, policy: some PolicyAccess, speech: SpeechPool?) {
        router.post("/emergency/hold") { request, context in
            guard try await FormToken.checked(TokenOnlyForm.self, from: request) != nil else { return refusedScript() }
            return try await ControlRouter.respond {
                try ControlRouter.beginEmergency(for: caller(context, policy), policy: policy)
            }
        }
        router.post("/emergency") { request, context in
            guard let form = try await FormToken.checked(HoldForm.self, from: request) else { return refusedScript() }
            return try await ControlRouter.respond {
                try ControlRouter.completeEmergency(hold: form.hold, for: caller(context, policy), policy: policy)
            }
        }
        router.post("/gate/voice") { request, context in
            guard FormToken.inHeader(of: request) else { return refusedScript() }
            return try await ControlRouter.respond {
                try await ControlRouter.hearSentence(in: request, policy: policy, speech: speech) {
                    caller(context, policy)
                }
            }
        }
    }

    private static func refusedScript() -> Response {
        ControlRouter.json(
            ErrorBody(error: "no valid form token: open the page again", code: "bad_form_token"), status: 403)
    }
}

/// `POST /emergency`.
struct HoldForm: Decodable, FormWithToken {
    let hold: UInt64
    let csrf: String
}
