import CivilTime
import DNSProxy
import DNSWire
import Foundation
import LockrControl
import LockrStore
import Logging
import Synchronization
import Testing

@testable import LockrDaemon
@testable import LockrPolicy

@Suite struct HouseholdTests {
    let catalogue = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("blocklists").path

    func configuration(mode: Mode = .hourly) throws -> LockrConfiguration {
        var config = LockrConfiguration()
        config.catalogueDirectory = catalogue
        config.upstreams = try UpstreamEntry.parse("127.0.0.1")
        config.guarded = ["tiktok"]
        config.policy = PolicySettings(mode: mode, calendar: DayCalendar(zone: try! ZoneDatabase().zone("UTC")))
        return config
    }

    func runtime(_ clocks: FakeClocks, store: PolicyStore, mode: Mode = .hourly) throws -> PolicyParts {
        try household(clocks, store: store, config: try configuration(mode: mode))
    }

    func household(_ clocks: FakeClocks, store: PolicyStore, config: LockrConfiguration) throws -> PolicyParts {
        try PolicyParts(
            config: config, loaded: try PolicyLoader.load(config), store: store, logger: Logger(label: "test"),
            clock: { clocks.clock(resumingAfter: $0, scale: $1.timeScale) })
    }

    func statusOf(_ parts: PolicyParts, _ person: String) -> PolicyStatus {
        let view = parts.control.view(of: person)
        return view.policy.status(at: view.now)
    }

    /// A device of person `number` at `address`.
    func device(_ number: Int, _ address: UInt128 = 0xFFFF_7F00_0001) -> QueryClient {
        QueryClient(address: address, person: number)
    }

    func store() throws -> PolicyStore {
        let directory = NSTemporaryDirectory() + "lockr-runtime-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return try PolicyStore(path: directory + "/state.sqlite")
    }

