import Foundation
import Synchronization
import Yams

/// An OpenAPI 3 description read from YAML (split over several files, as Pi-hole's is), used to check
/// every request a fake backend receives: path, method, parameters and the JSON body's schema.
///
/// The schema check covers what these specs use: `$ref` (within and across files), `allOf`, `oneOf`,
/// `anyOf`, `type`, `nullable`, `enum`, `properties`, `required`, `items`, `additionalProperties`
/// and `readOnly` (a read-only property in a request is a violation).
public final class OpenAPISpec: Sendable {
    /// The parsed files: plain YAML values, never changed after `init`.
    nonisolated(unsafe) private let documents: [String: [String: Any]]
    /// Every path template of the root file, split, with its path item and the file it lives in.
    nonisolated(unsafe) private let templates: [(parts: [String], item: [String: Any], file: String)]
    private let root: String
    /// Path prefix the server adds (`/api` for Pi-hole, `/control` for AdGuard Home).
    public let prefix: String

    /// Every spec read so far, by directory, file and prefix: parsing Pi-hole's files takes a CPU
    /// second in a debug build, and the fakes of many tests running at once share one copy.
    private static let loaded = Mutex<[String: OpenAPISpec]>([:])

    /// The spec in `file` of `directory`, read once per process.
    public static func shared(directory: String, file: String, prefix: String) throws -> OpenAPISpec {
        let key = "\(directory)/\(file) \(prefix)"
        return try loaded.withLock { specs in
            if let spec = specs[key] { return spec }
            let spec = try OpenAPISpec(directory: directory, file: file, prefix: prefix)
            specs[key] = spec
            return spec
        }
    }

    /// Reads `file` and every file it refers to, from `directory`.
    private init(directory: String, file: String, prefix: String) throws {
        let directoryURL = URL(fileURLWithPath: directory)
        self.prefix = prefix
        root = file
        var documents: [String: [String: Any]] = [:]
        var queue = [file]
        while let next = queue.popLast() {
            guard documents[next] == nil else { continue }
            let text = try String(contentsOf: directoryURL.appendingPathComponent(next), encoding: .utf8)
            guard let document = try Yams.load(yaml: text) as? [String: Any] else {
                throw SpecError("\(next) is not a YAML mapping")
            }
            documents[next] = document
            for reference in Self.references(in: document) {
                let fileName = String(reference.prefix { $0 != "#" })
                if !fileName.isEmpty, documents[fileName] == nil { queue.append(fileName) }
            }
        }
        self.documents = documents
        var templates: [(parts: [String], item: [String: Any], file: String)] = []
        for (template, raw) in documents[file]?["paths"] as? [String: Any] ?? [:] {
            guard let (item, itemFile) = Self.resolve(raw, in: file, documents: documents) else { continue }
            let parts = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            templates.append((parts, item, itemFile))
        }
        self.templates = templates
    }

