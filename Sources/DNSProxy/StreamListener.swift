import NIOCore
import NIOPosix

/// A listener of connections (plain TCP, DNS over TLS, DNS over HTTPS): each connection from a
/// source the access rules refuse is closed at once; the rest must get a slot of `table`, shared by
/// all of them, before `configure` sets the connection up with its loop's context, after a
/// `PromptAcknowledgement`.
enum StreamListener {
    static func bind(
        _ address: SocketAddress, table: TCPConnectionTable, contexts: [LoopContext],
        group: MultiThreadedEventLoopGroup,
        configure: @escaping @Sendable (Channel, LoopContext, TCPActivity) throws -> Void
    ) async throws -> Channel {
        let byLoop = Dictionary(uniqueKeysWithValues: contexts.map { (ObjectIdentifier($0.eventLoop), $0) })
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                guard let context = byLoop[ObjectIdentifier(channel.eventLoop)], let remote = channel.remoteAddress,
                    context.pipeline.access.allows(remote)
                else { return channel.close() }
                let activity = TCPActivity()
                guard table.admit(channel, from: remote.ipAddress ?? "", activity: activity) else {
                    return channel.close()
                }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PromptAcknowledgement())
                    try configure(channel, context, activity)
                }
            }
            .bind(to: address)
            .get()
    }
}
