import DNSWire
import Testing

@testable import DNSProxy

/// The devices seen: bounded, forgetting the least recently seen unassigned devices for room.
@Suite struct DeviceSightingsTests {
    func client(_ number: Int, person: Int = 0, mac: Bool = false) -> QueryClient {
        QueryClient(
            address: 0xFFFF_0A00_0000 | UInt128(number), mac: mac ? MACAddress(value: UInt64(number)) : nil,
            person: person)
    }

    @Test func aFullTableMakesRoomForANewDeviceAndKeepsAssignedOnes() {
        let sightings = DeviceSightings(capacity: 160)
        // The oldest of all: assigned to person 1, or known by a MAC address.
        for number in 0..<16 { sightings.record(client(number, person: 1), now: 1) }
        for number in 16..<32 { sightings.record(client(number, mac: true), now: 2) }
        // A flood of addresses, one after another.
        for number in 32..<5_000 { sightings.record(client(number), now: UInt64(number)) }
        let counts = sightings.counts
        #expect(counts.devices <= 160 && counts.evicted >= 4_800 && counts.dropped == 0, "\(counts)")
        let kept = Set(sightings.all().map(\.client.address))
        #expect((0..<16).allSatisfy { kept.contains(client($0).address) }, "assigned devices stay")
        #expect((16..<32).allSatisfy { kept.contains(client($0).address) }, "devices with a MAC outlast addresses")
        #expect(kept.contains(client(4_999).address), "the newest is listed")
        // A real new device after the flood is listed too.
        sightings.record(client(9_000, mac: true), now: 9_000)
        #expect(sightings.all().contains { $0.client.address == client(9_000).address })
    }

    @Test func aStripeOfAssignedDevicesKeepsThemAndCountsTheOnesNotKept() {
        let sightings = DeviceSightings(capacity: 128)
        // Addresses 16 apart share a stripe.
        for index in 0..<8 { sightings.record(client(index * 16, person: 2), now: 1) }
        sightings.record(client(8 * 16), now: 2)
        #expect(sightings.counts.dropped == 1 && sightings.counts.devices == 8)
    }

    @Test func restoredDevicesComeBackUnlessSeenSince() {
        let sightings = DeviceSightings()
        sightings.record(client(1), now: 50)
        sightings.restore([
            DeviceSightings.Sighting(client: client(1), lastSeen: 10),
            DeviceSightings.Sighting(client: client(2, person: 3), lastSeen: 20),
        ])
        let all = Dictionary(uniqueKeysWithValues: sightings.all().map { ($0.client.address, $0) })
        #expect(all[client(1).address]?.lastSeen == 50)
        #expect(all[client(2).address]?.client.person == 3)
    }
}
