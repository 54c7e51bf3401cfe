import NIOCore
import NIOEmbedded
import Testing

@testable import DNSProxy

/// The writes between two flushes leave as one, in order, with every promise kept.
@Suite struct WriteCoalescingTests {
    func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WriteCoalescing())
        return channel
    }

    func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    @Test func theWritesBeforeAFlushLeaveAsOneBufferInOrder() throws {
        let channel = try channel()
        let promises = (0..<3).map { _ in channel.eventLoop.makePromise(of: Void.self) }
        for (text, promise) in zip(["HEADERS", "DATA", "payload"], promises) {
            channel.write(buffer(text), promise: promise)
        }
        channel.flush()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == buffer("HEADERSDATApayload"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
        for promise in promises { try promise.futureResult.wait() }
    }

    @Test func aLoneWriteLeavesAsItIsAndEachFlushStartsAfresh() throws {
        let channel = try channel()
        channel.writeAndFlush(buffer("one"), promise: nil)
        channel.write(buffer("two"), promise: nil)
        channel.write(buffer("three"), promise: nil)
        channel.flush()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == buffer("one"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == buffer("twothree"))
    }

    @Test func aFullRecordIsWrittenOnBeforeTheFlush() throws {
        let channel = try channel()
        let half = String(repeating: "a", count: WriteCoalescing.limit / 2)
        channel.write(buffer(half), promise: nil)
        channel.write(buffer(half), promise: nil)
        channel.write(buffer("tail"), promise: nil)
        channel.flush()
        #expect(try channel.readOutbound(as: ByteBuffer.self) == buffer(half + half))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == buffer("tail"))
    }

    @Test func writesNotFlushedFailWhenTheConnectionCloses() throws {
        let channel = try channel()
        let first = channel.eventLoop.makePromise(of: Void.self)
        let second = channel.eventLoop.makePromise(of: Void.self)
        channel.write(buffer("a"), promise: first)
        channel.write(buffer("b"), promise: second)
        _ = try channel.finish()
        #expect(throws: ChannelError.self) { try first.futureResult.wait() }
        #expect(throws: ChannelError.self) { try second.futureResult.wait() }
    }
}
