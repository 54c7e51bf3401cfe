import DNSFilter
import DNSTestSupport
import DNSWire
import NIOCore
import Testing

@testable import DNSProxy

/// Which person a query is: forwarded MAC and subnet from trusted forwarders only, then addresses.
@Suite struct DeviceDirectoryTests {
    let phone = MACAddress("02:42:ac:11:00:0f")!
    let laptop = MACAddress("02:42:ac:11:00:10")!
    let forwarder = try! SocketAddress(ipAddress: "127.0.0.1", port: 40000)
    let stranger = try! SocketAddress(ipAddress: "192.168.1.77", port: 40000)

    /// Alice (1): the phone's MAC and 192.168.1.0/24; Bob (2): the laptop's MAC, 192.168.1.20 and
    /// fd00:1::/64. 127.0.0.1 is the trusted forwarder.
    var directory: DeviceDirectory {
        DeviceDirectory(
            devices: [
                (.mac(phone), 1), (DeviceSpec("192.168.1.0/24")!, 1), (.mac(laptop), 2),
                (DeviceSpec("192.168.1.20")!, 2), (DeviceSpec("fd00:1::/64")!, 2),
            ],
            trustedForwarders: [IPNetwork("127.0.0.1")!])
    }

    func query(_ options: [(code: UInt16, data: [UInt8])] = []) throws -> DNSQuery {
        try DNSQuery(
            packet: options.isEmpty ? LdnsBuild.query("a.test.") : LdnsBuild.query("a.test.", options: options))
    }

    func macOption(_ mac: MACAddress) -> (code: UInt16, data: [UInt8]) {
        (65001, (0..<6).map { UInt8(truncatingIfNeeded: mac.value >> (40 - 8 * UInt64($0))) })
    }

    func source(_ address: String) -> SocketAddress { try! SocketAddress(ipAddress: address, port: 5353) }

    @Test func aForwardedMACNamesThePersonWhateverTheAddress() throws {
        let asked = directory.identify(
            try query([macOption(laptop), (8, [0, 1, 32, 0, 192, 168, 1, 99])]), source: forwarder)
        #expect(asked.person == 2 && asked.mac == laptop && asked.identifiedBy == .forwardedMAC)
        // The address is the forwarded subnet's: a device of nobody's MAC falls back to it.
        #expect(asked.addressText == "192.168.1.99")
        let unknownMAC = MACAddress("0a:00:00:00:00:01")!
        let other = directory.identify(
            try query([macOption(unknownMAC), (8, [0, 1, 32, 0, 192, 168, 1, 99])]), source: forwarder)
        #expect(other.person == 1 && other.mac == unknownMAC)
    }

