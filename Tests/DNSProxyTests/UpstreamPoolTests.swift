import Logging
import NIOCore
import Synchronization
import Testing

@testable import DNSProxy

/// Log lines kept in memory, for tests (never `LoggingSystem.bootstrap`).
final class MemoryLog: LogHandler, @unchecked Sendable {
    let lines = Mutex<[(level: Logger.Level, message: String)]>([])
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { lines.withLock { $0.append((event.level, "\(event.message)")) } }

    var logger: Logger { Logger(label: "test") { _ in self } }
}

@Suite struct UpstreamPoolTests {
    @Test func anUpstreamGoingDownAndComingBackIsLoggedOnceEach() throws {
        let log = MemoryLog()
        let servers = [try SocketAddress(ipAddress: "127.0.0.1", port: 53), try SocketAddress(ipAddress: "::1", port: 53)]
        let pool = UpstreamPool(servers: servers, logger: log.logger)
        let second: UInt64 = 1_000_000_000
        for attempt in 1...5 { pool.recordFailure(0, now: UInt64(attempt) * second, reason: "no answer within 1000 ms") }
        #expect(log.lines.withLock { $0.map(\.message) } == ["upstream down"])
        #expect(log.lines.withLock { $0[0].level } == .warning)
        #expect(!pool.allDown(now: 5 * second), "the other upstream still answers")
        for attempt in 1...3 { pool.recordFailure(1, now: UInt64(5 + attempt) * second, reason: "answered serverFailure") }
        #expect(pool.allDown(now: 9 * second))
        // Down, but with no failure for the penalty time: worth trying again, no longer known down.
        #expect(!pool.allDown(now: 40 * second))
        pool.recordSuccess(0, rttMicroseconds: 800, now: 12 * second)
        #expect(!pool.allDown(now: 12 * second))
        #expect(log.lines.withLock { $0.map(\.message) } == ["upstream down", "upstream down", "upstream answering again"])
        pool.recordSuccess(0, rttMicroseconds: 800, now: 13 * second)
        #expect(log.lines.withLock { $0.count } == 3)
    }
}
