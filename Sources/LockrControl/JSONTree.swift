import FoundationEssentials

/// A JSON document read without a schema, to say where a body that did not decode went wrong: read
/// with FoundationEssentials' decoder, not `JSONSerialization` (whose use links ICU into a static
/// program).
enum JSONTree: Decodable {
    case object([String: JSONTree])
    case array([JSONTree])
    case number(Double)
    case string(String)
    case bool(Bool)
    case null

    /// The document in `data`, a top-level scalar included; nil when it is not JSON.
    static func read(_ data: Data) -> JSONTree? { try? JSONDecoder().decode(JSONTree.self, from: data) }

    init(from decoder: any Decoder) throws {
        if var items = try? decoder.unkeyedContainer() {
            var array: [JSONTree] = []
            while !items.isAtEnd { array.append(try items.decode(JSONTree.self)) }
            self = .array(array)
        } else if let members = try? decoder.container(keyedBy: Key.self) {
            var object: [String: JSONTree] = [:]
            for key in members.allKeys { object[key.stringValue] = try members.decode(JSONTree.self, forKey: key) }
            self = .object(object)
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                self = .null
            } else if let bool = try? value.decode(Bool.self) {
                self = .bool(bool)
            } else if let number = try? value.decode(Double.self) {
                self = .number(number)
            } else {
                self = .string(try value.decode(String.self))
            }
        }
    }

    /// The member `name` of an object.
    subscript(name: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
