import DNSFilter
import DNSWire
import LockrAdapters
import Testing

@testable import LockrRPZ

/// A person's block set as RPZ records: blocked apps' names as triggers, open apps none.
@Suite struct PolicyZoneTests {
    static let origin = WireName.wire(fromPresentation: "alice.rpz.lockr")!

    /// Each record as "owner TYPE", in presentation form.
    func lines(_ content: PolicyZoneContent) -> [String] {
        content.records.map { "\(WireName.presentation(of: $0.owner)) \($0.type)" }
    }

    @Test func blockedAppsNamesAreTriggersAndOpenAppsHaveNone() {
        let apps = [
            AppBlock(
                app: "tiktok", blocked: true,
                rules: [
                    .domain("tiktok.com"), .subdomains("tiktokcdn.com"), .regex("^api\\.tiktokv\\.com$"),
                    .regex("^tik.*tok$"),
                ]),
            AppBlock(app: "youtube", blocked: false, rules: [.domain("youtube.com")]),
        ]
        let content = PolicyZoneContent(origin: Self.origin, apps: apps, action: .nxdomain, ttl: 30)
        #expect(
            Set(lines(content)) == [
                "alice.rpz.lockr 2", "tiktok.com.alice.rpz.lockr 5", "*.tiktok.com.alice.rpz.lockr 5",
                "*.tiktokcdn.com.alice.rpz.lockr 5", "api.tiktokv.com.alice.rpz.lockr 5",
            ])
        #expect(content.records.first?.type == RecordType.ns, "the apex's NS first")
        #expect(content.records.filter { $0.type == RecordType.cname }.allSatisfy { $0.rdata == [0] && $0.ttl == 30 })
        #expect(content.leftOut == ["tiktok": 1], "the regular expression RPZ cannot say")
        let open = PolicyZoneContent(
            origin: Self.origin, apps: [AppBlock(app: "tiktok", blocked: false, rules: [.domain("tiktok.com")])],
            action: .nxdomain, ttl: 30)
        #expect(lines(open) == ["alice.rpz.lockr 2"])
    }

    @Test func eachActionHasItsRecords() {
        let apps = [AppBlock(app: "tiktok", blocked: true, rules: [.regex("^tiktok\\.com$")])]
        func records(_ action: RPZAction) -> [ResourceRecord] {
            Array(PolicyZoneContent(origin: Self.origin, apps: apps, action: action, ttl: 60).records.dropFirst())
        }
        #expect(records(.nodata).map(\.rdata) == [[1, UInt8(ascii: "*"), 0]])
        #expect(records(.nullAddresses).map(\.type) == [RecordType.a, RecordType.aaaa])
        #expect(records(.nullAddresses).map(\.rdata) == [[0, 0, 0, 0], [UInt8](repeating: 0, count: 16)])
        #expect(records(.localData(ipv4: [192, 0, 2, 1], ipv6: nil)).map(\.type) == [RecordType.a])
    }

    @Test func theActionFollowsTheBlockMode() {
        #expect(RPZAction(.null) == .nullAddresses)
        #expect(RPZAction(.nxdomain) == .nxdomain)
        #expect(RPZAction(.refused) == .nxdomain, "RPZ has no REFUSED")
        #expect(RPZAction(.address(ipv4: [10, 0, 0, 1], ipv6: nil)) == .localData(ipv4: [10, 0, 0, 1], ipv6: nil))
    }

    @Test func onlyARegularExpressionOfOneNameIsTaken() {
        #expect(PolicyZoneContent.singleName("^a\\.b-c\\.example$") == "a.b-c.example")
        for pattern in ["^a.b$", "a\\.b", "^a\\.b", "^(a|b)\\.c$", "^a\\.b\\$", "^$", "^a\\.\\*$"] {
            #expect(PolicyZoneContent.singleName(pattern) == nil, "\(pattern)")
        }
    }

    @Test func aNameTooLongUnderTheZoneIsLeftOut() {
        let long = (0..<4).map { _ in String(repeating: "a", count: 60) }.joined(separator: ".")
        let content = PolicyZoneContent(
            origin: Self.origin, apps: [AppBlock(app: "x", blocked: true, rules: [.domain(long)])], action: .nxdomain,
            ttl: 30)
        #expect(lines(content) == ["alice.rpz.lockr 2"])
        #expect(content.leftOut == ["x": 2], "the name and its wildcard")
    }
}
