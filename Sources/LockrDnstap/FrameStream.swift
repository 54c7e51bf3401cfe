import NIOCore

/// One frame of a Frame Streams connection ("fstrm", the framing dnstap travels in): a data
/// frame's payload, or a control frame.
///
/// On the wire a data frame is a 32-bit big-endian length and that many bytes; a control frame is
/// a zero length (the escape), its own 32-bit length, and the control payload.
public enum FrameStreamFrame: Equatable, Sendable {
    case data(ByteBuffer)
    case control(FrameStreamControl)

    /// The longest data frame read: a dnstap message carries at most a query and an answer of
    /// 64 KiB each.
    public static let maximumDataLength = 256 * 1024

    /// The next whole frame at the start of `buffer`, consumed; nil (nothing consumed) while it is
    /// not all there. Throws on a length over the limits or a malformed control frame.
    public static func read(
        from buffer: inout ByteBuffer, maximumDataLength: Int = maximumDataLength
    ) throws(FrameStreamError) -> FrameStreamFrame? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) else { return nil }
        if length > 0 {
            guard length <= maximumDataLength else { throw .frameTooLong(Int(length)) }
            guard buffer.readableBytes >= 4 + Int(length) else { return nil }
            buffer.moveReaderIndex(forwardBy: 4)
            return .data(buffer.readSlice(length: Int(length))!)
        }
        guard let controlLength = buffer.getInteger(at: buffer.readerIndex + 4, as: UInt32.self) else { return nil }
        guard controlLength <= FrameStreamControl.maximumLength else { throw .controlTooLong(Int(controlLength)) }
        guard buffer.readableBytes >= 8 + Int(controlLength) else { return nil }
        buffer.moveReaderIndex(forwardBy: 8)
        var payload = buffer.readSlice(length: Int(controlLength))!
        return .control(try FrameStreamControl(reading: &payload))
    }

    /// The frame as it goes on the wire.
    public func write(into buffer: inout ByteBuffer) {
        switch self {
        case .data(let payload):
            buffer.writeInteger(UInt32(payload.readableBytes))
            buffer.writeImmutableBuffer(payload)
        case .control(let control): control.write(into: &buffer)
        }
    }
}

/// A Frame Streams control frame: its kind and the content types it names.
public struct FrameStreamControl: Equatable, Sendable {
    /// The kinds of control frame. A bidirectional writer sends READY, the reader ACCEPT; then the
    /// writer sends START, the data, and STOP, which the reader answers with FINISH. A
    /// unidirectional writer (and a capture file) starts with START and ends with STOP.
    public enum Kind: UInt32, Sendable {
        case accept = 1, start = 2, stop = 3, ready = 4, finish = 5
    }

    public var kind: Kind
    /// The content types named ("protobuf:dnstap.Dnstap"); at most one in START.
    public var contentTypes: [String]

    /// fstrm's limit on a control frame's payload.
    static let maximumLength = 512
    /// The one field type Frame Streams defines.
    private static let contentTypeField: UInt32 = 1

    public init(_ kind: Kind, contentTypes: [String] = []) {
        self.kind = kind
        self.contentTypes = contentTypes
    }

    /// Reads a control payload (after the escape and the length). Fields of kinds other than
    /// content type are skipped.
    init(reading payload: inout ByteBuffer) throws(FrameStreamError) {
        guard let raw = payload.readInteger(as: UInt32.self) else { throw .malformedControl("no control type") }
        guard let kind = Kind(rawValue: raw) else { throw .unknownControl(raw) }
        var contentTypes: [String] = []
        while payload.readableBytes > 0 {
            guard let field = payload.readInteger(as: UInt32.self), let length = payload.readInteger(as: UInt32.self)
            else { throw .malformedControl("a field cut short") }
            guard length <= payload.readableBytes, let bytes = payload.readSlice(length: Int(length)) else {
                throw .malformedControl("a field of \(length) bytes in \(payload.readableBytes)")
            }
            if field == Self.contentTypeField { contentTypes.append(String(buffer: bytes)) }
        }
        self.kind = kind
        self.contentTypes = contentTypes
    }

    /// The whole frame, escape and length included.
    public func write(into buffer: inout ByteBuffer) {
        let length = 4 + contentTypes.reduce(0) { $0 + 8 + $1.utf8.count }
        buffer.writeInteger(UInt32(0))
        buffer.writeInteger(UInt32(length))
        buffer.writeInteger(kind.rawValue)
        for type in contentTypes {
            buffer.writeInteger(Self.contentTypeField)
            buffer.writeInteger(UInt32(type.utf8.count))
            buffer.writeString(type)
        }
    }
}

/// Why a Frame Streams connection was closed.
public enum FrameStreamError: Error, Equatable, Sendable, CustomStringConvertible {
    case frameTooLong(Int)
    case controlTooLong(Int)
    case unknownControl(UInt32)
    case malformedControl(String)
    /// A frame that does not belong where it came ("data before START").
    case outOfOrder(String)
    /// The writer offers no content type lockr reads.
    case notDnstap([String])

    public var description: String {
        switch self {
        case .frameTooLong(let length):
            "a data frame of \(length) bytes (at most \(FrameStreamFrame.maximumDataLength))"
        case .controlTooLong(let length):
            "a control frame of \(length) bytes (at most \(FrameStreamControl.maximumLength))"
        case .unknownControl(let kind): "an unknown control frame (type \(kind))"
        case .malformedControl(let what): "a malformed control frame: \(what)"
        case .outOfOrder(let what): "a frame out of order: \(what)"
        case .notDnstap(let types):
            "content type \(types.map { "\"\($0)\"" }.joined(separator: ", ")), not \"\(FrameStreamSession.dnstapContentType)\""
        }
    }
}

/// Cuts a connection's bytes into frames for the channel's next handler.
struct FrameStreamDecoder: ByteToMessageDecoder {
    typealias InboundOut = FrameStreamFrame

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try FrameStreamFrame.read(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(
        context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
    ) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A frame cut short by the close is dropped: the writer went away mid-frame.
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
