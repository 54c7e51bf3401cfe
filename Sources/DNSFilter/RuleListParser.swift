/// How the rules of a list are meant: a blocklist may hold `@@` exceptions; an allowlist only allows.
public enum ListRole: Sendable {
    case block
    case allow
    /// Blocks only: its `@@` exceptions are skipped (a list added as one that blocks must not free
    /// names, as an allow list would, without waiting as freeing names does).
    case blockOnly
}

/// A line of a list that was not taken, and why.
public struct ListIssue: Sendable, Equatable, CustomStringConvertible {
    public let line: Int
    public let text: String
    public let reason: String

    public var description: String { "line \(line): \(reason): \(text)" }
}

/// What reading one list produced.
public struct ListReport: Sendable {
    public var rules = 0
    /// The first issues found (at most `RuleListParser.keptIssues`).
    public var issues: [ListIssue] = []
    public var issueCount = 0
}

/// Reads rule lists in the formats people have, one rule per line:
///
/// | line | meaning |
/// |---|---|
/// | `example.com` | block example.com and every subdomain |
/// | `0.0.0.0 example.com` / `127.0.0.1 a.com b.com` | hosts file: the same for each name |
/// | `\|\|example.com^` | adblock: the same |
/// | `@@\|\|example.com^` | exception: allow example.com and its subdomains, whatever blocks them |
/// | `\|example.com^` | adblock: block example.com only, not its subdomains |
/// | `*.example.com` | block the subdomains only |
/// | `/^ads?[0-9]*\./` | POSIX extended regex over the name (lower case, no final dot) |
/// | `# ...`, `! ...`, `[Adblock Plus 2.0]` | comment |
///
/// Adblock rules with modifiers other than `$important` are reported and skipped: they do not mean
/// a plain DNS block.
public enum RuleListParser {
    public static let keptIssues = 20

    /// Why `rule` is not one rule of a list that only blocks or only allows (a comment, several
    /// lines, an `@@` exception, a line it skips), or nil when it is.
    public static func problem(inRule rule: String) -> String? {
        guard !rule.contains(where: \.isNewline) else { return "one rule, on one line" }
        var builder = RuleSetBuilder()
        let report = parse(Array(rule.utf8), role: .blockOnly, source: builder.addSource("entry"), into: &builder)
        if let issue = report.issues.first { return issue.reason }
        return report.rules == 1 ? nil : "not a rule (a name, |name^, *.name or /regex/)"
    }

    /// Parses `bytes`, adding its rules to `builder` under `source`.
    public static func parse(
        _ bytes: [UInt8],
        role: ListRole,
        source: Int,
        into builder: inout RuleSetBuilder
    ) -> ListReport {
        var report = ListReport()
        builder.blocked.reserve(names: role == .allow ? 0 : bytes.count / 20)
        bytes.withUnsafeBufferPointer { all in
            var lineNumber = 0
            var start = 0
            while start < all.count {
                var end = start
                while end < all.count, all[end] != UInt8(ascii: "\n") { end += 1 }
                lineNumber += 1
                let line = trimmed(UnsafeBufferPointer(rebasing: all[start..<end]))
                if !line.isEmpty {
                    let outcome = parseLine(line, role: role, source: source, into: &builder)
                    switch outcome {
                    case .rules(let count): report.rules += count
                    case .problem(let reason):
                        report.issueCount += 1
                        if report.issues.count < keptIssues {
                            report.issues.append(
                                ListIssue(line: lineNumber, text: String(decoding: line, as: UTF8.self), reason: reason)
                            )
                        }
                    }
                }
                start = end + 1
            }
        }
        return report
    }

    private enum LineOutcome {
        case rules(Int)
        case problem(String)
    }

    private static func parseLine(
        _ line: UnsafeBufferPointer<UInt8>,
        role: ListRole,
        source: Int,
        into builder: inout RuleSetBuilder
    ) -> LineOutcome {
        switch line[0] {
        case UInt8(ascii: "#"), UInt8(ascii: "!"), UInt8(ascii: "["):
            return .rules(0)
        case UInt8(ascii: "@") where line.starts(with: "@@".utf8):
            guard role != .blockOnly else { return .problem("an exception in a list that only blocks, skipped") }
            return parseRule(UnsafeBufferPointer(rebasing: line[2...]), allow: true, source: source, into: &builder)
        default:
            return parseRule(line, allow: role == .allow, source: source, into: &builder)
        }
    }

    private static func parseRule(
        _ rule: UnsafeBufferPointer<UInt8>,
        allow: Bool,
        source: Int,
        into builder: inout RuleSetBuilder
    ) -> LineOutcome {
        guard !rule.isEmpty else { return .problem("empty rule") }
        if rule.count > 2, rule.first == UInt8(ascii: "/"), rule.last == UInt8(ascii: "/") {
            return addRegex(
                String(decoding: rule[1..<rule.count - 1], as: UTF8.self), allow: allow, source: source,
                into: &builder)
        }
        if rule.starts(with: "||".utf8) {
            return parseAdblock(
                UnsafeBufferPointer(rebasing: rule[2...]), coverage: .nameAndSubdomains, allow: allow, source: source,
                into: &builder)
        }
        if rule.first == UInt8(ascii: "|") {
            return parseAdblock(
                UnsafeBufferPointer(rebasing: rule[1...]), coverage: .name, allow: allow, source: source,
                into: &builder)
        }
        if rule.starts(with: "*.".utf8) {
            return addName(
                UnsafeBufferPointer(rebasing: rule[2...]), coverage: .subdomains, allow: allow,
                source: source, into: &builder)
        }
        if let space = rule.firstIndex(where: isBlank) {
            return parseHostsLine(rule, firstBlank: space, allow: allow, source: source, into: &builder)
        }
        return addName(rule, coverage: .nameAndSubdomains, allow: allow, source: source, into: &builder)
    }

