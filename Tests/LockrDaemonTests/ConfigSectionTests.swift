import ConfigKit
import DNSProxy
import DNSWire
import LockrPolicy
import NIOCore
import Testing

@testable import LockrDaemon

/// The sections each module declares: what a setting writes, the file reads back; a setting that
/// needs a restart is named by a reload that changes it, and no other.
@Suite struct ConfigSectionTests {
    /// `value`'s settings as a config file writes them, under `[prefix]`.
    func written<Section: ConfigSection>(_ value: Section, at prefix: String) -> String {
        "[\(prefix)]\n" + Section.settings.map { "\($0.key) = \($0.written(in: value))" }.joined(separator: "\n") + "\n"
    }

    /// Every declared setting set away from its default.
    var changed: LockrConfiguration {
        var config = LockrConfiguration()
        config.cache = CacheSettings(
            capacity: 500, bounds: TTLBounds(minimum: 7, maximum: 900, negativeMaximum: 60), staleSeconds: 30)
        config.forwarding.attemptTimeout = .milliseconds(250)
        config.forwarding.attempts = 2
        config.forwarding.staleAnswerTimeout = .milliseconds(900)
        config.tcp = TCPSettings(maxConnections: 40, idleTimeout: .milliseconds(2500))
        config.queryLog.enabled = false
        config.queryLog.retention = .seconds(2 * 86_400)
        config.queryLog.privacy = .apps
        config.queryLog.maximumBytes = 64 << 20
        config.policy.snooze = Allowance(length: .seconds(4 * 60), perDay: 2)
        config.policy.extend = Allowance(length: .seconds(20 * 60), perDay: 0)
        config.policy.emergency = Allowance(length: .seconds(3 * 60), perDay: 5)
        config.policy.gate.puzzles = PuzzleSettings(
            kinds: [.chess], difficulty: .hard, count: 3, timeLimit: .seconds(90))
        return config
    }

    @Test func whatEachSettingWritesTheFileReadsBack() throws {
        let config = changed
        let text = [
            written(config.cache, at: "cache"), written(config.forwarding, at: "upstream"),
            written(config.tcp, at: "tcp"), written(config.queryLog, at: "query-log"),
            written(config.policy.snooze, at: "snooze"), written(config.policy.extend, at: "extend"),
            written(config.policy.emergency, at: "emergency"), written(config.policy.gate.puzzles, at: "puzzles"),
        ].joined(separator: "\n")
        #expect(try ConfigFile.parse(text, path: "written.toml") == config, "\(text)")
        #expect(text.contains("retention = \"2d\"") && text.contains("max-size = \"64MB\""))
    }

    @Test func aReloadNamesTheDeclaredSettingsThatNeedARestartAndNoOthers() {
        let running = LockrConfiguration()
        #expect(
            RestartOnlySettings.changed(from: running, to: changed) == [
                "cache.size", "cache.serve-stale", "tcp.max-connections", "tcp.idle-timeout-ms", "query-log.enabled",
                "query-log.retention", "query-log.max-size",
            ])
    }

    @Test func aSectionsOwnCheckNamesItsKey() {
        #expect(throws: ConfigErrors.self) { try ConfigFile.parse("[cache]\nmin-ttl = 60\nmax-ttl = 30\n", path: "c") }
        do {
            _ = try ConfigFile.parse("[cache]\nmin-ttl = 60\nmax-ttl = 30\n", path: "c.toml")
        } catch {
            #expect(error.description == "c.toml: line 2: key 'cache.min-ttl': is larger than cache.max-ttl")
        }
    }
}
