import ConfigKit
import DNSProxy
import NIOCore

/// Where lockr takes dnstap from the resolvers it does not stand in front of (`[dnstap]`): each
/// client query they log meters use for the person whose device asked.
public struct DnstapSettings: Sendable, Equatable {
    /// A unix socket path to listen on (unbound's `dnstap-socket-path`, BIND's `dnstap-output
    /// unix`); empty: none.
    public var socket = ""
    /// TCP addresses to listen on (unbound's `dnstap-ip`).
    public var listen: [SocketAddress] = []
    /// Who may send over TCP. Anyone who can send dnstap can spend a person's budget.
    public var allowFrom = AccessControl(networks: [IPNetwork("127.0.0.0/8")!, IPNetwork("::1/128")!])
    /// Writers connected at once, over the socket and TCP together.
    public var maxConnections = 64

    public init() {}

    /// Whether any listener is configured.
    public var enabled: Bool { !socket.isEmpty || !listen.isEmpty }
}

extension DnstapSettings: ConfigSection {
    public static let settings: [Setting<DnstapSettings>] = [
        Setting(
            "socket", \.socket, restartOnly: true,
            "A unix socket to take dnstap on (unbound's dnstap-socket-path, BIND's dnstap-output unix), such as /run/lockr/dnstap.sock; every local user may write to it, as to a TCP port on loopback. Empty: none. See \"Use in: dnstap\" in fleet.md.",
            read: { reader, key in
                guard let path = reader.string(key) else { return nil }
                guard path.isEmpty || path.hasPrefix("/") else {
                    reader.problem(key, "expected an absolute path such as /run/lockr/dnstap.sock, not '\(path)'")
                    return nil
                }
                guard path.utf8.count < 108 else {
                    reader.problem(key, "a unix socket's path is at most 107 bytes, not \(path.utf8.count)")
                    return nil
                }
                return path
            },
            write: { quotedConfigString($0) }),
        .addresses(
            "listen", \.listen, defaultPort: 6000, restartOnly: true,
            "TCP addresses to take dnstap on (unbound's dnstap-ip; without TLS), port 6000 unless given."),
        .networks(
            "allow-from", \.allowFrom, whenEmpty: DnstapSettings().allowFrom, restartOnly: true,
            "Who may send dnstap over TCP (CIDR); anyone who can send it can spend a person's budget. Empty: loopback only."
        ),
        .integer(
            "max-connections", \.maxConnections, in: 1...4096, restartOnly: true,
            "Resolvers sending dnstap at once, over the socket and TCP together; more are turned away."),
    ]
}
