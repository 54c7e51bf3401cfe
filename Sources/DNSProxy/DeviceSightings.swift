import DNSWire
import Synchronization

/// The devices that asked lately: who each is and when it last asked. Written on the DNS path for
/// every query (striped locks keyed by device, so event loops rarely wait for one another; nothing
/// is allocated once a device is known), read by the daemon every few seconds.
public final class DeviceSightings: Sendable {
    /// One device: as it was identified by its latest query, and when that was (monotonic
    /// nanoseconds, the pipeline's clock).
    public struct Sighting: Sendable, Equatable {
        public let client: QueryClient
        public let lastSeen: UInt64
    }

    /// A device is its MAC address when one is known (an IPv6 privacy address changes; the MAC does
    /// not), else its address.
    enum Key: Hashable, Sendable {
        case mac(MACAddress)
        case address(UInt128)
    }

    private final class Stripe: Sendable {
        let table = Mutex<[Key: Sighting]>([:])
    }

    private let stripes: [Stripe]
    /// Devices kept per stripe; a network with more devices than 16 times this is not a household,
    /// and the ones beyond it are not listed.
    private static let stripeCapacity = 1024

    public init() { stripes = (0..<16).map { _ in Stripe() } }

    /// Notes that `client` asked at `now`.
    @inline(__always)
    public func record(_ client: QueryClient, now: UInt64) {
        let key: Key = client.mac.map(Key.mac) ?? .address(client.address)
        let stripe = stripes[Int(truncatingIfNeeded: (client.mac?.value ?? UInt64(truncatingIfNeeded: client.address)) & 15)]
        stripe.table.withLock { table in
            if table.count >= Self.stripeCapacity, table[key] == nil { return }
            table[key] = Sighting(client: client, lastSeen: now)
        }
    }

    /// Every device seen, dropping those not seen since `forgetBefore`.
    public func all(forgetBefore: UInt64 = 0) -> [Sighting] {
        stripes.flatMap { stripe in
            stripe.table.withLock { table in
                if forgetBefore > 0 { table = table.filter { $0.value.lastSeen >= forgetBefore } }
                return Array(table.values)
            }
        }
    }
}
