import DNSProxy
import DNSWire
import LockrAdapters
import NIOCore

/// The addresses of `[rpz]`, read: where lockr listens, whom it notifies, and who may transfer.
public struct RPZEndpoints: Sendable {
    public let listen: [SocketAddress]
    public let secondaries: [SocketAddress]
    /// The secondaries and `allow-transfer`.
    public let access: AccessControl

    /// Reads `settings`' addresses; throws every one that is not an address, in words, by key.
    public init(_ settings: RPZSettings) throws(RPZAddressProblems) {
        var problems: [(key: String, text: String)] = []
        listen = settings.listen.compactMap { text in
            if let address = AddressText.parse(text, defaultPort: nil) { return address }
            problems.append(("listen", "'\(text)' is not an address (ADDR:PORT or [V6]:PORT)"))
            return nil
        }
        secondaries = settings.secondaries.compactMap { text in
            if let address = AddressText.parse(text, defaultPort: 53) { return address }
            problems.append(("secondaries", "'\(text)' is not an address (ADDR[:PORT])"))
            return nil
        }
        let networks = settings.allowTransfer.compactMap { text in
            if let network = IPNetwork(text) { return network }
            problems.append(("allow-transfer", "'\(text)' is not an address or network (such as 192.168.1.0/24)"))
            return nil
        }
        access = AccessControl(networks: secondaries.compactMap { $0.ipAddress.flatMap(IPNetwork.init) } + networks)
        if let name = settings.tsigKey, WireName.wire(fromPresentation: name).map({ $0.count > 1 }) != true {
            problems.append(("tsig-key", "'\(name)' is not a key name (a domain name, such as lockr-rpz)"))
        }
        guard problems.isEmpty else { throw RPZAddressProblems(problems: problems) }
    }
}

/// Addresses of `[rpz]` that are not addresses, by key.
public struct RPZAddressProblems: Error, Sendable {
    public let problems: [(key: String, text: String)]
}
