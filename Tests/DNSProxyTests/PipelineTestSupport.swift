import DNSProxy
import NIOCore

extension QueryPipeline {
    /// `begin` for tests that do not look at what the query log would be told.
    func begin(packet: [UInt8], client: SocketAddress, transport: Transport, now: UInt64) -> PipelineStep {
        var note = QueryNote()
        return begin(packet: packet, client: client, transport: transport, now: now, note: &note)
    }
}
