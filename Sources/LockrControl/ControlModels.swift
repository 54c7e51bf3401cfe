import Foundation
import LockrPolicy

// The JSON bodies of the control API (`/api/v1/...`), one file per topic beside this one; keys are
// snake_case on the wire. Here: the error body every route answers with, and the JSON coders.

public struct ErrorBody: Codable, Sendable, Equatable, Error {
    public let error: String
    /// A stable word for scripts: unauthorized, bad_request, unknown_app, not_guarded, wrong_phrase, ...
    public let code: ErrorCode
    public let retryAfterSeconds: Int64?
    /// `phrase_required`: the sentence to type.
    public let sentence: String?
    /// A spoken sentence refused: what the recogniser heard.
    public let heard: String?

    public init(
        error: String, code: ErrorCode, retryAfterSeconds: Int64? = nil, sentence: String? = nil, heard: String? = nil
    ) {
        self.error = error
        self.code = code
        self.retryAfterSeconds = retryAfterSeconds
        self.sentence = sentence
        self.heard = heard
    }
}

/// The API's JSON coders: snake_case keys, sorted for stable output.
public enum ControlJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}
