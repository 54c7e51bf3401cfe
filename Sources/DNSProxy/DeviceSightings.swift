import DNSWire
import Synchronization

/// The devices that asked lately: who each is and when it last asked. Written on the DNS path for
/// every query (striped locks keyed by device, so event loops rarely wait for one another; nothing
/// is allocated once a device is known), read by the daemon every few seconds.
///
/// Bounded: a stripe that is full forgets its least recently seen unassigned devices (the default
/// person's) to make room, those known only by an address first (a source address can be forged
/// by the thousand; a MAC address from the neighbour table is a device that answered), an eighth
/// of the stripe at a time. Devices assigned to a person are never forgotten for room.
public final class DeviceSightings: Sendable {
    /// One device: as it was identified by its latest query, and when that was (monotonic
    /// nanoseconds, the pipeline's clock).
    public struct Sighting: Sendable, Equatable {
        public let client: QueryClient
        public let lastSeen: UInt64

        public init(client: QueryClient, lastSeen: UInt64) {
            self.client = client
            self.lastSeen = lastSeen
        }
    }

    /// How full the table is and what it had to forget, since the start.
    public struct Counts: Sendable, Equatable {
        public var devices = 0
        /// Unassigned devices forgotten to make room.
        public var evicted = 0
        /// New devices not kept because every device of their stripe is assigned.
        public var dropped = 0

        public init() {}
    }

    /// A device is its ClientID when it asked with one, else its MAC address when one is known (an
    /// IPv6 privacy address changes; the MAC does not), else its address.
    enum Key: Hashable, Sendable {
        case clientID(String)
        case mac(MACAddress)
        case address(UInt128)

        @inline(__always)
        init(_ client: QueryClient) {
            if let id = client.clientID {
                self = .clientID(id)
            } else {
                self = client.mac.map(Key.mac) ?? .address(client.address)
            }
        }
    }

    private struct Table {
        var table: [Key: Sighting] = [:]
        var evicted = 0
        var dropped = 0
    }

    private final class Stripe: Sendable {
        let state = Mutex(Table())
    }

    private let stripes: [Stripe]
    /// Devices kept per stripe: 16 times this in all.
    let stripeCapacity: Int

    /// A table of `capacity` devices (16,384 by default: far more than a household has).
    public init(capacity: Int = 16_384) {
        stripeCapacity = max(8, capacity / 16)
        stripes = (0..<16).map { _ in Stripe() }
    }

    /// The most devices it keeps.
    public var capacity: Int { stripeCapacity * 16 }

    /// Notes that `client` asked at `now`.
    @inline(__always)
    public func record(_ client: QueryClient, now: UInt64) {
        let key = Key(client)
        stripe(of: client).state.withLock { stripe in
            if stripe.table.count >= stripeCapacity, stripe.table[key] == nil, !makeRoom(in: &stripe) {
                stripe.dropped += 1
                return
            }
            stripe.table[key] = Sighting(client: client, lastSeen: now)
        }
    }

    /// Puts back devices seen before a restart (each kept unless a newer sighting of it is there
    /// or its stripe is full of assigned devices).
    public func restore(_ sightings: [Sighting]) {
        for sighting in sightings {
            let client = sighting.client
            let key = Key(client)
            stripe(of: client).state.withLock { stripe in
                guard stripe.table[key] == nil else { return }
                guard stripe.table.count < stripeCapacity || makeRoom(in: &stripe) else { return }
                stripe.table[key] = sighting
            }
        }
    }

    /// Every device seen, dropping those not seen since `forgetBefore`.
    public func all(forgetBefore: UInt64 = 0) -> [Sighting] {
        stripes.flatMap { stripe in
            stripe.state.withLock { stripe in
                if forgetBefore > 0 { stripe.table = stripe.table.filter { $0.value.lastSeen >= forgetBefore } }
                return Array(stripe.table.values)
            }
        }
    }

    /// How full the table is and what it had to forget, since the start.
    public var counts: Counts {
        stripes.reduce(into: Counts()) { counts, stripe in
            stripe.state.withLock { stripe in
                counts.devices += stripe.table.count
                counts.evicted += stripe.evicted
                counts.dropped += stripe.dropped
            }
        }
    }

    @inline(__always)
    private func stripe(of client: QueryClient) -> Stripe {
        let spread = client.clientID.map { UInt64(truncatingIfNeeded: $0.hashValue) }
        return stripes[
            Int(truncatingIfNeeded: (spread ?? client.mac?.value ?? UInt64(truncatingIfNeeded: client.address)) & 15)]
    }

    /// Forgets an eighth of the stripe: its unassigned devices known by address alone first, then
    /// those with a MAC address or ClientID, least recently seen first. False when all are assigned.
    private func makeRoom(in stripe: inout Table) -> Bool {
        let unassigned = stripe.table.filter { $0.value.client.person == 0 }
        guard !unassigned.isEmpty else { return false }
        let oldest = unassigned.sorted {
            ($0.value.client.isNamed ? 1 : 0, $0.value.lastSeen) < ($1.value.client.isNamed ? 1 : 0, $1.value.lastSeen)
        }.prefix(max(1, stripeCapacity / 8))
        for (key, _) in oldest { stripe.table[key] = nil }
        stripe.evicted += oldest.count
        return true
    }
}
