import NIOCore

/// Splits a TCP byte stream into DNS messages: each is preceded by its length in two bytes (RFC 1035
/// 4.2.2, RFC 7766). A zero or oversized length is a protocol error that closes the connection.
struct DNSFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = [UInt8]

    let maxMessageSize: Int

    struct OversizedFrame: Error {}

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt16.self) else { return .needMoreData }
        guard length > 0, Int(length) <= maxMessageSize else { throw OversizedFrame() }
        guard buffer.readableBytes >= 2 + Int(length) else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: 2)
        context.fireChannelRead(wrapInboundOut(buffer.readBytes(length: Int(length))!))
        return .continue
    }
}

/// Prefixes each outgoing message with its two-byte length.
struct DNSFrameEncoder: MessageToByteEncoder {
    typealias OutboundIn = [UInt8]

    func encode(data: [UInt8], out: inout ByteBuffer) throws {
        out.writeInteger(UInt16(data.count))
        out.writeBytes(data)
    }
}
