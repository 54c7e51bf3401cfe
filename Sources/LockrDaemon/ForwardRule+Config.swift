import ConfigKit
import DNSProxy
import DNSWire
import LockrPolicy
import NIOCore

/// The `[[forward]]` tables: the domains whose names a server of the home answers (the router's
/// DNS for `lan` and its reverse zone) and those servers.
extension ConfigReader {
    /// The keys a `[[forward]]` table takes.
    static let forwardKeys = ["domains", "servers"]

    /// Each `[[forward]]` table, checked: at least one domain, each a name (any case, a final dot
    /// or none) no other table has, and at least one server (`ADDR[:PORT]`, port 53 by default).
    mutating func forwardRules() -> [ForwardRule] {
        guard let value = value("forward") else { return [] }
        guard let entries = value.array, entries.allSatisfy({ $0.table != nil }) else {
            problem("forward", "expected tables ([[forward]] with domains and servers)")
            return []
        }
        var rules: [ForwardRule] = []
        var seen: Set<String> = []
        for entry in entries.compactMap(\.table) {
            var reader = ConfigReader(table: entry)
            for key in entry.keys where !Self.forwardKeys.contains(key) {
                let meant = NameSuggestion.closest(to: key, among: Self.forwardKeys).map { " (did you mean '\($0)'?)" }
                reader.problem(key, "unknown key" + (meant ?? ""))
            }
            let domains = reader.forwardDomains()
            let servers = reader.forwardServers()
            for problem in reader.problems { self.problem("forward." + (problem.key ?? ""), problem.message) }
            for domain in domains where !seen.insert(domain).inserted {
                problem("forward.domains", "'\(domain)' is in two [[forward]] tables")
            }
            if !domains.isEmpty, !servers.isEmpty { rules.append(ForwardRule(domains: domains, servers: servers)) }
        }
        return rules
    }

    private mutating func forwardDomains() -> [String] {
        entries("domains", example: "\"lan\"", what: "the domains this table's servers answer") { text in
            var name = text.lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            return Self.isDomainName(name) ? name : nil
        } invalid: {
            "'\($0)' is not a domain name (as \"lan\" or \"168.192.in-addr.arpa\")"
        }
    }

    private mutating func forwardServers() -> [SocketAddress] {
        entries("servers", example: "\"192.168.1.1\"", what: "the servers that answer these domains") {
            AddressText.parse($0, defaultPort: 53)
        } invalid: {
            "'\($0)' is not an address (ADDR[:PORT])"
        }
    }

    /// The list at `key`, each entry read by `parse`: a missing or empty list, and each entry
    /// `parse` refuses (`invalid` says why), noted as problems.
    private mutating func entries<Entry>(
        _ key: String, example: String, what: String, _ parse: (String) -> Entry?, invalid: (String) -> String
    ) -> [Entry] {
        guard value(key) != nil else {
            problem(key, "is missing: \(what), as [\(example)]")
            return []
        }
        guard let list = strings(key) else { return [] }
        if list.isEmpty { problem(key, "needs at least one \(key.dropLast())") }
        return list.compactMap { text in
            if let entry = parse(text) { return entry }
            problem(key, invalid(text))
            return nil
        }
    }

    /// Labels of letters, digits, '-' and '_', within DNS's lengths (`WireName`).
    private static func isDomainName(_ name: String) -> Bool {
        WireName.wire(fromPresentation: name).map { $0.count > 1 } == true && !name.hasPrefix(".")
            && name.utf8.allSatisfy {
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
            }
    }
}
