import NIOHTTP2

/// The connection's receive window, given back as it is used: NIO's `NIOHTTP2Handler` without a
/// channel per stream leaves that to the handler after it. Refilled to 65,535 bytes once it is
/// down to half.
enum HTTP2ConnectionWindow {
    static let size = 65_535

    /// The WINDOW_UPDATE to send after `event`, if the connection's window ran low.
    static func refill(after event: NIOHTTP2WindowUpdatedEvent) -> HTTP2Frame? {
        guard event.streamID == .rootStream, let left = event.inboundWindowSize, left <= size / 2 else { return nil }
        return HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: size - left))
    }
}
