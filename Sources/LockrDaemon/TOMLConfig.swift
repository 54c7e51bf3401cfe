import ConfigKit
import Foundation
import TOMLKit

/// lockr's config file is TOML: read here into the values the sections read.
enum TOMLConfig {
    /// `text` as TOML; a syntax error names its line.
    static func table(_ text: String, path: String) throws(ConfigErrors) -> ConfigTable {
        if let (line, problem) = TOMLPrecheck.firstProblem(in: text) {
            throw ConfigErrors(path: path, issues: [ConfigIssue(line: line, key: nil, message: problem)])
        }
        do { return value(of: try TOMLTable(string: text), at: "", lines: KeyLines(text: text)) } catch let error
            as TOMLParseError
        {
            throw ConfigErrors(
                path: path, issues: [ConfigIssue(line: error.source.begin.line, key: nil, message: error.description)])
        } catch {
            throw ConfigErrors(path: path, issues: [ConfigIssue(line: nil, key: nil, message: "\(error)")])
        }
    }

    /// `table` (at dotted key `prefix`), its keys in file order.
    private static func value(of table: TOMLTable, at prefix: String, lines: KeyLines) -> ConfigTable {
        var entries: [String: ConfigValue] = [:]
        for (key, value) in table { entries[key] = Self.value(of: value, at: prefix + key, lines: lines) }
        let order = entries.keys.sorted {
            (lines.line(of: prefix + $0) ?? 0, $0) < (lines.line(of: prefix + $1) ?? 0, $1)
        }
        return ConfigTable(entries, order: order)
    }

    private static func value(of value: TOMLValueConvertible, at key: String, lines: KeyLines) -> ConfigValue {
        if let text = value.string { return .string(text) }
        if let flag = value.bool { return .bool(flag) }
        if let number = value.int { return .integer(number) }
        if let array = value.array { return .array(array.map { Self.value(of: $0, at: key, lines: lines) }) }
        if let table = value.table { return .table(Self.value(of: table, at: key + ".", lines: lines)) }
        return .other
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
