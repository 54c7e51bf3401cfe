import DNSTestSupport
import DNSWire
import Foundation
import LockrAPI
import LockrStore
import Logging
import NIOCore
import Testing

@testable import LockrControl
@testable import LockrDaemon

/// The whole daemon, built as one service group and run in the test's own process.
@Suite struct DaemonTests {
    let quiet: Logger = {
        var logger = Logger(label: "daemon-test")
        logger.logLevel = .critical
        return logger
    }()

    /// Hourly mode guarding tiktok, every listener on a port the system picks, state in a fresh directory.
    func configuration() throws -> LockrConfiguration {
        var config = try HouseholdTests().configuration()
        config.listen = [try SocketAddress(ipAddress: "127.0.0.1", port: 0)]
        config.control = try SocketAddress(ipAddress: "127.0.0.1", port: 0)
        config.web = try SocketAddress(ipAddress: "127.0.0.1", port: 0)
        config.upstreams = [.at(.plain(try SocketAddress(ipAddress: "127.0.0.1", port: 9)))]
        config.threads = 1
        config.stateDirectory = NSTemporaryDirectory() + "lockr-daemon-\(UUID())"
        return config
    }

    /// The control API's address once the daemon has written it, or nil after `seconds`.
    func controlAddress(_ directory: String, seconds: Double = 30) async throws -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: directory + "/" + ControlFiles.addressFile, encoding: .utf8) {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test func itAnswersDNSAndTheAPIThenStopsGracefullyKeepingItsState() async throws {
        let config = try configuration()
        let daemon = try await Daemon.build(configuration: { config }, logger: quiet, shutdownSignals: [])
        let port = try #require(daemon.dnsAddresses.first?.port)
        let running = Task { try await daemon.run() }
        let address = try #require(try await controlAddress(config.stateDirectory))

        let blocked = try LdnsPacket(wire: DNSClient.udp(LdnsBuild.query("tiktok.com.", ednsPayload: 1232), port: port))
        #expect(blocked.answerRecords.first?.hasSuffix("0.0.0.0") == true)
        #expect(blocked.extendedErrors.map(\.text) == ["tiktok: locked; `lockr unlock tiktok` opens 10 min"])
        let client = ControlClient(
            baseURL: "http://\(address)", token: try ControlFiles.token(in: config.stateDirectory))
        let status = try await client.call { try await $0.getStatus().ok.body.json }
        #expect(status.people.first?.apps.first?.state.code == .locked)
        let unlocked = try await client.call {
            try await $0.unlock(body: .json(Components.Schemas.UnlockRequest(app: "tiktok"))).ok.body.json
        }
        #expect(unlocked.opened.map(\.app) == ["tiktok"])
        // A second daemon on the same state directory is refused while this one runs.
        await #expect(throws: (any Error).self) {
            _ = try await Daemon.build(configuration: { config }, logger: quiet, shutdownSignals: [])
        }

        await daemon.stop()
        try await running.value
        #expect(!FileManager.default.fileExists(atPath: config.stateDirectory + "/" + ControlFiles.addressFile))
        // The window was saved, and the directory is free for the next daemon.
        let store = try PolicyStore(path: config.stateDirectory + "/state.sqlite")
        #expect(try store.load(person: "default")?.windows.all.map(\.app) == ["tiktok"])
        let next = try await Daemon.build(configuration: { config }, logger: quiet, shutdownSignals: [])
        let again = Task { try await next.run() }
        #expect(try await controlAddress(config.stateDirectory) != nil)
        await next.stop()
        try await again.value
    }

    @Test func aControlPortInUseEndsTheDaemonSayingWhatToChange() async throws {
        let first = try configuration()
        let daemon = try await Daemon.build(configuration: { first }, logger: quiet, shutdownSignals: [])
        let running = Task { try await daemon.run() }
        let taken = try #require(try await controlAddress(first.stateDirectory))
        var second = try configuration()
        second.control = try SocketAddress(ipAddress: "127.0.0.1", port: Int(taken.split(separator: ":").last!)!)
        let clashing = second
        let other = try await Daemon.build(configuration: { clashing }, logger: quiet, shutdownSignals: [])
        do {
            try await other.run()
            Issue.record("a control port in use must end the daemon")
        } catch {
            #expect("\(error)".contains("cannot serve the control API on \(taken)"), "\(error)")
            #expect("\(error)".contains("set control = \"127.0.0.1:PORT\""))
        }
        // The state directory is let go: a daemon can start on it once the port is free.
        second.control = try SocketAddress(ipAddress: "127.0.0.1", port: 0)
        let freed = second
        let retry = try await Daemon.build(configuration: { freed }, logger: quiet, shutdownSignals: [])
        let retried = Task { try await retry.run() }
        #expect(try await controlAddress(second.stateDirectory) != nil)
        await retry.stop()
        try await retried.value
        await daemon.stop()
        try await running.value
    }

    @Test func aReloadNamesEachChangedSettingThatWaitsForARestart() throws {
        let running = try configuration()
        var read = running
        #expect(RestartOnlySettings.changed(from: running, to: read) == [])
        read.speechModel = "/srv/models/en-gb"
        read.logLevel = "debug"
        read.cache.capacity += 1
        read.guarded = ["youtube"]  // applied by the reload itself: not named
        #expect(RestartOnlySettings.changed(from: running, to: read) == ["log-level", "speech-model", "cache.size"])
    }
}
