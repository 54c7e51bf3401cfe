import Testing

@testable import LockrControl

@Suite struct ServerSentEventsTests {
    @Test func eventsAreReadWhateverPiecesTheyArriveIn() {
        let stream = Array(
            "retry: 3000\n\n: keepalive\n\nid: 7-1\nevent: window_ending\ndata: {\"a\":1}\n\nid: 7-2\r\nevent: locked\r\ndata: one\r\ndata: two\r\n\r\ndata: plain\rdata:no-space\r\r"
                .utf8)
        let expected = [
            ServerSentEvent(id: "7-1", type: "window_ending", data: "{\"a\":1}"),
            ServerSentEvent(id: "7-2", type: "locked", data: "one\ntwo"),
            // The id stays the last one given; an event without a type is a "message".
            ServerSentEvent(id: "7-2", type: "message", data: "plain\nno-space"),
        ]
        for size in [1, 2, 3, 7, stream.count] {
            var reader = ServerSentEventReader()
            var events: [ServerSentEvent] = []
            var start = 0
            while start < stream.count {
                events += reader.read(stream[start..<min(start + size, stream.count)])
                start += size
            }
            #expect(events == expected, "in pieces of \(size)")
        }
    }
}
