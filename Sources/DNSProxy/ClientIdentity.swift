import DNSWire
import NIOCore

/// How lockr told which device asked, most specific first.
public enum IdentifiedBy: String, Sendable {
    /// The ClientID it asked with, over DNS over TLS or HTTPS.
    case clientID = "client-id"
    /// The MAC address a trusted forwarder added (dnsmasq `add-mac`).
    case forwardedMAC = "forwarded-mac"
    /// The client subnet a trusted forwarder added (dnsmasq `add-subnet`, ECS).
    case forwardedSubnet = "forwarded-subnet"
    /// The source address, found in the kernel's neighbour table with its MAC address.
    case neighbourTable = "neighbour-table"
    /// The source address alone.
    case sourceAddress = "source-address"
}

/// Who asked: the device as lockr identified it, and the person it belongs to.
public struct QueryClient: Sendable, Equatable {
    /// The device's address as a 128-bit number (IPv4 mapped into IPv6, like `IPNetwork`): the
    /// forwarded client subnet's when a trusted forwarder sent one, else the source address.
    public let address: UInt128
    public let mac: MACAddress?
    /// The ClientID it asked with, if it did (DNS over TLS or HTTPS).
    public let clientID: String?
    /// The person's number in the household: 0 is the default person (every unmatched device).
    public let person: Int
    public let identifiedBy: IdentifiedBy

    public init(
        address: UInt128, mac: MACAddress? = nil, clientID: String? = nil, person: Int = 0,
        identifiedBy: IdentifiedBy = .sourceAddress
    ) {
        self.address = address
        self.mac = mac
        self.clientID = clientID
        self.person = person
        self.identifiedBy = identifiedBy
    }

    /// Whether it is known by more than an address (a MAC address or a ClientID).
    var isNamed: Bool { mac != nil || clientID != nil }

    /// The address as text ("192.0.2.7", "fd00::1").
    public var addressText: String { IPAddressText.format(address) }
}

/// One entry of a person's `devices`: a MAC address, an address or network, or a ClientID.
public enum DeviceSpec: Sendable, Equatable, CustomStringConvertible {
    case mac(MACAddress)
    case network(IPNetwork)
    case clientID(String)

    /// Reads "aa:bb:cc:dd:ee:ff", "192.168.1.20", "fd00::/64", "id:alice-phone", ...
    public init?(_ text: String) {
        if text.hasPrefix("id:") {
            guard let id = ClientID.read(text.dropFirst(3)) else { return nil }
            self = .clientID(id)
        } else if let mac = MACAddress(text) {
            self = .mac(mac)
        } else if let network = IPNetwork(text) {
            self = .network(network)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .mac(let mac): mac.description
        case .network(let network): network.description
        case .clientID(let id): "id:" + id
        }
    }

    /// Whether it is one device: a MAC address or a single host's address, not a network.
    public var isOneDevice: Bool {
        switch self {
        case .mac, .clientID: true
        case .network(let network): network.hostAddress != nil
        }
    }

    /// As other blockers name a client: the MAC address, a single host's plain address, or the network.
    public var clientName: String {
        switch self {
        case .mac(let mac): mac.description
        case .network(let network): network.hostAddress ?? network.description
        case .clientID(let id): id
        }
    }
}

/// Finds the person of the device that sent a query.
///
/// Most specific first: the ClientID it asked with over DNS over TLS or HTTPS (which it cannot have
/// without being given it, and which holds on any address); then the MAC address a trusted forwarder added (dnsmasq `add-mac`), or, without
/// one, the MAC the neighbour table gives for the address; then the address (the forwarded client
/// subnet's, else the source's) among the people's addresses and networks, the longest prefix
/// winning. EDNS options from any other source are ignored: a device must not pass as another by
/// adding them itself. Without people every query is the default person's, at the cost of reading
/// the source address.
public struct DeviceDirectory: Sendable {
    private let macs: [MACAddress: Int]
    private let clientIDs: [String: Int]
    private let hosts: [UInt128: Int]
    /// Networks shorter than a single address, longest prefix first.
    private let networks: [(network: IPNetwork, person: Int)]
    private let trustedForwarders: [IPNetwork]
    private let neighbours: (any NeighbourLookup)?
    private let isEmpty: Bool

