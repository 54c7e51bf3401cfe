import BackendFakes
import DNSFilter
import Foundation
import LockrAdapters
import LockrStore

enum Fixtures {
    static let specs = SpecCheckTests.specs

    static let tiktok = AppBlock(
        app: "tiktok", blocked: true, rules: [.domain("tiktok.com"), .domain("tiktokcdn.com")])
    static let youtube = AppBlock(
        app: "youtube", blocked: true,
        rules: [.domain("youtube.com"), .subdomains("googlevideo.com"), .regex("^yt[0-9]+\\.ggpht\\.com$")])

    static func snapshot(_ apps: AppBlock...) -> BlockSnapshot { BlockSnapshot(apps: apps) }

    static func open(_ app: AppBlock) -> AppBlock { AppBlock(app: app.app, blocked: false, rules: app.rules) }

    /// Generous: on a loaded machine a test's tasks can wait seconds for a thread. Only the test of
    /// a hung backend sets a short one.
    static let timeout = Duration.seconds(20)

    /// `secret` in an environment variable of this process, as a config file would name it.
    static func secret(_ secret: String) -> SecretSource { .environment(secretVariable(secret)) }

    /// Puts `secret` in an environment variable of this process and returns its name.
    static func secretVariable(_ secret: String) -> String {
        let name = "LOCKR_TEST_SECRET_\(abs(secret.hashValue))"
        setenv(name, secret, 1)
        return name
    }

    /// How long a condition is waited for: generous, as a fresh clone's first test run shares the
    /// machine with everything else, and the tests that compute (perft, traces) can hold both of a
    /// 2-core machine's threads for Swift's concurrency for a while; a passing condition returns at
    /// once.
    static let patience: Double = 120

    static func store() throws -> OutboxStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockr-adapters-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return OutboxStore(sharing: try PolicyStore(path: directory.appendingPathComponent("state.sqlite").path))
    }
}
