/// A value written as one word of a fixed set (a mode, a gate step, a puzzle's kind): read from
/// JSON, a word not in the set is refused naming the words that are (`NotAChoice`, the
/// `DecodingError`'s underlying error), where Swift's own reading says only that it is invalid.
public protocol ChoiceOfWords: RawRepresentable, CaseIterable, Decodable where RawValue == String {}

extension ChoiceOfWords {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let word = try container.decode(String.self)
        guard let value = Self(rawValue: word) else {
            let refusal = NotAChoice(word: word, choices: Self.allCases.map(\.rawValue))
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: refusal.description, underlyingError: refusal)
            )
        }
        self = value
    }
}

/// A word that is none of the choices: "'hour' is not one of time, hourly, extreme".
public struct NotAChoice: Error, Sendable, Equatable, CustomStringConvertible {
    public let word: String
    public let choices: [String]

    public var description: String { "'\(word)' is not one of \(choices.joined(separator: ", "))" }
}
