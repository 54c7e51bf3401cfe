import Foundation
import OpenAPIRuntime

/// The control API's JSON coders. The bodies are `LockrAPI`'s, generated from docs/openapi.yaml with
/// the document's snake_case keys; times are ISO 8601 in UTC, with milliseconds when there are any.
public enum ControlJSON {
    /// The generated server's and client's: the same times, keys sorted, not indented.
    static var configuration: Configuration {
        Configuration(dateTranscoder: ControlDates(), jsonEncodingOptions: [.sortedKeys])
    }

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(text(date))
        }
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = date(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "not an ISO 8601 time: \(text)")
            }
            return date
        }
        return decoder
    }

    /// `date` as ISO 8601 in UTC: "2026-11-21T14:02:00Z", "2026-11-21T14:02:00.250Z".
    static func text(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        return date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: !whole).timeZone(separator: .omitted))
    }

    static func date(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}

/// `ControlJSON`'s times for the generated code.
struct ControlDates: DateTranscoder {
    func encode(_ date: Date) throws -> String { ControlJSON.text(date) }

    func decode(_ text: String) throws -> Date {
        guard let date = ControlJSON.date(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an ISO 8601 time: \(text)"))
        }
        return date
    }
}
