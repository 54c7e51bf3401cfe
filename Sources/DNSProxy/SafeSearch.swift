import DNSWire

/// Where a safe-search provider sends its names: a host answered as a CNAME (its addresses asked
/// upstream, as the providers ask), or a fixed address where the provider publishes only that.
public enum SafeSearchTarget: Sendable, Equatable {
    /// The enforcement host, lower case, in presentation and wire form.
    case host(String, wire: [UInt8])
    /// An address record (A or AAAA) answered as it is; the other address type gets NODATA.
    case address(String, type: UInt16, rdata: [UInt8])

    /// Reads an `answer:` value: an IPv4 or IPv6 address, else a host name.
    init?(_ text: String) {
        let text = text.lowercased()
        for type in [RecordType.a, RecordType.aaaa] {
            let name = type == RecordType.a ? "A" : "AAAA"
            if let record = try? LocalRecord("answer.invalid \(name) \(text)") {
                self = .address(text, type: type, rdata: record.rdata)
                return
            }
        }
        let host = text.hasSuffix(".") ? String(text.dropLast()) : text
        guard !host.isEmpty, !host.contains(" " as Character), let wire = WireName.wire(fromPresentation: host) else {
            return nil
        }
        self = .host(host, wire: wire)
    }

    /// As the query log and `lockr explain` name it.
    public var text: String {
        switch self {
        case .host(let host, _): host
        case .address(let address, _, _): address
        }
    }
}

/// One provider of the catalogue's `safe-search/` directory: the names its search (or YouTube) is
/// asked by, and what enforces its strict mode there, as the provider documents it.
public struct SafeSearchProvider: Sendable, Equatable {
    /// What switches a provider on for a person: `safe-search` (search engines) or `youtube`
    /// (YouTube's restricted mode, at a level).
    public enum Switch: String, Sendable, Equatable {
        case search, youtube
    }

    public let name: String
    public let appliesTo: Switch
    /// The answer for each level: "" for every level (`answer:`), or "strict" and "moderate"
    /// (`answer-strict:`, `answer-moderate:`).
    public let answers: [String: SafeSearchTarget]
    /// Where the provider documents it.
    public let source: String
    /// The names answered, lower case, each exactly (not its subdomains).
    public let names: [String]

    /// Reads a provider's file: header lines `# key: value` (provider, applies-to, answer or
    /// answer-LEVEL, source; a `#` line indented by more than one space continues the value before)
    /// until the first name, then one name a line (`#` lines are comments).
    public init(text: String) throws(SafeSearchFileError) {
        var header: [String: String] = [:]
        var lastKey: String?
        var names: [String] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = trimmed(raw)
            guard !line.isEmpty else { continue }
            if line.hasPrefix("#") {
                guard names.isEmpty else { continue }
                let body = line.dropFirst()
                if body.hasPrefix("  "), let key = lastKey {
                    header[key, default: ""] += " " + trimmed(body)
                } else if let colon = body.firstIndex(of: ":") {
                    let key = trimmed(body[..<colon]).lowercased()
                    header[key] = trimmed(body[body.index(after: colon)...])
                    lastKey = key
                }
                continue
            }
            let name = (line.hasSuffix(".") ? String(line.dropLast()) : line).lowercased()
            guard !name.contains(" " as Character), WireName.wire(fromPresentation: name) != nil else {
                throw SafeSearchFileError(line: index + 1, "'\(line)' is not a domain name")
            }
            names.append(name)
        }
        guard let provider = header["provider"], !provider.isEmpty else {
            throw SafeSearchFileError(line: nil, "no '# provider:' line")
        }
        guard let switchText = header["applies-to"], let appliesTo = Switch(rawValue: switchText) else {
            throw SafeSearchFileError(line: nil, "'# applies-to:' must be search or youtube")
        }
        var answers: [String: SafeSearchTarget] = [:]
        for (key, value) in header where key == "answer" || key.hasPrefix("answer-") {
            guard let target = SafeSearchTarget(value) else {
                throw SafeSearchFileError(line: nil, "'\(value)' is no host name or address (\(key))")
            }
            answers[key == "answer" ? "" : String(key.dropFirst("answer-".count))] = target
        }
        let levels = appliesTo == .youtube ? ["strict", "moderate"] : [""]
        for level in levels where answers[level] == nil && answers[""] == nil {
            throw SafeSearchFileError(line: nil, "no '# answer\(level.isEmpty ? "" : "-" + level):' line")
        }
        guard let source = header["source"], !source.isEmpty else {
            throw SafeSearchFileError(line: nil, "no '# source:' line (where the provider documents it)")
        }
        guard !names.isEmpty else { throw SafeSearchFileError(line: nil, "no names") }
        self.name = provider
        self.appliesTo = appliesTo
        self.answers = answers
        self.source = source
        self.names = names
    }

    /// What it answers at `level` ("" for search engines; "strict" or "moderate" for YouTube).
    func target(at level: String) -> SafeSearchTarget? { answers[level] ?? answers[""] }
}

