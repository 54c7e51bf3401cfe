import DNSProxy
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import LockrDnstap

/// fstrm-bin's replayer.
private let fstrmReplay = "/usr/bin/fstrm_replay"

/// The listener on real sockets, with libfstrm's own writer (`fstrm_replay`, the Frame Streams
/// library unbound and BIND use) and with writers that misbehave.
@Suite(.serialized)
struct DnstapListenerTests {

    /// What the sink was handed.
    final class Taken: Sendable {
        let sightings = Mutex<[DnstapSighting]>([])
        /// Meters the questions for tiktok.com.
        func sink(_ batch: [DnstapSighting]) -> Int {
            sightings.withLock { $0 += batch }
            return batch.filter { $0.wireName.count == 12 }.count
        }
        var count: Int { sightings.withLock { $0.count } }
    }

    func withListener(
        _ settings: (String) -> DnstapSettings = { path in
            var settings = DnstapSettings()
            settings.socket = path
            return settings
        }, startTimeout: TimeAmount = .seconds(10),
        _ body: (DnstapListener, String, Taken) async throws -> Void
    ) async throws {
        let directory = NSTemporaryDirectory() + "lockr-dnstap-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/dnstap.sock"
        let taken = Taken()
        let listener = try await DnstapListener.start(
            settings(path), startTimeout: startTimeout, group: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "test"), sink: taken.sink)
        do {
            try await body(listener, path, taken)
        } catch {
            await listener.stop()
            throw error
        }
        await listener.stop()
    }

    /// Writes `frames` as a capture file (unidirectional, as fstrm_capture writes) and has
    /// fstrm_replay send it to `path`, READY and ACCEPT first.
    func replay(_ frames: [ByteBuffer], to path: String) throws {
        let file = path + ".fstrm"
        let stream = DnstapMessages.stream(frames, bidirectional: false)
        try Data(stream.readableBytesView).write(to: URL(fileURLWithPath: file))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: fstrmReplay)
        process.arguments = ["-t", FrameStreamSession.dnstapContentType, "-r", file, "-u", path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// Connects to the socket, sends `bytes`, and says whether lockr closed the connection
    /// within `seconds`.
    func closedAfterSending(_ bytes: [UInt8], to path: String, within seconds: Int64 = 5) async throws -> Bool {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path).get()
        if !bytes.isEmpty { try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get() }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while channel.isActive, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        defer { channel.close(promise: nil) }
        return !channel.isActive
    }

    func waitFor(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: fstrmReplay), "needs fstrm-bin"))
    func libfstrmsWriterIsAcceptedAndEveryClientQuestionHandedOn() async throws {
        try await withListener { listener, path, taken in
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o666, "resolvers, running as users of their own, may connect")
            var frames: [ByteBuffer] = []
            for index in 0..<1000 {
                frames.append(DnstapMessages.frame(name: index % 2 == 0 ? "tiktok.com" : "www.youtube.com"))
                if index % 100 == 0 { frames.append(DnstapMessages.frame(.resolverQuery)) }
            }
            try replay(frames, to: path)
            try await waitFor { listener.counters.snapshot.messages == frames.count }
            let figures = listener.counters.snapshot
            #expect(figures.messages == 1010)
            #expect(taken.count == 1000, "the resolver's own queries are not the clients'")
            #expect(figures.metered == 500)
            #expect(figures.malformed == 0 && figures.broken == 0 && figures.refused == 0)
            #expect(figures.lastMessage != nil)
            try await waitFor { listener.counters.snapshot.connected == 0 }
            #expect(listener.counters.snapshot.connected == 0, "the writer's STOP was answered and it left")
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: fstrmReplay), "needs fstrm-bin"))
    func responsesCountOnlyFromAWriterThatLogsNoQueries() async throws {
        try await withListener { listener, path, taken in
            let response = DnstapMessages.frame(.clientResponse, includeResponse: true)
            try replay([DnstapMessages.frame(), response, response], to: path)
            try replay([response, response], to: path)
            try await waitFor { listener.counters.snapshot.messages == 5 }
            #expect(taken.sightings.withLock { $0.map(\.kind) } == [.query, .response, .response])
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: fstrmReplay), "needs fstrm-bin"))
    func garbageAnotherContentTypeOrSilenceCutsThatWriterOffAndTheNextIsServed() async throws {
        // Long enough for a loaded machine to connect and write before it; short for the test.
        try await withListener(startTimeout: .seconds(2)) { listener, path, taken in
            #expect(try await closedAfterSending(Array("GET / HTTP/1.1\r\n\r\n".utf8), to: path))
            var other = ByteBuffer()
            FrameStreamControl(.ready, contentTypes: ["protobuf:other.Thing"]).write(into: &other)
            #expect(try await closedAfterSending(Array(other.readableBytesView), to: path))
            #expect(try await closedAfterSending([], to: path), "no START in time")
            // A bad message inside a good stream is skipped; the stream goes on.
            var stream = ByteBuffer()
            FrameStreamControl(.start).write(into: &stream)
            FrameStreamFrame.data(ByteBuffer(bytes: [0xFF, 0xFF])).write(into: &stream)
            FrameStreamFrame.data(DnstapMessages.frame()).write(into: &stream)
            _ = try await closedAfterSending(Array(stream.readableBytesView), to: path, within: 0)
            try await waitFor { listener.counters.snapshot.messages == 2 }
            var figures = listener.counters.snapshot
            #expect(figures.broken == 3)
            #expect(figures.malformed == 1)
            #expect(taken.count == 1)
            try replay([DnstapMessages.frame()], to: path)
            try await waitFor { listener.counters.snapshot.messages == 3 }
            figures = listener.counters.snapshot
            #expect(figures.messages == 3 && taken.count == 2)
        }
    }

    @Test func overTCPOnlyAllowedSourcesAndAtMostMaxConnectionsAreTaken() async throws {
        var settings = DnstapSettings()
        settings.listen = [try SocketAddress(ipAddress: "127.0.0.1", port: 0)]
        settings.maxConnections = 1
        try await withListener({ _ in settings }) { listener, _, _ in
            let address = try #require(listener.tcpAddresses.first)
            let group = MultiThreadedEventLoopGroup.singleton
            let first = try await ClientBootstrap(group: group).connect(to: address).get()
            defer { first.close(promise: nil) }
            try await waitFor { listener.counters.snapshot.connected == 1 }
            let second = try await ClientBootstrap(group: group).connect(to: address).get()
            try await waitFor { !second.isActive }
            #expect(!second.isActive, "over max-connections")
            #expect(listener.counters.snapshot.refused == 1)
        }
        settings.maxConnections = 64
        settings.allowFrom = AccessControl(networks: [IPNetwork("10.0.0.0/8")!])
        try await withListener({ _ in settings }) { listener, _, _ in
            let address = try #require(listener.tcpAddresses.first)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(to: address)
                .get()
            try await waitFor { !channel.isActive }
            #expect(!channel.isActive, "loopback is not in allow-from")
            #expect(listener.counters.snapshot.refused == 1)
        }
    }

    @Test func aSocketThatCannotBeHadIsSaidInWords() async throws {
        var settings = DnstapSettings()
        settings.socket = "/nonexistent-directory/dnstap.sock"
        await #expect {
            try await DnstapListener.start(
                settings, group: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "test"), sink: { _ in 0 })
        } throws: { error in
            "\(error)"
                == "cannot listen on /nonexistent-directory/dnstap.sock (dnstap unix socket): no such file or directory"
        }
    }
}
