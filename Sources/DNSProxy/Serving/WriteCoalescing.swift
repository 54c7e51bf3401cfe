import NIOCore

/// Gathers the writes made between two flushes into one buffer, placed just after the TLS handler:
/// TLS then seals them as one record, not one per write. An HTTP/2 answer is three writes (the
/// HEADERS frame, the DATA frame's header, its payload) and a read of several requests answers them
/// all before its flush; each record costs its own seal, header and tag, on both ends.
///
/// Gathering copies the bytes, so it stops at `limit` and writes what it has; a lone write goes on
/// as it is.
final class WriteCoalescing: ChannelOutboundHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// The most gathered before it is written on: one full TLS record.
    static let limit = 16_384

    private var gathered: ByteBuffer?
    private var gatheredMany = false
    private var promises: [EventLoopPromise<Void>] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(var buffer) = unwrapOutboundIn(data) else {
            writeGathered(context)
            return context.write(data, promise: promise)
        }
        if let promise { promises.append(promise) }
        guard var into = gathered else {
            gathered = buffer
            return
        }
        gathered = nil
        if !gatheredMany {
            var fresh = context.channel.allocator.buffer(capacity: max(1024, into.readableBytes + buffer.readableBytes))
            fresh.writeBuffer(&into)
            into = fresh
            gatheredMany = true
        }
        into.writeBuffer(&buffer)
        gathered = into
        if into.readableBytes >= Self.limit { writeGathered(context) }
    }

    func flush(context: ChannelHandlerContext) {
        writeGathered(context)
        context.flush()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        gathered = nil
        for promise in promises { promise.fail(ChannelError.ioOnClosedChannel) }
        promises = []
    }

    private func writeGathered(_ context: ChannelHandlerContext) {
        guard let buffer = gathered else { return }
        gathered = nil
        gatheredMany = false
        let promise: EventLoopPromise<Void>?
        switch promises.count {
        case 0: promise = nil
        case 1: promise = promises[0]
        default:
            let all = promises
            promise = context.eventLoop.makePromise()
            promise!.futureResult.whenComplete { result in
                for each in all { each.completeWith(result) }
            }
        }
        promises = []
        context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
    }
}