/// `text` without the blanks around it.
private func trimmed(_ text: some StringProtocol) -> String {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    return String(text.drop(while: blank).reversed().drop(while: blank).reversed())
}

/// A mistake in a safe-search provider's file.
public struct SafeSearchFileError: Error, Sendable, CustomStringConvertible {
    public let line: Int?
    public let message: String

    init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { line.map { "line \($0): \(message)" } ?? message }
}

/// The names one safe-search setting answers, and with what: built from the providers for that
/// setting (search engines or not, YouTube's level), and shared by everyone who has it.
public final class SafeSearchAnswers: Sendable {
    /// The answer for one name: the target and whose it is. A class, so that a query log entry
    /// holds it by reference.
    public final class Entry: Sendable {
        public let target: SafeSearchTarget
        public let provider: String

        init(target: SafeSearchTarget, provider: String) {
            self.target = target
            self.provider = provider
        }

        /// As the query log and `lockr explain` say it: "safe search: Google, forcesafesearch.google.com".
        public var text: String { "safe search: \(provider), \(target.text)" }
    }

    /// Entries by lower-case wire name.
    private let entries: [[UInt8]: Entry]
    /// The setting, in words ("search engines, YouTube strict").
    public let setting: String

    /// The answers of `providers` with search engines on or off and YouTube at `youtube`
    /// ("strict", "moderate", or nil for off); nil when that answers nothing.
    public init?(providers: [SafeSearchProvider], searchEngines: Bool, youtube: String?) {
        var entries: [[UInt8]: Entry] = [:]
        for provider in providers {
            let level: String
            switch provider.appliesTo {
            case .search:
                guard searchEngines else { continue }
                level = ""
            case .youtube:
                guard let youtube else { continue }
                level = youtube
            }
            guard let target = provider.target(at: level) else { continue }
            let entry = Entry(target: target, provider: provider.name)
            for name in provider.names {
                guard let wire = WireName.wire(fromPresentation: name) else { continue }
                entries[wire] = entry
            }
        }
        guard !entries.isEmpty else { return nil }
        self.entries = entries
        setting = ([searchEngines ? "search engines" : nil] + [youtube.map { "YouTube \($0)" }])
            .compactMap { $0 }.joined(separator: ", ")
    }

    /// The answer for the wire name `name` (any letter case), if it is one of these names.
    func entry(for name: UnsafeBufferPointer<UInt8>) -> Entry? {
        var key = [UInt8](name)
        for index in key.indices where key[index] >= 0x41 && key[index] <= 0x5A { key[index] |= 0x20 }
        return entries[key]
    }
}

/// A safe-search name asked upstream as its provider's host: the client's query, the host, and the
/// cap on the answer's TTLs (an app's name, open for now).
public struct SafeSearchAlias: Sendable, Equatable {
    let query: DNSQuery
    let target: [UInt8]
    let ttlCap: UInt32?

    public static func == (lhs: SafeSearchAlias, rhs: SafeSearchAlias) -> Bool {
        lhs.query.packet == rhs.query.packet && lhs.target == rhs.target && lhs.ttlCap == rhs.ttlCap
    }

    /// TTL of a safe-search answer's CNAME, at most (the host's own records' TTLs apply below it).
    static let ttl: UInt32 = 3_600

    /// The client's answer, from `targetReply` (the host's answer rendered for the host's question,
    /// nil when the client asked for the CNAME itself): TC when it does not fit `udpLimit`.
    func answer(_ targetReply: [UInt8]?, udpLimit: Int?) -> [UInt8] {
        let ttl = min(Self.ttl, ttlCap ?? .max)
        guard let bytes = Responses.aliased(query, to: target, ttl: ttl, targetReply: targetReply) else {
            return Responses.rcode(.serverFailure, to: query)
        }
        if let udpLimit, bytes.count > udpLimit { return Responses.truncated(to: query) }
        return bytes
    }
}
