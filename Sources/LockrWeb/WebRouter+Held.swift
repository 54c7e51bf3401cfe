import Hummingbird
import LockrAPI
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
/// 403 `bad_form_token`; a form that does not read: 400.
extension WebRouter {
    static func addHeldRoutes(to router: Router<ControlRequestContext>, policy: some PolicyAccess, speech: SpeechPool?)
    {
        router.post("/emergency/hold") { request, context in
            do throws(FormRefusal) {
                _ = try await FormToken.checked(TokenOnlyForm.self, from: request)
            } catch {
                return refusedScript(error)
            }
            return try await ControlRouter.respond {
                try ControlRouter.beginEmergency(for: caller(context, policy), policy: policy)
            }
        }
        router.post("/emergency") { request, context in
            let form: HoldForm
            do throws(FormRefusal) {
                form = try await FormToken.checked(HoldForm.self, from: request)
            } catch {
                return refusedScript(error)
            }
            return try await ControlRouter.respond {
                try ControlRouter.completeEmergency(hold: form.hold, for: caller(context, policy), policy: policy)
            }
        }
        router.post("/gate/voice") { request, context in
            guard FormToken.inHeader(of: request) else { return refusedScript(.forged) }
            return try await ControlRouter.respond {
                try await ControlRouter.hearSentence(in: request, policy: policy, speech: speech) {
                    caller(context, policy)
                }
            }
        }
    }

    private static func refusedScript(_ refusal: FormRefusal) -> Response {
        switch refusal {
        case .forged:
            ControlRouter.json(
                Components.Schemas.ErrorBody(error: "no valid form token: open the page again", code: .badFormToken),
                status: 403)
        case .unreadable:
            ControlRouter.json(
                Components.Schemas.ErrorBody(error: "the form was incomplete or could not be read", code: .badRequest),
                status: 400)
        }
    }
}

/// `POST /emergency`.
struct HoldForm: Decodable, FormWithToken {
    let hold: UInt64
    let csrf: String
}
