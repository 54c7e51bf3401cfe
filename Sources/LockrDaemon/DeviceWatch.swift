import DNSProxy
import LockrControl
import LockrPolicy
import Synchronization

/// Which devices asked lately, and which of them stopped asking lockr while still on the network.
///
/// A device that was seen and then asks nothing for longer than `protection-off-after` while its
/// person has guarded apps, and that the neighbour table still holds, has "protection off": it may
/// have switched resolver or turned on its own encrypted DNS. That is logged once per episode in its
/// person's events and cleared when it asks again. Where lockr reads no neighbour table, or the
/// device is not in it, lockr only says how long it has not been seen.
final class DeviceWatch: Sendable {
    /// Where the DNS pipeline notes each query's device.
    let sightings = DeviceSightings()
    private let neighbours: (any NeighbourLookup)?
    /// Reads the pipeline's clock: monotonic nanoseconds.
    private let monotonic: @Sendable () -> UInt64
    private let flagged = Mutex<Set<String>>([])
    /// Devices not seen for a week are forgotten.
    private static let forgetAfterNanoseconds: UInt64 = 7 * 86_400 * 1_000_000_000

    init(neighbours: (any NeighbourLookup)?, monotonic: @escaping @Sendable () -> UInt64) {
        self.neighbours = neighbours
        self.monotonic = monotonic
    }

    /// One device as seen at a moment.
    struct Seen {
        let client: QueryClient
        /// Policy time since it last asked.
        let idle: Duration
        /// Set while it has protection off.
        let protectionOff: Bool

        var name: String { DeviceWatch.name(of: client) }
    }

    /// A device by its MAC address when known, else its address.
    static func name(of client: QueryClient) -> String { client.mac?.description ?? client.addressText }

    /// Every device seen, with how long ago in policy time (`scale` times real time).
    func seen(scale: Double) -> [Seen] {
        let now = monotonic()
        let forgetBefore = now > Self.forgetAfterNanoseconds ? now - Self.forgetAfterNanoseconds : 0
        let off = flagged.withLock { $0 }
        return sightings.all(forgetBefore: forgetBefore).map { sighting in
            let real = Double(now >= sighting.lastSeen ? now - sighting.lastSeen : 0) / 1_000_000
            return Seen(
                client: sighting.client, idle: .milliseconds(Int64(real * scale)),
                protectionOff: off.contains(DeviceWatch.name(of: sighting.client)))
        }.sorted { ($0.client.person, $0.name) < ($1.client.person, $1.name) }
    }

    /// Flags the devices that turned protection off and clears those that ask again. `guards` tells
    /// whether a person (by number) has guarded apps; `note` logs a change for that person.
    func check(
        after limit: Duration, scale: Double, guards: (Int) -> Bool,
        note: (_ person: Int, _ off: Bool, _ detail: String) -> Void
    ) {
        for device in seen(scale: scale) {
            if device.idle <= limit {
                guard device.protectionOff else { continue }
                flagged.withLock { _ = $0.remove(device.name) }
                note(device.client.person, false, "device \(device.name) asks lockr again: protection back")
            } else if !device.protectionOff, guards(device.client.person), let neighbours, neighbours.isReadable,
                neighbours.holds(mac: device.client.mac, address: device.client.address)
            {
                flagged.withLock { _ = $0.insert(device.name) }
                note(
                    device.client.person, true,
                    "device \(device.name) has not asked lockr for \(device.idle.spoken) but is still on the network: "
                        + "protection off (another resolver, or its own encrypted DNS?)")
            }
        }
    }

    /// Each device as the API shows it; `person` names a person's number, `calendar` their clock.
    func bodies(
        after limit: Duration, scale: Double, now: Instant, person: (Int) -> (name: String, calendar: DayCalendar)
    ) -> [DeviceBody] {
        seen(scale: scale).map { device in
            let (name, calendar) = person(device.client.person)
            let state: String
            var note: String?
            if device.protectionOff {
                state = "protection_off"
                note = "protection off: not asking lockr for \(device.idle.spoken) while on the network"
            } else if device.idle > limit {
                state = "not_seen"
                note = "not seen for \(device.idle.spoken)"
            } else {
                state = "ok"
            }
            return DeviceBody(
                person: name, address: device.client.addressText, mac: device.client.mac?.description,
                identifiedBy: device.client.identifiedBy.rawValue,
                lastSeen: TimeBody(now - device.idle, now: now, calendar: calendar, dated: true),
                state: state, note: note)
        }
    }
}
