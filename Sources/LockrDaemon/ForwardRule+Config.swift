import ConfigKit
import DNSProxy
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
        guard value("domains") != nil else {
            problem("domains", "is missing: the domains this table's servers answer, as [\"lan\"]")
            return []
        }
        guard let list = strings("domains") else { return [] }
        if list.isEmpty { problem("domains", "needs at least one domain") }
        return list.compactMap { text in
            var name = text.lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            guard Self.isDomainName(name) else {
                problem("domains", "'\(text)' is not a domain name (as \"lan\" or \"168.192.in-addr.arpa\")")
                return nil
            }
            return name
        }
    }

    /// Labels of letters, digits, '-' and '_', 1 to 63 bytes each, 253 in all.
    private static func isDomainName(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return !name.isEmpty && name.utf8.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count)
                    && label.utf8.allSatisfy {
                        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-")
                            || $0 == UInt8(ascii: "_")
                    }
            }
    }

    private mutating func forwardServers() -> [SocketAddress] {
        guard value("servers") != nil else {
            problem("servers", "is missing: the servers that answer these domains, as [\"192.168.1.1\"]")
            return []
        }
        guard let list = strings("servers") else { return [] }
        if list.isEmpty { problem("servers", "needs at least one server") }
        return list.compactMap { text in
            if let address = AddressText.parse(text, defaultPort: 53) { return address }
            problem("servers", "'\(text)' is not an address (ADDR[:PORT])")
            return nil
        }
    }
}
