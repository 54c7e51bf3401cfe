import CTOMLReader
import ConfigKit
import Foundation

/// lockr's config file is TOML: read here (toml++, through `CTOMLReader`) into the values the
/// sections read.
enum TOMLConfig {
    /// A file's values, and the line of each dotted key ("cache.size") so that a problem can name it.
    struct Document {
        let table: ConfigTable
        let lines: [String: Int]
    }

    /// `text` as TOML; a syntax error names its line.
    static func read(_ text: String, path: String) throws(ConfigErrors) -> Document {
        if let (line, problem) = TOMLPrecheck.firstProblem(in: text) {
            throw ConfigErrors(path: path, issues: [ConfigIssue(line: line, key: nil, message: problem)])
        }
        let bytes = Array(text.utf8)
        guard
            let document = bytes.withUnsafeBufferPointer({ buffer in
                buffer.withMemoryRebound(to: CChar.self) { toml_reader_parse($0.baseAddress, $0.count) }
            })
        else {
            throw ConfigErrors(path: path, issues: [ConfigIssue(line: nil, key: nil, message: "out of memory")])
        }
        defer { toml_reader_free(document) }
        var line: UInt32 = 0
        if let error = toml_reader_error(document, &line) {
            throw ConfigErrors(
                path: path, issues: [ConfigIssue(line: Int(line), key: nil, message: String(cString: error))])
        }
        var reader = Reader(
            values: UnsafeBufferPointer(start: toml_reader_values(document), count: toml_reader_count(document)))
        let table = reader.table(at: "")
        return Document(table: table, lines: reader.lines)
    }

    /// Walks the document's values in preorder.
    private struct Reader {
        let values: UnsafeBufferPointer<TOMLReaderValue>
        var index = 0
        /// Where each dotted key's value starts (an array's tables: the first's).
        var lines: [String: Int] = [:]

        /// The table at `index` (at dotted key `prefix`), its keys in file order.
        mutating func table(at prefix: String) -> ConfigTable {
            let count = values[index].count
            index += 1
            var entries: [String: ConfigValue] = [:]
            for _ in 0..<count {
                let key = Self.text(values[index].key, values[index].keyLength)
                entries[key] = value(at: prefix + key)
            }
            let order = entries.keys.sorted {
                (lines[prefix + $0] ?? 0, $0) < (lines[prefix + $1] ?? 0, $1)
            }
            return ConfigTable(entries, order: order)
        }

        /// The value at `index`, at dotted key `key`.
        mutating func value(at key: String) -> ConfigValue {
            let value = values[index]
            if value.line > 0, lines[key] == nil { lines[key] = Int(value.line) }
            switch value.kind {
            case TOMLReaderTable:
                return .table(table(at: key + "."))
            case TOMLReaderArray:
                index += 1
                return .array((0..<value.count).map { _ in self.value(at: key) })
            case TOMLReaderString:
                index += 1
                return .string(Self.text(value.text, value.textLength))
            case TOMLReaderInteger:
                index += 1
                return .integer(Int(value.integer))
            case TOMLReaderBoolean:
                index += 1
                return .bool(value.boolean)
            default:
                index += 1
                return .other
            }
        }

        private static func text(_ bytes: UnsafePointer<CChar>?, _ count: Int) -> String {
            guard let bytes else { return "" }
            return bytes.withMemoryRebound(to: UInt8.self, capacity: count) {
                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
            }
        }
    }
}
