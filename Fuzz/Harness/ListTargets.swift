import CivilTime
import DNSFilter
import DNSWire
import Foundation
import LockrDaemon

@testable import DNSProxy
@testable import LockrLists
@testable import LockrPolicy

/// Files a household writes or downloads: rule lists, a list server's answer and the configuration.
enum ListTargets {
    static let probes = ["example.com", "ads.example.com", "a.b.c.example.org", "com", "xn--bcher-kva.example"]

    /// Reads `bytes` as a TZif file, then reads wall clocks, day starts and clock hours in the zone
    /// across the years a policy meets (1900 to 2100, every 97 days and around each change).
    static func tzif(_ bytes: [UInt8]) {
        guard let zone = try? ZoneRules(identifier: "Fuzz/Zone", tzif: bytes) else { return }
        let calendar = DayCalendar(zone: zone, dayStartMinutes: 150)
        var seconds: Int64 = -2_208_988_800
        var steps = 0
        while seconds < 4_102_444_800, steps < 2_000 {
            let instant = Instant(milliseconds: seconds * 1_000)
            _ = calendar.day(containing: instant)
            _ = calendar.clockHour(containing: instant)
            _ = calendar.dateTimeText(instant)
            seconds = zone.nextChange(after: seconds).map { min($0, seconds + 97 * 86_400) } ?? seconds + 97 * 86_400
            steps += 1
        }
    }

    /// Parses `bytes` as a block list and as an allow list, builds the set, matches names against it.
    static func ruleList(_ bytes: [UInt8]) {
        var builder = RuleSetBuilder()
        let blocked = builder.addSource("block.txt")
        let allowed = builder.addSource("allow.txt")
        _ = RuleListParser.parse(bytes, role: .block, source: blocked, into: &builder)
        _ = RuleListParser.parse(bytes, role: .allow, source: allowed, into: &builder)
        let rules = builder.build()
        for name in probes {
            if let wire = WireName.wire(fromPresentation: name), let hit = rules.hit(name: name) {
                _ = rules.describe(hit, wireName: wire)
                _ = rules.domainBlockRule(hit)
            }
        }
    }

    /// Takes `bytes` apart as a list server's answer, as a download is: the first two bytes the
    /// status (big-endian), then the head ("Name: value" lines, up to an empty line), then the body.
    static func listDownload(_ bytes: [UInt8]) {
        guard bytes.count >= 2 else { return }
        let status = Int(bytes[0]) << 8 | Int(bytes[1])
        let text = bytes.dropFirst(2)
        let end = text.indices.first { text[$0] == 10 && $0 + 1 < text.endIndex && text[$0 + 1] == 10 }
        let head = String(decoding: text[text.startIndex..<(end ?? text.startIndex)], as: UTF8.self)
        let headers = head.split(separator: "\n").compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let body = Array(text[(end.map { $0 + 2 } ?? text.startIndex)...])
        do {
            if try ListAnswer.redirect(status: status, headers: headers, from: "https://lists.example/l.txt") != nil {
                return
            }
            guard try ListAnswer.head(status: status, reason: "Reason", headers: headers, limit: 1 << 16) == nil else {
                return
            }
            _ = try ListAnswer.list(body, headers: headers)
        } catch {
            _ = error.description
        }
    }

    /// Reads the first line of `bytes` as a `[local]` record and the rest as a hosts file, then
    /// answers queries of the names they define (and of a few they do not) from them.
    static func localRecords(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let firstLine = text.prefix { $0 != "\n" }
        var records = HostsFile.records(in: String(text.dropFirst(firstLine.count))).records
        if let record = try? LocalRecord(String(firstLine)) { records.append(record) }
        let table = LocalRecords(records, ttl: 300)
        _ = LocalRecords.problems(records)
        let names = records.prefix(8).map { WireName.presentation(of: $0.owner) } + ["example.com", "home.arpa"]
        for name in names {
            for type in [RecordType.a, RecordType.aaaa, RecordType.cname, RecordType.txt, RecordType.any] {
                guard let query = DNSQuery.asking(name, type: type) else { continue }
                _ = table.answer(to: query)
            }
        }
    }

    /// Reads `bytes` as the TOML configuration file.
    static func config(_ bytes: [UInt8]) {
        _ = try? ConfigFile.parse(String(decoding: bytes, as: UTF8.self), path: "fuzz.toml")
    }
}