    @Test func aWallClockJumpIsLoggedAndGrantsNothing() throws {
        let clocks = FakeClocks()
        let store = try store()
        let runtime = try runtime(clocks, store: store)
        _ = try runtime.control.perform(.unlock(app: "tiktok"), for: People.defaultName)
        #expect(runtime.gate.admit(app: "tiktok", client: device(0)) == .allow(ttl: 30))
        clocks.pass(seconds: 1)
        clocks.wallMilliseconds.add(2 * 3_600_000, ordering: .relaxed)  // the clock is set two hours ahead
        runtime.ticker.tick()
        let events = try store.events(since: Instant(milliseconds: 0))
        #expect(events.last?.event.type == .clockJump)
        #expect(events.last?.event.detail == "wall clock jumped forward by 2 h; policy time kept its own pace")
        // The window still has its 10 minutes less the one second that really passed.
        clocks.pass(seconds: 598)
        #expect(runtime.gate.admit(app: "tiktok", client: device(0)) == .allow(ttl: 1))
        clocks.pass(seconds: 1)
        #expect(
            runtime.gate.admit(app: "tiktok", client: device(0))
                == .block(
                    PolicyBlock(app: "tiktok", code: "hour_used", text: "tiktok: hourly window used, next at 11:00")))
    }

    @Test func controlCallsAreSavedBeforeTheyAnswerAndRefusalsCountToo() throws {
        let clocks = FakeClocks()
        let store = try store()
        let runtime = try runtime(clocks, store: store, mode: .extreme)
        #expect(throws: ControlFailure.self) {
            try runtime.control.perform(.unlock(app: "tiktok"), Credentials(phrase: "no"), for: People.defaultName)
        }
        // Nothing else ran: the miss is already in the store.
        #expect(try store.load()?.today.gateMisses == 1)
        #expect(try store.events(since: Instant(milliseconds: 0)).map(\.event.type) == [.gateFail])
    }

    /// Continuous use (a lookup every 2 s) for ten minutes with the daemon's one-second saves; with
    /// `kill`, the runtime dies at that millisecond without saving and a new one starts 300 ms later
    /// from the store. Returns what was metered.
    func meteredUse(killAt kill: Int64?) throws -> Duration {
        let clocks = FakeClocks()
        let store = try store()
        var runtime = try runtime(clocks, store: store, mode: .time)
        for step in Int64(0)..<1200 {
            let elapsed = step * 500
            if elapsed == kill {
                clocks.pass(milliseconds: 300)
                runtime = try self.runtime(clocks, store: store, mode: .time)
            }
            if elapsed % 2000 == 0 { _ = runtime.gate.admit(app: "tiktok", client: device(0)) }
            clocks.pass(milliseconds: 500)
            if (elapsed + 500) % 1000 == 0 { runtime.ticker.tick() }
        }
        let view = runtime.control.view(of: People.defaultName)
        return view.policy.status(at: view.now).apps[0].used
    }

    @Test func aKillAtAnyPointOfASliceLosesAtMostASecondOfMetering() throws {
        let reference = try meteredUse(killAt: nil)
        #expect(reference >= .seconds(590) && reference <= .seconds(601))
        // A kill at every second of a slice (the engine's own test takes every half second).
        for kill in stride(from: Int64(300_000), to: 310_000, by: 1000) {
            let killed = try meteredUse(killAt: kill)
            // The 300 ms the daemon was down are real time and still count as use.
            #expect(
                abs((killed - reference).milliseconds) <= 1000,
                "kill at \(kill) ms: \(killed) metered, \(reference) without the kill")
        }
    }

    @Test func meteredUseIsSavedWithinASecond() throws {
        let clocks = FakeClocks()
        let store = try store()
        let runtime = try runtime(clocks, store: store, mode: .time)
        for _ in 0..<60 {
            _ = runtime.gate.admit(app: "tiktok", client: device(0))
            clocks.pass(seconds: 1)
            runtime.ticker.tick()
        }
        let used = try #require(try store.load()?.today.used["tiktok"])
        #expect(used >= .seconds(59) && used <= .seconds(61))
    }

    /// Alice (1) in time mode with 20 minutes, her phone and laptop; Bob (2) in hourly mode; both
    /// guard tiktok like the default person.
    func family() throws -> LockrConfiguration {
        var config = try configuration(mode: .time)
        var alice = PersonSettings(name: "alice", policy: config.policy)
        alice.devices = [DeviceSpec("192.168.1.10")!, DeviceSpec("192.168.1.11")!]
        alice.policy.time.budget = .seconds(20 * 60)
        var bob = PersonSettings(name: "bob", policy: config.policy)
        bob.devices = [DeviceSpec("192.168.1.20")!]
        bob.policy.mode = .hourly
        config.people = [alice, bob]
        return config
    }

    @Test func twoDevicesOfOnePersonShareTheirBudgetAndASliceCountsOnce() throws {
        let clocks = FakeClocks()
        let runtime = try household(clocks, store: try store(), config: try family())
        let (phone, laptop) = (device(1, 0xFFFF_C0A8_010A), device(1, 0xFFFF_C0A8_010B))
        // Both stream at once for ten minutes, each a lookup every 15 s, out of step.
        for second in 0..<600 {
            if second % 15 == 0 { _ = runtime.gate.admit(app: "tiktok", client: phone) }
            if second % 15 == 7 { _ = runtime.gate.admit(app: "tiktok", client: laptop) }
            clocks.pass(seconds: 1)
            if second % 10 == 0 { runtime.ticker.tick() }
        }
        let status = statusOf(runtime, "alice")
        #expect(status.totalUsed >= .seconds(570) && status.totalUsed <= .seconds(610), "\(status.totalUsed)")
        #expect(status.apps[0].left == .seconds(20 * 60) - status.totalCharged)
        // Nobody else used anything.
        #expect(statusOf(runtime, People.defaultName).totalUsed == .zero)
    }

    @Test func twoPeopleKeepTheirOwnModesBudgetsAndWindows() throws {
        let clocks = FakeClocks()
        let store = try store()
        let runtime = try household(clocks, store: store, config: try family())
        #expect(
            runtime.gate.admit(app: "tiktok", client: device(2))
                == .block(
                    PolicyBlock(
                        app: "tiktok", code: "locked", text: "tiktok: locked; `lockr unlock tiktok` opens 10 min")))
        _ = try runtime.control.perform(.unlock(app: "tiktok"), for: "bob")
        #expect(runtime.gate.admit(app: "tiktok", client: device(2)) == .allow(ttl: 30))
        // Alice's 20 minutes run out; the default person's 30 do not.
        for _ in 0..<(21 * 4) {
            _ = runtime.gate.admit(app: "tiktok", client: device(1))
            _ = runtime.gate.admit(app: "tiktok", client: device(0))
            clocks.pass(seconds: 15)
            runtime.ticker.tick()
        }
        guard case .block(let block) = runtime.gate.admit(app: "tiktok", client: device(1)) else {
            Issue.record("Alice's budget is spent")
            return
        }
        #expect(block.code == "budget_spent")
        #expect(block.text.hasPrefix("tiktok: daily budget spent (20/20 min"))
        guard case .allow = runtime.gate.admit(app: "tiktok", client: device(0)) else {
            Issue.record("the default person has budget left")
            return
        }
        // Each person's state and events are stored apart, and come back after a restart.
        #expect(try store.people() == ["alice", "bob", "default"])
        #expect(try store.events(since: Instant(milliseconds: 0), person: "bob").map(\.event.type).contains(.unlock))
        #expect(
            try store.events(since: Instant(milliseconds: 0), person: "default").allSatisfy { $0.event.type != .unlock }
        )
        let restarted = try household(clocks, store: store, config: try family())
        guard case .block = restarted.gate.admit(app: "tiktok", client: device(1)) else {
            Issue.record("a restart keeps Alice's spent budget")
            return
        }
        #expect(restarted.control.view(of: "bob").policy.state.windows.all.count == 1)
    }

    @Test func aDeviceHandedToALooserPersonWaitsAsTheirChangesDoAndMovesOnTimeAcrossARestart() throws {
        let clocks = FakeClocks()
        let store = try store()
        var config = try family()
        config.people[1].guarded = []  // Bob guards nothing: a device moved to him loses its limits.
        let runtime = try household(clocks, store: store, config: config)
        func claims(_ parts: PolicyParts, _ person: String) -> [String] {
            parts.control.view(of: person).policy.state.claimedDevices
        }
        // To Alice (the default person's mode with a smaller budget): at once.
        #expect(try runtime.control.assignDevice("192.168.1.30", to: "alice", phrase: nil) == nil)
        #expect(claims(runtime, "alice") == ["192.168.1.30"])
        // On to Bob: a loosening change of Alice's, waiting for her day to end (time mode).
        let waiting = try #require(try runtime.control.assignDevice("192.168.1.30", to: "bob", phrase: nil))
        #expect(waiting.change.description == "device 192.168.1.30: alice → bob")
        #expect(runtime.control.view(of: "alice").policy.state.changes.pending.map(\.id) == [waiting.id])
        // Asked again, it is the same change; another setting of hers settling keeps it waiting.
        #expect(try runtime.control.assignDevice("192.168.1.30", to: "bob", phrase: nil)?.id == waiting.id)
        _ = try runtime.control.perform(.guardApp("youtube"), for: "alice")
        runtime.ticker.tick()
        #expect(claims(runtime, "alice") == ["192.168.1.30"] && claims(runtime, "bob").isEmpty)
        // The day ends while lockr is down; the next start carries the move out.
        clocks.pass(seconds: 14 * 3600)
        let restarted = try household(clocks, store: store, config: config)
        restarted.ticker.tick()
        #expect(claims(restarted, "alice").isEmpty && claims(restarted, "bob") == ["192.168.1.30"])
        #expect(restarted.control.view(of: "alice").policy.state.changes.pending.isEmpty)
        let events = try store.events(since: Instant(milliseconds: 0), person: "alice").map(\.event.detail)
        #expect(
            events.contains { $0.hasPrefix("#\(waiting.id) device 192.168.1.30: alice → bob (admin view)") },
            "\(events)")
        // Back to the default person: it gains tiktok's guard, and Bob's hourly mode limited no app
        // of his (he guards nothing), so nothing is lost: at once.
        #expect(try restarted.control.assignDevice("192.168.1.30", to: "default", phrase: nil) == nil)
        #expect(claims(restarted, "bob").isEmpty)
    }

    @Test func aCallNamesItsPersonOrComesFromTheirDevice() throws {
        let runtime = try household(FakeClocks(), store: try store(), config: try family())
        #expect(runtime.control.peopleNames() == ["default", "alice", "bob"])
        #expect(try runtime.control.person(named: "bob", caller: nil) == "bob")
        #expect(throws: ControlFailure.unknownPerson("carol", people: ["default", "alice", "bob"])) {
            try runtime.control.person(named: "carol", caller: nil)
        }
        #expect(
            try runtime.control.person(named: nil, caller: try .init(ipAddress: "192.168.1.11", port: 1)) == "alice")
        #expect(throws: ControlFailure.personNeeded(people: ["default", "alice", "bob"])) {
            try runtime.control.person(named: nil, caller: try .init(ipAddress: "127.0.0.1", port: 1))
        }
        // Without people, the default person is the only one.
        let alone = try self.runtime(FakeClocks(), store: try store())
        #expect(try alone.control.person(named: nil, caller: try .init(ipAddress: "127.0.0.1", port: 1)) == "default")
    }

    @Test func aReloadAddsAPersonAndKeepsTheNumbersOfEveryoneElse() throws {
        let clocks = FakeClocks()
        let runtime = try household(clocks, store: try store(), config: try family())
        var config = try family()
        var carol = PersonSettings(name: "carol", policy: config.policy)
        carol.devices = [DeviceSpec("192.168.1.30")!]
        config.people = [carol, config.people[1]]
        runtime.reload(config: config, loaded: try PolicyLoader.load(config))
        // Alice is gone from the configuration, but keeps her number (her devices are nobody's now).
        #expect(runtime.control.peopleNames() == ["default", "bob", "carol"])
        let directory = runtime.household.deviceDirectory()
        #expect(directory.person(ofAddress: 0xFFFF_C0A8_011E) == 3)
        #expect(directory.person(ofAddress: 0xFFFF_C0A8_0114) == 2)
        #expect(directory.person(ofAddress: 0xFFFF_C0A8_010A) == 0)
        #expect(runtime.household.filters(ownLists: [:], safeSearch: []).count == 4)
        // People whose app names are alike share one filter, and so one cache stamp.
        let policy = FilterPolicy(people: runtime.household.filters(ownLists: [:], safeSearch: []))
        #expect(Set((0..<4).map { policy.stamp(for: QueryClient(address: 0, person: $0)) }).count == 1)
    }

    @Test func aScheduleOrProfileMustNameAppsOrGroupsThatExist() throws {
        var config = try family()
        config.people[1].schedules = [
            Schedule(name: "school", days: .everyDay, from: 8 * 60, to: 13 * 60, block: ["video", "tiktok"])
        ]
        config.profiles = [Profile(name: "work", block: ["social", "guarded"])]
        _ = try PolicyLoader.load(config)
        config.people[0].profiles = [Profile(name: "homework", block: ["gamez", "tiktk"])]
        #expect {
            _ = try PolicyLoader.load(config)
        } throws: { error in
            let text = "\(error)"
            return text.hasPrefix(
                "[people.alice] profiles.homework.block: no app or group 'gamez', 'tiktk' (did you mean tiktok?)")
                && text.contains("social") && text.hasSuffix("; or guarded)")
        }
    }

    /// A neighbour table the test fills: devices that are there answer a probe a millisecond later;
    /// devices it only remembers never do.
    final class FakeNeighbours: NeighbourLookup, NeighbourPresence {
        let clocks: FakeClocks
        let there = Mutex<Set<UInt128>>([])
        let remembered = Mutex<Set<UInt128>>([])
        let confirmed = Mutex<[UInt128: UInt64]>([:])
        let probes = Mutex<[UInt128]>([])
        let readable = Atomic<Bool>(true)

        init(clocks: FakeClocks) { self.clocks = clocks }

        func mac(for address: UInt128) -> MACAddress? { nil }
        var isReadable: Bool { readable.load(ordering: .relaxed) }

        func lastConfirmed(mac: MACAddress?, address: UInt128) -> UInt64? {
            guard there.withLock({ $0.contains(address) }) || remembered.withLock({ $0.contains(address) }) else {
                return nil
            }
            return confirmed.withLock { $0[address] ?? 0 }
        }

        func probe(mac: MACAddress?, address: UInt128) {
            probes.withLock { $0.append(address) }
            guard there.withLock({ $0.contains(address) }) else { return }
            let answer = UInt64(clocks.bootNanoseconds.load(ordering: .relaxed)) + 1_000_000
            confirmed.withLock { $0[address] = answer }
        }
    }

    @Test func aDeviceThatStopsAskingWhileOnTheNetworkHasProtectionOffOncePerEpisode() throws {
        let clocks = FakeClocks()
        let neighbours = FakeNeighbours(clocks: clocks)
        let store = try store()
        let config = try family()
        let runtime = try PolicyParts(
            config: config, loaded: try PolicyLoader.load(config), store: store, logger: Logger(label: "test"),
            neighbours: neighbours, clock: { clocks.clock(resumingAfter: $0, scale: $1.timeScale) },
            monotonic: { UInt64(clocks.bootNanoseconds.load(ordering: .relaxed)) })
        let phone = QueryClient(address: 0xFFFF_C0A8_010A, person: 1)  // Alice's, on the LAN
        let laptop = QueryClient(address: 0xFFFF_C0A8_0114, person: 2)  // Bob's, gone but remembered
        neighbours.there.withLock { $0 = [phone.address] }
        neighbours.remembered.withLock { $0 = [laptop.address] }
        func ask(_ client: QueryClient) {
            runtime.watch.sightings.record(client, now: UInt64(clocks.bootNanoseconds.load(ordering: .relaxed)))
        }
        func states() -> [String] {
            runtime.control.devices().map { "\($0.person) \($0.address) \($0.state.rawValue)" }
        }
        func protectionEvents() throws -> [String] {
            try store.events(since: Instant(milliseconds: 0)).filter {
                $0.event.type == .protectionOff || $0.event.type == .protectionBack
            }.map { "\($0.person) \($0.event.type.rawValue)" }
        }
        ask(phone)
        ask(laptop)
        runtime.ticker.tick()
        #expect(states() == ["alice 192.168.1.10 ok", "bob 192.168.1.20 ok"])
        clocks.pass(seconds: 601)
        runtime.ticker.tick()
        // Both were probed; only the phone answered.
        #expect(neighbours.probes.withLock { $0 } == [phone.address, laptop.address])
        #expect(states() == ["alice 192.168.1.10 not_seen", "bob 192.168.1.20 not_seen"])
        clocks.pass(milliseconds: 2)
        runtime.ticker.tick()
        #expect(states() == ["alice 192.168.1.10 protection_off", "bob 192.168.1.20 not_seen"])
        // The laptop is probed again 10 s later, not at every tick.
        #expect(neighbours.probes.withLock { $0 }.count == 2)
        clocks.pass(seconds: 10)
        runtime.ticker.tick()
        #expect(neighbours.probes.withLock { $0 } == [phone.address, laptop.address, laptop.address])
        #expect(runtime.control.devices().last?.note == "not seen for 11 min")
        #expect(try protectionEvents() == ["alice protection_off"])
        // Asking again clears it; a new episode is flagged again, once.
        ask(phone)
        runtime.ticker.tick()
        #expect(states().first == "alice 192.168.1.10 ok")
        clocks.pass(seconds: 700)
        runtime.ticker.tick()
        clocks.pass(milliseconds: 2)
        runtime.ticker.tick()
        #expect(try protectionEvents() == ["alice protection_off", "alice protection_back", "alice protection_off"])
        // Without a readable neighbour table lockr never says protection off.
        neighbours.readable.store(false, ordering: .relaxed)
        ask(phone)
        runtime.ticker.tick()
        clocks.pass(seconds: 700)
        runtime.ticker.tick()
        #expect(states() == ["alice 192.168.1.10 not_seen", "bob 192.168.1.20 not_seen"])
    }
}
