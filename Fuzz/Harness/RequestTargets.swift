import Foundation
import Hummingbird
import LockrAPI
import LockrControl

@testable import LockrWeb

/// What the control API and the web pages take from a request's body.
enum RequestTargets {
    /// Every body the control API decodes (the generated types, read with the API's coders), in
    /// the order the first byte picks them.
    static let bodies: [@Sendable (Data) -> Void] = [
        decode(Components.Schemas.AppRequest.self), decode(Components.Schemas.UnlockRequest.self),
        decode(Components.Schemas.ModeRequest.self), decode(Components.Schemas.PinRequest.self),
        decode(Components.Schemas.PhraseRequest.self), decode(Components.Schemas.EmergencyRequest.self),
        decode(Components.Schemas.ChallengeRequest.self), decode(Components.Schemas.AnswerRequest.self),
        decode(Components.Schemas.ScheduleRequest.self), decode(Components.Schemas.ProfileRequest.self),
        decode(Components.Schemas.ProfileSwitchRequest.self), decode(Components.Schemas.ListUpdateRequest.self),
        { data in _ = try? Components.Schemas.ConfigurationDocument.read(data) },
        { data in
            // Decoded, then checked as the API checks it (a rule parsed, a URL read).
            guard let body = try? ControlJSON.decoder().decode(Components.Schemas.FilterChangeRequest.self, from: data)
            else { return }
            _ = try? ControlRouter.filterChange(body)
        },
        { data in
            guard
                let body = try? ControlJSON.decoder().decode(
                    Components.Schemas.LocalRecordChangeRequest.self, from: data)
            else { return }
            _ = try? ControlRouter.localRecordChange(body)
        },
    ]

    /// Every form the web pages decode, in the order the first byte picks them.
    static let forms: [@Sendable (String) -> Void] = [
        form(PinForm.self), form(DeviceForm.self), form(ModeForm.self), form(ProfileForm.self),
        form(ScheduleForm.self), form(PhraseForm.self), form(OpenForm.self), form(AnswerForm.self),
        form(TokenOnlyForm.self), form(HoldForm.self), form(FilterForm.self), form(EntryForm.self),
        form(SafeSearchForm.self), form(ListForm.self), form(RefreshForm.self), form(RecordForm.self),
        form(RecordRemovalForm.self),
    ]

    static func controlBody(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        bodies[Int(first) % bodies.count](Data(bytes.dropFirst()))
    }

    static func webForm(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        forms[Int(first) % forms.count](String(decoding: bytes.dropFirst(), as: UTF8.self))
    }

    private static func decode<Body: Decodable>(_ type: Body.Type) -> @Sendable (Data) -> Void {
        { data in _ = try? ControlJSON.decoder().decode(Body.self, from: data) }
    }

    private static func form<Form: Decodable>(_ type: Form.Type) -> @Sendable (String) -> Void {
        { text in _ = try? URLEncodedFormDecoder().decode(Form.self, from: text) }
    }
}