    /// - Parameters:
    ///   - devices: each person's devices, by person number (1 and up; 0 is the default person).
    ///   - trustedForwarders: the sources whose `add-mac` and `add-subnet` options are believed.
    ///   - neighbours: MAC addresses by IP address, when lockr sits on the devices' LAN.
    public init(
        devices: [(device: DeviceSpec, person: Int)] = [], trustedForwarders: [IPNetwork] = [],
        neighbours: (any NeighbourLookup)? = nil
    ) {
        var macs: [MACAddress: Int] = [:]
        var clientIDs: [String: Int] = [:]
        var hosts: [UInt128: Int] = [:]
        var networks: [(IPNetwork, Int)] = []
        for (device, person) in devices {
            switch device {
            case .mac(let mac): macs[mac] = macs[mac] ?? person
            case .clientID(let id): clientIDs[id] = clientIDs[id] ?? person
            case .network(let network) where network.mask == ~0:
                hosts[network.network] = hosts[network.network] ?? person
            case .network(let network): networks.append((network, person))
            }
        }
        self.macs = macs
        self.clientIDs = clientIDs
        self.hosts = hosts
        self.networks = networks.enumerated().sorted {
            ($0.element.0.mask.nonzeroBitCount, -$0.offset) > ($1.element.0.mask.nonzeroBitCount, -$1.offset)
        }.map(\.element)
        self.trustedForwarders = trustedForwarders
        self.neighbours = neighbours
        isEmpty = devices.isEmpty
    }

    /// The device and person that sent `query` from `source`, with `clientID` when it asked with one.
    public func identify(_ query: DNSQuery, source: SocketAddress, clientID: String? = nil) -> QueryClient {
        let sourceAddress = IPAddressBytes.number(of: source) ?? 0
        if let clientID {
            return QueryClient(
                address: sourceAddress, clientID: clientID, person: clientIDs[clientID] ?? 0, identifiedBy: .clientID)
        }
        guard !isEmpty else { return QueryClient(address: sourceAddress) }
        var address = sourceAddress
        var mac: MACAddress?
        var identifiedBy = IdentifiedBy.sourceAddress
        var subnetBits = 128
        if query.edns != nil, trustedForwarders.contains(where: { $0.contains(sourceAddress) }) {
            let forwarded = query.forwardedClient()
            if let subnet = forwarded.subnet {
                address = subnet.address
                subnetBits = Int(subnet.prefixLength) + (subnet.isIPv4 ? 96 : 0)
                identifiedBy = .forwardedSubnet
            }
            if let forwardedMAC = forwarded.mac {
                mac = forwardedMAC
                identifiedBy = .forwardedMAC
            }
        } else if let neighbours, !Self.isLoopback(sourceAddress), let found = neighbours.mac(for: sourceAddress) {
            mac = found
            identifiedBy = .neighbourTable
        }
        if let mac, let person = macs[mac] {
            return QueryClient(address: address, mac: mac, person: person, identifiedBy: identifiedBy)
        }
        return QueryClient(
            address: address, mac: mac, person: person(of: address, bits: subnetBits), identifiedBy: identifiedBy)
    }

    /// Whether `address` is this machine's own (127.0.0.0/8, ::1): never in the neighbour table.
    @inline(__always)
    private static func isLoopback(_ address: UInt128) -> Bool { address == 1 || address >> 24 == 0xFFFF7F }

    /// The person of the device at `address` (IPv4 mapped into IPv6), by its MAC address in the
    /// neighbour table or else the address itself: for a control call from one of the devices.
    public func person(ofAddress address: UInt128) -> Int {
        if let mac = neighbours?.mac(for: address), let person = macs[mac] { return person }
        return person(of: address, bits: 128)
    }

    /// The person of `address`, known to `bits` bits (a forwarded subnet may be shorter than an
    /// address): a listed address, else the longest listed network that holds all of it.
    private func person(of address: UInt128, bits: Int) -> Int {
        if bits == 128, let person = hosts[address] { return person }
        for entry in networks where entry.network.mask.nonzeroBitCount <= bits && entry.network.contains(address) {
            return entry.person
        }
        return 0
    }
}

/// MAC addresses by IP address, from the kernel's neighbour table (read off the hot path).
public protocol NeighbourLookup: Sendable {
    /// The MAC address of the neighbour at `address` (IPv4 mapped into IPv6), if known.
    func mac(for address: UInt128) -> MACAddress?
}

/// Whether a device is still on this machine's links, as the kernel's neighbour table knows.
public protocol NeighbourPresence: Sendable {
    /// Whether the table could be read when it was last read.
    var isReadable: Bool { get }
    /// When the kernel last confirmed the device with `mac` (when known) or at `address` reachable
    /// (an ARP or NDP answer), in monotonic nanoseconds (`NIODeadline.now().uptimeNanoseconds`); nil
    /// when the table does not hold it.
    func lastConfirmed(mac: MACAddress?, address: UInt128) -> UInt64?
    /// Has the kernel check that the device is still there: one datagram to each of its addresses
    /// makes the kernel ask for it (ARP or NDP) when it has not confirmed it lately. An answer shows
    /// in `lastConfirmed` at a later read.
    func probe(mac: MACAddress?, address: UInt128)
}