    /// Problems with one request; empty when it is what the spec allows.
    public func check(
        method: String, path: String, query: [String: String], contentType: String?, body: Data
    ) -> [String] {
        let what = "\(method) \(path)"
        guard path.hasPrefix(prefix) else { return ["\(what): not under \(prefix)"] }
        let relative = String(path.dropFirst(prefix.count))
        guard let (item, itemFile, parameters) = match(relative, method: method.lowercased()) else {
            return ["\(what): no such path and method in the spec"]
        }
        guard let operation = item[method.lowercased()] as? [String: Any] else {
            return ["\(what): method not in the spec"]
        }
        var problems: [String] = []
        let declared = ((item["parameters"] as? [Any]) ?? []) + ((operation["parameters"] as? [Any]) ?? [])
        var known: Set<String> = []
        for raw in declared {
            guard let (parameter, _) = resolve(raw, in: itemFile) as ([String: Any], String)? else { continue }
            let name = parameter["name"] as? String ?? ""
            let location = parameter["in"] as? String ?? ""
            let schema = parameter["schema"]
            switch location {
            case "path":
                if let value = parameters[name], let schema {
                    problems += validate(text: value, schema: schema, file: itemFile, at: "\(what) path {\(name)}")
                }
            case "query":
                known.insert(name)
                if let value = query[name], let schema {
                    problems += validate(text: value, schema: schema, file: itemFile, at: "\(what) ?\(name)")
                } else if parameter["required"] as? Bool == true, query[name] == nil {
                    problems.append("\(what): required query parameter \(name) missing")
                }
            default: break
            }
        }
        for name in query.keys where !known.contains(name) && !queryKeys().contains(name) {
            problems.append("\(what): query parameter \(name) is not in the spec")
        }
        let requestBody = operation["requestBody"].flatMap { resolve($0, in: itemFile) as ([String: Any], String)? }
        if let (requestBody, bodyFile) = requestBody {
            let content = requestBody["content"] as? [String: Any] ?? [:]
            if body.isEmpty {
                if requestBody["required"] as? Bool == true { problems.append("\(what): body required") }
            } else if let json = content["application/json"] as? [String: Any] {
                if contentType?.hasPrefix("application/json") != true {
                    problems.append("\(what): JSON body without Content-Type: application/json")
                }
                if let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
                    if let schema = json["schema"] {
                        problems += validate(value, schema: schema, file: bodyFile, at: "\(what) body", request: true)
                    }
                } else {
                    problems.append("\(what): body is not JSON")
                }
            }
        } else if !body.isEmpty {
            problems.append("\(what): the spec has no request body here")
        }
        return problems
    }

    /// Problems with a reply the fake sends, for the statuses the spec describes with a JSON schema.
    public func checkReply(method: String, path: String, status: Int, body: Data) -> [String] {
        let what = "\(method) \(path) -> \(status)"
        let relative = String(path.dropFirst(prefix.count))
        guard let (item, itemFile, _) = match(relative, method: method.lowercased()),
            let operation = item[method.lowercased()] as? [String: Any],
            let responses = operation["responses"] as? [String: Any]
        else { return [] }
        guard let raw = responses[String(status)] ?? responses["\(status)"] else {
            return ["\(what): status not in the spec"]
        }
        guard let (response, file) = resolve(raw, in: itemFile) as ([String: Any], String)?,
            let content = response["content"] as? [String: Any],
            let json = content["application/json"] as? [String: Any], let schema = json["schema"]
        else { return [] }
        guard let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return ["\(what): reply is not JSON"]
        }
        return validate(value, schema: schema, file: file, at: "\(what) reply", request: false)
    }

    // MARK: Paths

    private func match(_ path: String, method: String) -> ([String: Any], String, [String: String])? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        var best: (score: Int, item: [String: Any], file: String, parameters: [String: String])?
        for (parts, item, file) in templates where item[method] != nil {
            let description = (item[method] as? [String: Any])?["description"] as? String ?? ""
            let optionalTail = description.contains("is optional") || description.contains("are optional")
            guard
                segments.count == parts.count
                    || (optionalTail && segments.count < parts.count
                        && parts[segments.count...].allSatisfy { $0.hasPrefix("{") })
            else { continue }
            var parameters: [String: String] = [:]
            var score = 0
            var matches = true
            for (segment, part) in zip(segments, parts) {
                if part.hasPrefix("{"), part.hasSuffix("}") {
                    parameters[String(part.dropFirst().dropLast())] = segment.removingPercentEncoding ?? segment
                } else if part == segment {
                    score += 1
                } else {
                    matches = false
                    break
                }
            }
            if matches, score > best?.score ?? -1 { best = (score, item, file, parameters) }
        }
        return best.map { ($0.item, $0.file, $0.parameters) }
    }

    /// Query parameters that carry credentials (security schemes `in: query`).
    private func queryKeys() -> Set<String> {
        let schemes = ((documents[root]?["components"] as? [String: Any])?["securitySchemes"] as? [String: Any]) ?? [:]
        return Set(
            schemes.values.compactMap { scheme in
                guard let scheme = scheme as? [String: Any], scheme["in"] as? String == "query" else { return nil }
                return scheme["name"] as? String
            })
    }

    // MARK: Schemas

    private func validate(text: String, schema: Any, file: String, at place: String) -> [String] {
        guard let (schema, file) = resolve(schema, in: file) as ([String: Any], String)? else { return [] }
        let value: Any
        switch schema["type"] as? String {
        case "integer":
            guard let number = Int(text) else { return ["\(place): '\(text)' is not an integer"] }; value = number
        case "number":
            guard let number = Double(text) else { return ["\(place): '\(text)' is not a number"] }; value = number
        case "boolean":
            guard let flag = Bool(text) else { return ["\(place): '\(text)' is not a boolean"] }; value = flag
        case "array": return []
        default: value = text
        }
        return validate(value, schema: schema, file: file, at: place, request: true)
    }

    private func validate(_ value: Any, schema raw: Any, file: String, at place: String, request: Bool) -> [String] {
        guard let (schema, file) = resolve(raw, in: file) as ([String: Any], String)? else {
            return ["\(place): unresolvable schema"]
        }
        var problems: [String] = []
        if value is NSNull {
            if schema["nullable"] as? Bool == true || schema["type"] == nil { return [] }
            return ["\(place): null is not allowed"]
        }
        if let all = schema["allOf"] as? [Any] {
            for part in all { problems += validate(value, schema: part, file: file, at: place, request: request) }
        }
        for key in ["oneOf", "anyOf"] {
            guard let options = schema[key] as? [Any] else { continue }
            let passing = options.filter {
                validate(value, schema: $0, file: file, at: place, request: request).isEmpty
            }
            if passing.isEmpty || (key == "oneOf" && passing.count > 1) {
                problems.append("\(place): matches \(passing.count) of the \(key) schemas")
            }
        }
        if let type = schema["type"] as? String, !Self.has(value, type: type) {
            return problems + ["\(place): expected \(type), got \(Self.describe(value))"]
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { "\($0)" == "\(value)" }) {
            problems.append("\(place): '\(value)' is not one of \(options.map { "\($0)" })")
        }
        if let object = value as? [String: Any], !(value is [Any]) {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(place): required property \(name) missing")
            }
            for (name, member) in object {
                if let property = properties[name] {
                    if request, let (resolved, _) = resolve(property, in: file) as ([String: Any], String)?,
                        resolved["readOnly"] as? Bool == true
                    {
                        problems.append("\(place).\(name): read-only property sent")
                    }
                    problems += validate(member, schema: property, file: file, at: "\(place).\(name)", request: request)
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(place).\(name): property not allowed")
                } else if let extra = schema["additionalProperties"] as? [String: Any] {
                    problems += validate(member, schema: extra, file: file, at: "\(place).\(name)", request: request)
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] {
            for (index, element) in array.enumerated() {
                problems += validate(element, schema: items, file: file, at: "\(place)[\(index)]", request: request)
            }
        }
        return problems
    }

    private static func has(_ value: Any, type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "boolean": return (value as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false
        case "integer":
            guard let number = value as? NSNumber, !has(value, type: "boolean") else { return false }
            return number.doubleValue.rounded() == number.doubleValue
        case "number": return value is NSNumber && !has(value, type: "boolean")
        default: return true
        }
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case is String: "a string"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        default: "\(value)"
        }
    }

    // MARK: References

    /// Follows `$ref`s from `value` found in `file`; returns the mapping and the file it lives in.
    private func resolve(_ value: Any, in file: String) -> ([String: Any], String)? {
        Self.resolve(value, in: file, documents: documents)
    }

    private static func resolve(
        _ value: Any, in file: String, documents: [String: [String: Any]]
    ) -> (
        [String: Any], String
    )? {
        var current = value
        var currentFile = file
        for _ in 0..<20 {
            guard let mapping = current as? [String: Any] else { return nil }
            guard let reference = mapping["$ref"] as? String else { return (mapping, currentFile) }
            let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
            if !parts[0].isEmpty { currentFile = String(parts[0]) }
            guard var node: Any = documents[currentFile] else { return nil }
            for key in (parts.count > 1 ? parts[1] : "").split(separator: "/") {
                let key = key.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                guard let next = (node as? [String: Any])?[key] else { return nil }
                node = next
            }
            current = node
        }
        return nil
    }

    private static func references(in value: Any) -> [String] {
        switch value {
        case let mapping as [String: Any]:
            if let reference = mapping["$ref"] as? String { return [reference] }
            return mapping.values.flatMap(references)
        case let list as [Any]: return list.flatMap(references)
        default: return []
        }
    }
}

public struct SpecError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
