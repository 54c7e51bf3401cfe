import DNSFilter
import DNSWire
import Foundation
import LockrPolicy
import Testing

@testable import LockrDaemon
@testable import LockrLists

/// A person's own entries built into rules: deny and allow entries, and lists by URL from the
/// copies kept, where a list that blocks never frees a name (its exceptions are skipped).
@Suite struct OwnEntriesTests {
    @Test func entriesAndListCopiesBecomeRulesAndABlockListFreesNothing() throws {
        let directory = NSTemporaryDirectory() + "lockr-own-entries-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let copies = ListCopies(stateDirectory: directory)
        let url = "https://lists.example/mixed.txt"
        let source = try ListSource(entry: url)
        try copies.keep(
            Array("0.0.0.0 tracker.example\n@@||games.example^\n".utf8), record: ListRecord(url: url), of: source)
        let rules = try #require(
            AppNaming.entryRules(
                [
                    FilterEntry(.deny, "games.example", comment: "homework first"),
                    FilterEntry(.blocklist, url),
                    FilterEntry(.allow, "|school.example^"),
                    FilterEntry(.blocklist, "https://lists.example/not-fetched-yet.txt"),
                ], copies: copies))
        #expect(rules.hit(name: "games.example")?.isBlock == true, "the list's exception does not free it")
        #expect(rules.hit(name: "tracker.example")?.isBlock == true)
        #expect(rules.hit(name: "school.example")?.isBlock == false)
        #expect(rules.hit(name: "www.school.example") == nil, "the name only")
        let wire = WireName.wire(fromPresentation: "games.example")!
        #expect(rules.describe(rules.hit(name: "games.example")!, wireName: wire) == "||games.example^ (own entries)")
        #expect(AppNaming.entryRules([], copies: copies) == nil)
    }
}