    @Test func aForwardedSubnetIsMatchedByTheLongestPrefixHoldingAllOfIt() throws {
        #expect(directory.identify(try query([(8, [0, 1, 32, 0, 192, 168, 1, 20])]), source: forwarder).person == 2)
        #expect(directory.identify(try query([(8, [0, 1, 32, 0, 192, 168, 1, 21])]), source: forwarder).person == 1)
        // A /16 may be anyone's: only a network holding all of it would do.
        let wide = directory.identify(try query([(8, [0, 1, 16, 0, 192, 168])]), source: forwarder)
        #expect(wide.person == 0 && wide.identifiedBy == .forwardedSubnet)
        // An IPv6 privacy address of Bob's /64, as a /128 or as the /64 itself.
        let v6: [UInt8] = [0, 2, 128, 0, 0xFD, 0, 0, 1, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0]
        #expect(directory.identify(try query([(8, v6)]), source: forwarder).person == 2)
        #expect(
            directory.identify(try query([(8, [0, 2, 64, 0, 0xFD, 0, 0, 1, 0, 0, 0, 0])]), source: forwarder).person
                == 2)
    }

    @Test func optionsFromAnyoneButATrustedForwarderAreIgnored() throws {
        // A device on Alice's network claims Bob's laptop.
        let claimed = directory.identify(try query([macOption(laptop)]), source: stranger)
        #expect(claimed.person == 1 && claimed.mac == nil && claimed.identifiedBy == .sourceAddress)
        #expect(claimed.addressText == "192.168.1.77")
        // The forwarder's own queries without options are its address's: nobody's.
        #expect(directory.identify(try query(), source: forwarder).person == 0)
        #expect(directory.identify(try query(), source: source("192.168.1.20")).person == 2)
        #expect(directory.identify(try query(), source: source("10.0.0.1")).person == 0)
    }

    @Test func theNeighbourTableGivesTheMACOfADeviceOnTheLAN() throws {
        struct Table: NeighbourLookup {
            let laptop: MACAddress
            func mac(for address: UInt128) -> MACAddress? { address == 0xFFFF_C0A8_0163 ? laptop : nil }
        }
        let withTable = DeviceDirectory(devices: [(.mac(laptop), 2)], neighbours: Table(laptop: laptop))
        let asked = withTable.identify(try query(), source: source("192.168.1.99"))
        #expect(asked.person == 2 && asked.identifiedBy == .neighbourTable)
        #expect(withTable.person(ofAddress: 0xFFFF_C0A8_0163) == 2)
        #expect(withTable.identify(try query(), source: source("192.168.1.98")).person == 0)
    }

    @Test func withoutPeopleEveryQueryIsTheDefaultPersons() throws {
        let asked = DeviceDirectory().identify(try query([macOption(laptop)]), source: forwarder)
        #expect(asked == QueryClient(address: 0xFFFF_7F00_0001))
    }
}

/// What one person may resolve is never served from the cache to another whose filter differs.
@Suite struct PersonFilterTests {
    let alice = try! SocketAddress(ipAddress: "127.0.0.2", port: 40000)
    let bob = try! SocketAddress(ipAddress: "127.0.0.3", port: 40000)
    let carol = try! SocketAddress(ipAddress: "127.0.0.4", port: 40000)

