import DNSTestSupport
import Foundation
import LockrAdapters
import LockrRPZ
import LockrStore
import Logging
import NIOPosix
import Testing

/// The backend's serials: the next one for each change, none for no change, and on from where the
/// state database left off after a restart (a secondary takes only a higher serial as newer).
@Suite struct RPZBackendTests {
    static func snapshot(tiktokBlocked: Bool) -> BlockSnapshot {
        BlockSnapshot(apps: [
            AppBlock(app: "tiktok", blocked: tiktokBlocked, rules: [.domain("tiktok.com"), .regex("^tik.*tok$")])
        ])
    }

    func backend(_ memory: OutboxStore) -> RPZBackend {
        RPZBackend(
            name: "rpz", settings: RPZSettings(listen: ["127.0.0.1:0"]), action: .nxdomain, memory: memory,
            group: MultiThreadedEventLoopGroup.singleton, logger: Logger(label: "test"))
    }

    func serial(_ memory: OutboxStore) throws -> UInt32? {
        try memory.value("serial default.rpz.lockr", for: "rpz").flatMap { UInt32($0) }
    }

    @Test func eachChangeTakesTheNextSerialAndARestartGoesOnFromTheLast() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockr-rpz-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let memory = OutboxStore(sharing: try PolicyStore(path: directory.appendingPathComponent("state.sqlite").path))

        let first = backend(memory)
        let blocked = try await first.reconcile(Self.snapshot(tiktokBlocked: true))
        #expect(blocked.writes == 1)
        #expect(
            blocked.notes == [
                "default: 1 rule(s) of tiktok cannot be said in RPZ (regular expressions, or names too long)"
            ])
        let initial = try #require(try serial(memory))
        #expect(try await first.reconcile(Self.snapshot(tiktokBlocked: true)).writes == 0, "no change, no new serial")
        #expect(try serial(memory) == initial)
        #expect(try await first.reconcile(Self.snapshot(tiktokBlocked: false)).writes == 1)
        #expect(try serial(memory) == initial &+ 1)
        try await first.close()

        // After a restart the zone is served anew, with the serial after the last one used.
        let second = backend(memory)
        #expect(try await second.reconcile(Self.snapshot(tiktokBlocked: false)).writes == 1)
        #expect(try serial(memory) == initial &+ 2)
        try await second.close()
    }

    /// A zone file as ldns reads it back (`ldns-read-zone`, a zone parser of its own), one record a line.
    func readBack(_ path: String) throws -> [String] {
        let read = try run("ldns-read-zone", [path])
        #expect(read.status == 0, "\(read.output)")
        return read.output.split(separator: "\n").map {
            $0.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
    }

    @Test func zoneFilesAreWrittenWholeOnEachChangeAndThoseOfPeopleGoneRemoved() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockr-rpz-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "keep me".write(toFile: directory + "/other.rpz", atomically: true, encoding: .utf8)
        var settings = RPZSettings(listen: [])
        settings.zoneFiles = directory
        let backend = RPZBackend(
            name: "rpz", settings: settings, action: .nxdomain, memory: nil,
            group: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "test"))
        let alice = PersonBlocks(
            person: "alice", clients: ["192.168.1.23"],
            apps: [AppBlock(app: "tiktok", blocked: true, rules: [.domain("tiktok.com")])])
        let blocked = BlockSnapshot(apps: Self.snapshot(tiktokBlocked: true).apps, people: [alice])
        // The service's umask (0077) would leave the files to lockr alone; the resolver must read them.
        let umaskBefore = umask(0o077)
        let writes = try await backend.reconcile(blocked).writes
        umask(umaskBefore)
        #expect(writes == 2)
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/default.rpz.lockr.rpz")[
            .posixPermissions]
        #expect(mode as? Int == 0o644)
        let everyone = try readBack(directory + "/default.rpz.lockr.rpz")
        #expect(
            everyone.first?.hasPrefix("default.rpz.lockr. 30 IN SOA localhost. hostmaster.default.rpz.lockr.") == true)
        #expect(everyone.contains("tiktok.com.default.rpz.lockr. 30 IN CNAME ."), "\(everyone)")
        #expect(everyone.contains("*.tiktok.com.default.rpz.lockr. 30 IN CNAME ."), "\(everyone)")
        #expect(try readBack(directory + "/alice.rpz.lockr.rpz").contains("tiktok.com.alice.rpz.lockr. 30 IN CNAME ."))

        // TikTok opens for everyone and Alice is gone: the default file loses its triggers, hers goes.
        #expect(try await backend.reconcile(Self.snapshot(tiktokBlocked: false)).writes == 1)
        let opened = try readBack(directory + "/default.rpz.lockr.rpz")
        #expect(!opened.contains { $0.contains("tiktok") }, "\(opened)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(names == ["default.rpz.lockr.rpz", "other.rpz"], "no temporary file left, another's file kept")
    }

    @Test func aZoneFileThatCannotBeWrittenIsSaidAndTriedAgain() async throws {
        var settings = RPZSettings(listen: [])
        settings.zoneFiles = "/nonexistent-directory/rpz"
        let backend = RPZBackend(
            name: "rpz", settings: settings, action: .nxdomain, memory: nil,
            group: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "test"))
        for _ in 0..<2 {
            await #expect {
                try await backend.reconcile(Self.snapshot(tiktokBlocked: true))
            } throws: { error in
                "\(error)".contains(
                    "cannot write the zone file /nonexistent-directory/rpz/.default.rpz.lockr.rpz.tmp: no such file or directory"
                )
            }
        }
    }
}
