import Glibc

/// A file read like /etc/hosts: `ADDRESS NAME [ALIAS ...]` per line, `#` to the end of a line a
/// comment. Each name gets an A or AAAA record of the address, and the address a PTR record of
/// its line's first name (as dnsmasq reads such files).
public enum HostsFile {
    /// The records of `text`, and what is wrong with each line that is not taken (1-based).
    public static func records(in text: String) -> (records: [LocalRecord], problems: [(line: Int, message: String)]) {
        var records: [LocalRecord] = []
        var problems: [(Int, String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.prefix { $0 != "#" }
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let address = fields.first else { continue }
            guard fields.count >= 2 else {
                problems.append((index + 1, "'\(address)' names no host"))
                continue
            }
            guard let (type, bytes) = Self.address(String(address)) else {
                problems.append((index + 1, "'\(address)' is not an IPv4 or IPv6 address"))
                continue
            }
            var names: [[UInt8]] = []
            for name in fields.dropFirst() {
                guard let wire = WireName.wire(fromPresentation: String(name)), wire.count > 1 else {
                    problems.append((index + 1, "'\(name)' is not a host name"))
                    continue
                }
                names.append(wire)
                records.append(LocalRecord(owner: wire, type: type, ttl: nil, rdata: bytes))
            }
            if let first = names.first {
                records.append(
                    LocalRecord(
                        owner: reverseName(bytes), type: RecordType.ptr, ttl: nil, rdata: first.map(asciiLower)))
            }
        }
        return (records, problems)
    }

    /// The record type and bytes of an IPv4 or IPv6 address in text.
    static func address(_ text: String) -> (UInt16, [UInt8])? {
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 { return (RecordType.a, v4) }
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, text, &v6) == 1 { return (RecordType.aaaa, v6) }
        return nil
    }

    /// The reverse-lookup name of an address (`in-addr.arpa` or `ip6.arpa`), in wire form.
    public static func reverseName(_ address: [UInt8]) -> [UInt8] {
        let labels: [String] =
            address.count == 4
            ? address.reversed().map { String($0) } + ["in-addr", "arpa"]
            : address.reversed().flatMap { [String($0 & 0xF, radix: 16), String($0 >> 4, radix: 16)] } + [
                "ip6", "arpa",
            ]
        return labels.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
    }
}
