import NIOCore
import Testing

@testable import LockrDnstap

/// Frame Streams framing and the reader's side of its handshake.
struct FrameStreamTests {
    /// Every frame of `buffer`, read as bytes arrive in pieces of `step`.
    func frames(of stream: ByteBuffer, arrivingIn step: Int) throws -> [FrameStreamFrame] {
        var pending = ByteBuffer()
        var read: [FrameStreamFrame] = []
        var rest = stream
        while rest.readableBytes > 0 {
            var piece = rest.readSlice(length: min(step, rest.readableBytes))!
            pending.writeBuffer(&piece)
            while let frame = try FrameStreamFrame.read(from: &pending) { read.append(frame) }
        }
        #expect(pending.readableBytes == 0)
        return read
    }

    @Test func aStreamReadsTheSameHoweverItsBytesArrive() throws {
        let messages = [DnstapMessages.frame(name: "a.tiktok.com"), DnstapMessages.frame(name: "b.tiktok.com")]
        let stream = DnstapMessages.stream(messages, bidirectional: true)
        let whole = try frames(of: stream, arrivingIn: stream.readableBytes)
        let types = [FrameStreamSession.dnstapContentType]
        #expect(
            whole == [
                .control(FrameStreamControl(.ready, contentTypes: types)),
                .control(FrameStreamControl(.start, contentTypes: types)),
                .data(messages[0]), .data(messages[1]), .control(FrameStreamControl(.stop)),
            ])
        for step in 1...9 { #expect(try frames(of: stream, arrivingIn: step) == whole, "in pieces of \(step)") }
    }

    @Test func lengthsOverTheLimitsAndMalformedControlFramesAreRefused() {
        var big = ByteBuffer()
        big.writeInteger(UInt32(FrameStreamFrame.maximumDataLength + 1))
        #expect(throws: FrameStreamError.frameTooLong(FrameStreamFrame.maximumDataLength + 1)) {
            try FrameStreamFrame.read(from: &big)
        }
        var control = ByteBuffer(bytes: [0, 0, 0, 0, 0, 0, 2, 1])
        #expect(throws: FrameStreamError.controlTooLong(513)) { try FrameStreamFrame.read(from: &control) }
        var unknown = ByteBuffer(bytes: [0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 9])
        #expect(throws: FrameStreamError.unknownControl(9)) { try FrameStreamFrame.read(from: &unknown) }
        // START naming a content type of 200 bytes in a frame of 16.
        var cut = ByteBuffer(bytes: [0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 200])
        #expect(throws: FrameStreamError.malformedControl("a field of 200 bytes in 0")) {
            try FrameStreamFrame.read(from: &cut)
        }
        var empty = ByteBuffer(bytes: [0, 0, 0, 0, 0, 0, 0, 0])
        #expect(throws: FrameStreamError.malformedControl("no control type")) {
            try FrameStreamFrame.read(from: &empty)
        }
    }

    @Test func aBidirectionalWriterIsAcceptedAndFinished() throws {
        var session = FrameStreamSession()
        let types = [FrameStreamSession.dnstapContentType]
        let ready = try session.receive(FrameStreamControl(.ready, contentTypes: ["protobuf:other", types[0]]))
        #expect(ready == .init(reply: FrameStreamControl(.accept, contentTypes: types), close: false))
        #expect(throws: FrameStreamError.outOfOrder("data while opening")) { try session.receiveData() }
        #expect(try session.receive(FrameStreamControl(.start, contentTypes: types)) == .init(reply: nil, close: false))
        try session.receiveData()
        #expect(
            try session.receive(FrameStreamControl(.stop)) == .init(reply: FrameStreamControl(.finish), close: true))
    }

    @Test func aUnidirectionalWriterStartsAndStopsWithoutReplies() throws {
        var session = FrameStreamSession()
        #expect(try session.receive(FrameStreamControl(.start)) == .init(reply: nil, close: false))
        #expect(session.started)
        #expect(try session.receive(FrameStreamControl(.stop)) == .init(reply: nil, close: true))
    }

    @Test func anotherContentTypeOrAFrameOutOfOrderEndsTheSession() {
        var offered = FrameStreamSession()
        #expect(throws: FrameStreamError.notDnstap(["protobuf:other"])) {
            try offered.receive(FrameStreamControl(.ready, contentTypes: ["protobuf:other"]))
        }
        var started = FrameStreamSession()
        #expect(throws: FrameStreamError.notDnstap(["text/plain"])) {
            try started.receive(FrameStreamControl(.start, contentTypes: ["text/plain"]))
        }
        var twice = FrameStreamSession()
        _ = try? twice.receive(FrameStreamControl(.start))
        #expect(throws: FrameStreamError.outOfOrder("start while started")) {
            try twice.receive(FrameStreamControl(.start))
        }
        var early = FrameStreamSession()
        #expect(throws: FrameStreamError.outOfOrder("stop while opening")) {
            try early.receive(FrameStreamControl(.stop))
        }
    }
}
