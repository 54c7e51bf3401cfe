import DNSProxy
import DNSWire
import Foundation
import LockrAPI
import LockrControl
import LockrPolicy
import LockrStore
import Synchronization

/// Which devices asked lately, and which of them stopped asking lockr while still on the network.
///
/// A device that was seen and then asks nothing for longer than `protection-off-after` while its
/// person has guarded apps is probed (`NeighbourPresence.probe`: the kernel asks for it by ARP or
/// NDP); when the kernel then confirms it, it is still on the network and has "protection off": it
/// may have switched resolver or turned on its own encrypted DNS. That is logged once per episode
/// in its person's events and cleared when it asks again. A device that does not answer the probe,
/// or that lockr cannot probe (no neighbour table, or not on lockr's links), is only "not seen".
final class DeviceWatch: Sendable {
    /// Where the DNS pipeline notes each query's device.
    let sightings = DeviceSightings()
    private let neighbours: (any NeighbourPresence)?
    /// Reads the pipeline's clock: monotonic nanoseconds, the neighbour table's too.
    private let monotonic: @Sendable () -> UInt64
    private let watching = Mutex(Watching())
    /// Devices not seen for a week are forgotten.
    private static let forgetAfterNanoseconds: UInt64 = 7 * 86_400 * 1_000_000_000
    /// How often an idle device that has not answered is probed again, in real nanoseconds.
    private static let probeEveryNanoseconds: UInt64 = 10_000_000_000

    /// The devices flagged, and when idle ones were last probed, by name.
    private struct Watching {
        var flagged: Set<String> = []
        var probed: [String: UInt64] = [:]
    }

    init(neighbours: (any NeighbourPresence)?, monotonic: @escaping @Sendable () -> UInt64) {
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
        let off = watching.withLock { $0.flagged }
        return sightings.all(forgetBefore: forgetBefore).map { sighting in
            let real = Double(now >= sighting.lastSeen ? now - sighting.lastSeen : 0) / 1_000_000
            return Seen(
                client: sighting.client, idle: .milliseconds(Int64(real * scale)),
                protectionOff: off.contains(DeviceWatch.name(of: sighting.client)))
        }.sorted { ($0.client.person, $0.name) < ($1.client.person, $1.name) }
    }

    /// What to do about an idle device the neighbour table holds.
    private enum Step { case flag, probe, wait }

    /// Flags the devices that turned protection off and clears those that ask again; probes the
    /// idle ones it has not heard from since. `guards` tells whether a person (by number) has
    /// guarded apps; `note` logs a change for that person.
    func check(
        after limit: Duration, scale: Double, guards: (Int) -> Bool,
        note: (_ person: Int, _ off: Bool, _ detail: String) -> Void
    ) {
        for device in seen(scale: scale) {
            let (client, name) = (device.client, device.name)
            if device.idle <= limit {
                let wasOff = watching.withLock { watching in
                    watching.probed[name] = nil
                    return watching.flagged.remove(name) != nil
                }
                if wasOff { note(client.person, false, "device \(name) asks lockr again: protection back") }
                continue
            }
            guard !device.protectionOff, guards(client.person), let neighbours, neighbours.isReadable else { continue }
            // Only a device the table holds can be probed; one that answers after a probe is there.
            guard let confirmed = neighbours.lastConfirmed(mac: client.mac, address: client.address) else { continue }
            let now = monotonic()
            let step = watching.withLock { watching -> Step in
                if let probed = watching.probed[name], confirmed > probed {
                    watching.flagged.insert(name)
                    watching.probed[name] = nil
                    return .flag
                }
                guard watching.probed[name].map({ now - $0 >= Self.probeEveryNanoseconds }) ?? true else {
                    return .wait
                }
                watching.probed[name] = now
                return .probe
            }
            switch step {
            case .flag:
                note(
                    client.person, true,
                    "device \(name) has not asked lockr for \(device.idle.spoken) but is still on the network: "
                        + "protection off (another resolver, or its own encrypted DNS?)")
            case .probe: neighbours.probe(mac: client.mac, address: client.address)
            case .wait: break
            }
        }
    }

    /// The devices seen, to keep across a restart: `person` names a person's number.
    func stored(person: (Int) -> String) -> [StoredDevice] {
        let now = monotonic()
        let wall = Date()
        return sightings.all().map { sighting in
            let ago = Double(now >= sighting.lastSeen ? now - sighting.lastSeen : 0) / 1e9
            return StoredDevice(
                address: sighting.client.addressText, mac: sighting.client.mac?.description,
                clientID: sighting.client.clientID, person: person(sighting.client.person),
                identifiedBy: sighting.client.identifiedBy.rawValue,
                lastSeen: wall.addingTimeInterval(-ago))
        }
    }

    /// Puts back the devices kept before a restart, each as long ago as it was seen; `person` gives
    /// the number of a person by name (nil when they are gone: the device is the default person's
    /// until it asks again).
    func restore(_ devices: [StoredDevice], person: (String) -> Int?) {
        let now = monotonic()
        let wall = Date()
        sightings.restore(
            devices.compactMap { device in
                guard let bytes = IPAddressBytes.parse(device.address) else { return nil }
                let address = IPAddressBytes.number(bytes)
                let ago = UInt64(max(0, wall.timeIntervalSince(device.lastSeen)) * 1e9)
                let client = QueryClient(
                    address: address, mac: device.mac.flatMap(MACAddress.init), clientID: device.clientID,
                    person: person(device.person) ?? 0,
                    identifiedBy: IdentifiedBy(rawValue: device.identifiedBy) ?? .sourceAddress)
                return DeviceSightings.Sighting(client: client, lastSeen: now > ago ? now - ago : 0)
            })
    }

    /// Each device as the API shows it; `person` names a person's number, `calendar` their clock.
    func bodies(
        after limit: Duration, scale: Double, now: Instant, person: (Int) -> (name: String, calendar: DayCalendar)
    ) -> [Components.Schemas.DeviceBody] {
        seen(scale: scale).map { device in
            let (name, calendar) = person(device.client.person)
            let state: Components.Schemas.DeviceState
            var note: String?
            if device.protectionOff {
                state = .protectionOff
                note = "protection off: not asking lockr for \(device.idle.spoken) while on the network"
            } else if device.idle > limit {
                state = .notSeen
                note = "not seen for \(device.idle.spoken)"
            } else {
                state = .ok
            }
            return Components.Schemas.DeviceBody(
                person: name, address: device.client.addressText, mac: device.client.mac?.description,
                clientId: device.client.clientID, identifiedBy: device.client.identifiedBy.rawValue,
                lastSeen: Components.Schemas.TimeBody(now - device.idle, now: now, calendar: calendar, dated: true),
                state: state, note: note, fromConfig: false)
        }
    }
}
