import CTOMLReader
import ConfigKit
import Foundation

/// lockr's config file is TOML: read here (toml++, through `CTOMLReader`) into the values the
/// sections read.
enum TOMLConfig {
    /// `text` as TOML; a syntax error names its line.
    static func table(_ text: String, path: String) throws(ConfigErrors) -> ConfigTable {
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
            values: UnsafeBufferPointer(start: toml_reader_values(document), count: toml_reader_count(document)),
            lines: KeyLines(text: text))
        return reader.table(at: "")
    }

    /// Walks the document's values in preorder.
    private struct Reader {
        let values: UnsafeBufferPointer<TOMLReaderValue>
        let lines: KeyLines
        var index = 0

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
                (lines.line(of: prefix + $0) ?? 0, $0) < (lines.line(of: prefix + $1) ?? 0, $1)
            }
            return ConfigTable(entries, order: order)
        }

        /// The value at `index`, at dotted key `key`.
        mutating func value(at key: String) -> ConfigValue {
            let value = values[index]
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

/// Finds the line of each key in TOML text, so that issues can name it. Understands `[table]`
/// headers and `key = value` lines, which is all lockr's config uses.
struct KeyLines {
    private var lineOfKey: [String: Int] = [:]

    init(text: String) {
        var table = ""
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && !line.hasPrefix("[[") {
                table = String(line.dropFirst().prefix { $0 != "]" }).trimmingCharacters(in: .whitespaces)
                if lineOfKey[table] == nil { lineOfKey[table] = number + 1 }
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = line[..<equals].trimmingCharacters(in: .whitespaces).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
                let dotted = table.isEmpty ? key : "\(table).\(key)"
                if lineOfKey[dotted] == nil { lineOfKey[dotted] = number + 1 }
            }
        }
    }

    func line(of dottedKey: String) -> Int? { lineOfKey[dottedKey] }
}
