import Foundation
import HTTPTypes
import Hummingbird
import PlainText

/// Why a form was not taken.
enum FormRefusal: Error {
    /// Its token is missing or not this browser's: sent from another site, or from a page older
    /// than the browser's cookie (403).
    case forged
    /// A field is missing or does not read, or the form is over 16 KiB (400).
    case unreadable
}

/// A form that carries the browser's form token.
protocol FormWithToken {
    var csrf: String { get }
}

/// The pages' defence against a form sent from another site: a random token kept in the browser in
/// an HttpOnly, SameSite=Strict cookie and written into every form; a POST whose form and cookie
/// do not carry the same token is refused (403). Another site can neither read the token nor make
/// the browser send the cookie with its request.
struct FormToken {
    static let cookieName = "lockr_form"
    let value: String
    /// Whether the browser had none, so that the answer must give it the cookie.
    let isNew: Bool

    /// The token the request's cookie holds, or a new one.
    init(_ request: Request) {
        if let held = request.cookies[Self.cookieName]?.value, held.count == 64, held.allSatisfy(\.isHexDigit) {
            value = held
            isNew = false
        } else {
            value = Self.randomHex()
            isNew = true
        }
    }

    /// 32 random bytes from the system's generator, as 64 hex digits.
    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        return PlainText.hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    var cookie: Cookie { Cookie(name: Self.cookieName, value: value, path: "/", httpOnly: true, sameSite: .strict) }

    /// The form `request` sends, when it carries the cookie's token (else `.forged`) and reads as
    /// `Form` (else `.unreadable`).
    static func checked<Form: Decodable & FormWithToken>(
        _ type: Form.Type, from request: Request
    ) async throws(FormRefusal)
        -> Form
    {
        var request = request
        guard let body = try? await request.collectBody(upTo: 16 * 1024) else { throw .unreadable }
        let text = String(buffer: body)
        guard let sent = try? URLEncodedFormDecoder().decode(TokenOnlyForm.self, from: text),
            let held = request.cookies[cookieName]?.value, same(held, sent.csrf)
        else { throw .forged }
        guard let form = try? URLEncodedFormDecoder().decode(Form.self, from: text) else { throw .unreadable }
        return form
    }

    /// Whether `request` carries the cookie's token in the `X-Lockr-Form` header: for what the
    /// script sends that is no form (a recorded clip).
    static func inHeader(of request: Request) -> Bool {
        guard let held = request.cookies[cookieName]?.value,
            let sent = request.headers[HTTPField.Name("X-Lockr-Form")!]
        else { return false }
        return same(held, sent)
    }

    /// Compares in time that does not depend on where they differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (left, right) = (Array(a.utf8), Array(b.utf8))
        guard left.count == right.count, !left.isEmpty else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