    @Test func anAnswerOneFilterAllowedIsCheckedAgainForAnother() throws {
        let tiktok = try App(
            id: "tiktok", name: "TikTok", group: "video", ruleText: Array("tiktok.com\n".utf8), path: "t")
        let guarded = GuardSet(apps: [tiktok])
        let freed = GuardSet(apps: [tiktok], overrides: [("always", Array("tiktok.com\n".utf8))])
        let gate = ScriptedGate()
        gate.verdict = .block(PolicyBlock(app: "tiktok", code: "locked", text: "tiktok: locked"))
        // Alice always allows tiktok.com; Bob and Carol guard it with the same filter.
        let pipeline = QueryPipeline(
            policy: FilterPolicy(
                people: [PersonFilter(apps: guarded), PersonFilter(apps: freed), PersonFilter(apps: guarded)],
                guardStage: GuardStage(gate: gate)),
            devices: DeviceDirectory(devices: [
                (DeviceSpec("127.0.0.2")!, 1), (DeviceSpec("127.0.0.3")!, 2), (DeviceSpec("127.0.0.4")!, 0),
            ]),
            cache: AnswerCache(settings: CacheSettings()))
        #expect(
            pipeline.policy.stamp(for: QueryClient(address: 0, person: 2))
                == pipeline.policy.stamp(for: QueryClient(address: 0)))
        #expect(
            pipeline.policy.stamp(for: QueryClient(address: 0, person: 1))
                != pipeline.policy.stamp(for: QueryClient(address: 0)))
        let query = LdnsBuild.query("tiktok.com.")
        guard
            case .forward(let parsed, _, let verdict) = pipeline.begin(
                packet: query, client: alice, transport: .udp, now: 0)
        else {
            Issue.record("Alice's tiktok.com is resolved")
            return
        }
        let upstream = try #require(LdnsBuild.answer(to: query, records: ["tiktok.com. 3600 IN A 192.0.2.7"]))
        _ = pipeline.finish(
            parsed, upstream: .success(try CachedAnswer(reply: upstream, toQuery: query, bounds: TTLBounds())),
            stale: nil, verdict: verdict, transport: .udp, now: 0)
        // Alice is served from the cache; Bob and Carol get the block, though the answer is cached.
        guard case .reply(let cached, .cached) = pipeline.begin(packet: query, client: alice, transport: .udp, now: 1)
        else {
            Issue.record("Alice's answer comes from the cache")
            return
        }
        #expect(try LdnsPacket(wire: cached).answerRecords.first?.hasSuffix("192.0.2.7") == true)
        for other in [bob, carol] {
            guard
                case .reply(let bytes, .blocked(.guarded(let block))) = pipeline.begin(
                    packet: query, client: other, transport: .udp, now: 2)
            else {
                Issue.record("a blocked name is answered at once")
                return
            }
            #expect(block == PolicyBlock(app: "tiktok", code: "locked", text: "tiktok: locked"))
            #expect(try LdnsPacket(wire: bytes).answerRecords.first?.hasSuffix("0.0.0.0") == true)
        }
        #expect(gate.asked == ["tiktok", "tiktok"])
    }

    /// Rules from `text`, as the list file `name` would give them.
    private func lists(_ name: String, block: String = "", allow: String = "") -> RuleSet {
        var builder = RuleSetBuilder()
        let source = builder.addSource(name)
        _ = RuleListParser.parse(Array(block.utf8), role: .block, source: source, into: &builder)
        _ = RuleListParser.parse(Array(allow.utf8), role: .allow, source: source, into: &builder)
        return builder.build()
    }

    @Test func aPersonsOwnListsAddToTheSharedOnesAndAnAllowOfEitherWins() throws {
        let shared = lists("shared.txt", block: "ads.example\n", allow: "cdn.adult.example\n")
        let kids = lists("kids.txt", block: "adult.example\nads.example\n", allow: "ok.ads.example\n")
        let policy = FilterPolicy(rules: shared, people: [PersonFilter(), PersonFilter(lists: kids)])
        let grown = QueryClient(address: 0)
        let child = QueryClient(address: 0, person: 1)
        func verdict(_ name: String, _ client: QueryClient) throws -> String {
            let query = try DNSQuery(packet: LdnsBuild.query(name))
            switch policy.decide(query, client: client) {
            case .resolve, .resolveEachTime: return "resolve"
            case .pagesName: return "pages"
            case .answer(_, _, let reason):
                return policy.extendedError(for: reason, client: client, wireName: query.wireName).text
            }
        }
        let expected: [(name: String, grown: String, child: String)] = [
            ("ads.example.", "blocked by ||ads.example^ (shared.txt)", "blocked by ||ads.example^ (shared.txt)"),
            ("adult.example.", "resolve", "blocked by ||adult.example^ (kids.txt)"),
            ("www.adult.example.", "resolve", "blocked by ||adult.example^ (kids.txt)"),
            // An allow rule of either list beats a block rule of either.
            ("cdn.adult.example.", "resolve", "resolve"),
            ("ok.ads.example.", "blocked by ||ads.example^ (shared.txt)", "resolve"),
            ("example.org.", "resolve", "resolve"),
        ]
        for row in expected {
            #expect(try verdict(row.name, grown) == row.grown, "\(row.name) for the grown-up")
            #expect(try verdict(row.name, child) == row.child, "\(row.name) for the child")
        }
        // What the child may resolve is remembered apart from what the others may.
        #expect(policy.stamp(for: grown) != policy.stamp(for: child))
        let same = FilterPolicy(rules: shared, people: [PersonFilter(lists: kids), PersonFilter(lists: kids)])
        #expect(same.stamp(for: grown) == same.stamp(for: child))
    }
}