    /// `||name^`, `||name^|`, `||name^$important`, `||name` (the name and its subdomains) and the
    /// same with one `|` (the name only); `body` follows the bars.
    private static func parseAdblock(
        _ body: UnsafeBufferPointer<UInt8>,
        coverage: Coverage,
        allow: Bool,
        source: Int,
        into builder: inout RuleSetBuilder
    ) -> LineOutcome {
        var nameEnd = body.count
        if let dollar = body.firstIndex(of: UInt8(ascii: "$")) {
            let modifiers = String(decoding: body[(dollar + 1)...], as: UTF8.self)
            guard modifiers.split(separator: ",").allSatisfy({ $0 == "important" }) else {
                return .problem("unsupported adblock modifier $\(modifiers)")
            }
            nameEnd = dollar
        }
        var name = UnsafeBufferPointer(rebasing: body[..<nameEnd])
        if name.last == UInt8(ascii: "|") { name = UnsafeBufferPointer(rebasing: name.dropLast()) }
        if name.last == UInt8(ascii: "^") { name = UnsafeBufferPointer(rebasing: name.dropLast()) }
        return addName(name, coverage: coverage, allow: allow, source: source, into: &builder)
    }

    /// `ADDRESS name [name ...] [# comment]`: every name is blocked whatever the address says.
    private static func parseHostsLine(
        _ line: UnsafeBufferPointer<UInt8>,
        firstBlank: Int,
        allow: Bool,
        source: Int,
        into builder: inout RuleSetBuilder
    ) -> LineOutcome {
        let address = line[..<firstBlank]
        let isIPv4 = address.allSatisfy {
            $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
        }
        let isIPv6 = address.contains(UInt8(ascii: ":")) && address.allSatisfy(isAddressByte)
        guard isIPv4 || isIPv6 else {
            if let hash = line.firstIndex(of: UInt8(ascii: "#")) {  // "example.com # comment"
                let name = trimmed(UnsafeBufferPointer(rebasing: line[..<hash]))
                return addName(name, coverage: .nameAndSubdomains, allow: allow, source: source, into: &builder)
            }
            return .problem("not a domain, hosts entry or adblock rule")
        }
        var added = 0
        var cursor = firstBlank
        while cursor < line.count {
            while cursor < line.count, isBlank(line[cursor]) { cursor += 1 }
            if cursor == line.count || line[cursor] == UInt8(ascii: "#") { break }
            var end = cursor
            while end < line.count, !isBlank(line[end]) { end += 1 }
            let name = UnsafeBufferPointer(rebasing: line[cursor..<end])
            cursor = end
            if isLocalHostName(name) { continue }
            switch addName(name, coverage: .nameAndSubdomains, allow: allow, source: source, into: &builder) {
            case .rules(let count): added += count
            case .problem(let reason): return .problem(reason)
            }
        }
        return .rules(added)
    }

    private static func addName(
        _ name: UnsafeBufferPointer<UInt8>,
        coverage: Coverage,
        allow: Bool,
        source: Int,
        into builder: inout RuleSetBuilder
    ) -> LineOutcome {
        let problem =
            allow
            ? builder.allowed.add(presentation: name, coverage: coverage, source: source)
            : builder.blocked.add(presentation: name, coverage: coverage, source: source)
        guard let problem else {
            if !allow { builder.keep(DomainRule(name: name, coverage: coverage)) }
            return .rules(1)
        }
        switch problem {
        case .empty, .emptyLabel: return .problem("empty name or label")
        case .labelTooLong: return .problem("label longer than 63 bytes")
        case .nameTooLong: return .problem("name longer than 253 bytes")
        case .badCharacter(let byte) where byte >= 0x80:
            return .problem("non-ASCII name (write internationalised names in punycode, xn--...)")
        case .badCharacter(let byte):
            return .problem("character '\(String(decoding: [byte], as: UTF8.self))' is not allowed in a domain")
        }
    }

    private static func addRegex(
        _ pattern: String, allow: Bool, source: Int, into builder: inout RuleSetBuilder
    )
        -> LineOutcome
    {
        do {
            let regex = try PosixRegex(pattern)
            guard builder.regexStates + regex.states <= RuleSetBuilder.regexStateBudget else {
                return .problem(
                    "left out: the lists' regular expressions together would take more than about 40 MB to "
                        + "compile")
            }
            builder.regexStates += regex.states
            if allow {
                builder.allowRegexes.append((regex, source))
            } else {
                builder.blockRegexes.append((regex, source))
                builder.keep(.regex(pattern))
            }
            return .rules(1)
        } catch {
            return .problem("invalid regular expression (\(error.message))")
        }
    }

    private static let localHostNames: Set<String> = [
        "localhost", "localhost.localdomain", "local", "broadcasthost", "ip6-localhost", "ip6-loopback",
        "ip6-localnet", "ip6-mcastprefix", "ip6-allnodes", "ip6-allrouters", "ip6-allhosts", "0.0.0.0",
    ]

    private static func isLocalHostName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        name.count <= 22 && localHostNames.contains(String(decoding: name, as: UTF8.self).lowercased())
    }

    @inline(__always)
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func isAddressByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }

    private static func trimmed(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = line.count
        while start < end, isBlank(line[start]) || line[start] == UInt8(ascii: "\r") { start += 1 }
        while end > start, isBlank(line[end - 1]) || line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return UnsafeBufferPointer(rebasing: line[start..<end])
    }
}
