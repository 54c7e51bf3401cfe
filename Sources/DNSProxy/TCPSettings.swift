import ConfigKit
import NIOCore

/// DNS over TCP's limits (`[tcp]`).
public struct TCPSettings: Sendable, Equatable {
    /// TCP connections allowed at once, shared fairly among sources (`TCPConnectionTable`).
    public var maxConnections: Int = 256
    /// A TCP connection that completes no query for this long (counted from its start, its last
    /// query or its last answer) is closed, however many bytes it trickles in.
    public var idleTimeout: TimeAmount = .seconds(10)

    /// Every setting at its default.
    public static let defaults = TCPSettings()
}

extension TCPSettings: ConfigSection {
    public static let settings: [Setting<TCPSettings>] = [
        .integer(
            "max-connections", \.maxConnections, in: 1...100_000, restartOnly: true,
            "TCP connections at once, shared fairly among addresses (see \"What lockr answers\" in dns.md)."),
        .integer(
            "idle-timeout-ms", \.idleTimeout, in: 100...600_000, as: { .milliseconds(Int64($0)) },
            shown: { Int($0.nanoseconds / 1_000_000) }, restartOnly: true,
            "A TCP connection that completes no query for this long is closed, milliseconds."),
    ]
}
