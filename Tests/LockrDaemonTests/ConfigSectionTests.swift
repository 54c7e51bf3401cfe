import CivilTime
import ConfigKit
import DNSWire
import Foundation
import NIOCore
import Testing

@testable import DNSProxy
@testable import LockrDaemon
@testable import LockrPolicy

/// The sections each module declares: what a setting writes, the file reads back; a setting that
/// needs a restart is named by a reload that changes it, and no other.
@Suite struct ConfigSectionTests {
    /// `sections`' settings of `value` as a config file writes them: the top level's first, then
    /// each section under its `[name]` (sections of one name together).
    func written<Root>(_ value: Root, _ sections: [SectionDeclaration<Root>]) -> String {
        var names: [String] = []
        var lines: [String: [String]] = [:]
        for section in sections {
            if lines[section.name] == nil { names.append(section.name) }
            lines[section.name, default: []] += section.settings.map { "\($0.key) = \($0.written(in: value))" }
        }
        return names.map { name in
            (name.isEmpty ? "" : "[\(name)]\n") + lines[name]!.joined(separator: "\n") + "\n"
        }.joined(separator: "\n")
    }

    /// Every declared setting set away from its default.
    var changed: LockrConfiguration {
        var config = LockrConfiguration()
        config.listen = [try! SocketAddress(ipAddress: "127.0.0.1", port: 5399)]
        config.upstreams =
            [
                .at(.plain(try! SocketAddress(ipAddress: "192.0.2.1", port: 53))),
                .at(.plain(try! SocketAddress(ipAddress: "2001:db8::1", port: 5353))),
            ] + (try! UpstreamEntry.parse("tls://9.9.9.9@dns.quad9.net"))
            + (try! UpstreamEntry.parse("https://[::1]:8443/q"))
            + (try! UpstreamEntry.parse("https://dns.quad9.net/dns-query"))
        config.stateDirectory = "/srv/lockr"
        config.blocklists = ["/etc/lockr/ads.txt"]
        config.allowlists = ["/etc/lockr/ok.txt"]
        config.catalogueDirectory = "/opt/lockr/blocklists"
        config.logLevel = "debug"
        config.threads = 3
        config.guarded = ["tiktok"]
        config.names.alwaysAllow = ["whatsapp"]
        config.control = try! SocketAddress(ipAddress: "::1", port: 5381)
        config.web = nil
        config.webName = "home.lan"
        config.trustedForwarders = [IPNetwork("192.168.1.1")!]
        config.protectionOffAfter = .seconds(1800)
        config.speechModel = "/srv/en-us"
        config.blockAnswer = .nxdomain
        config.blockTTL = 30
        config.names.antiBypass = false
        config.names.safeSearch = SafeSearch(searchEngines: true, youtube: .strict)
        config.access = AccessControl(networks: [IPNetwork("10.0.0.0/8")!])
        config.suggestions = ["Read a \"book\"."]
        config.adapterTiming.reconcileInterval = .seconds(120)
        config.adapterTiming.maximumBackoff = .seconds(30)
        config.adapterTiming.logInterval = .seconds(5)
        config.adapterTiming.requestTimeout = .seconds(7)
        config.guardBlockTTL = 2
        config.cache = CacheSettings(
            capacity: 500, bounds: TTLBounds(minimum: 7, maximum: 900, negativeMaximum: 60), staleSeconds: 30)
        config.forwarding.attemptTimeout = .milliseconds(250)
        config.forwarding.attempts = 2
        config.forwarding.staleAnswerTimeout = .milliseconds(900)
        config.forwarding.caFile = "/etc/lockr/ca.pem"
        config.forwarding.bootstrap = [try! SocketAddress(ipAddress: "9.9.9.9", port: 53)]
        config.listenTLS = [try! SocketAddress(ipAddress: "192.168.1.2", port: 853)]
        config.listenHTTPS = [try! SocketAddress(ipAddress: "::", port: 8443)]
        config.tls = ServingTLSSettings(
            certificate: "/etc/lockr/tls/fullchain.pem", key: "/etc/lockr/tls/privkey.pem", name: "dns.example.com")
        config.forwarding.encryptedIdleTimeout = .seconds(90)
        config.tcp = TCPSettings(maxConnections: 40, idleTimeout: .milliseconds(2500))
        config.queryLog.enabled = false
        config.queryLog.retention = .seconds(2 * 86_400)
        config.queryLog.privacy = .apps
        config.queryLog.maximumBytes = 64 << 20
        var policy = PolicySettings(
            mode: .hourly, calendar: DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin"), dayStartMinutes: 330)
        )
        policy.maximumTTL = .seconds(20)
        policy.commitmentDelay = .seconds(7200)
        policy.time.budget = .seconds(45 * 60)
        policy.time.perApp = true
        policy.time.metering.slice = .seconds(5)
        policy.time.metering.minimumQueries = 2
        policy.time.metering.neighbourhood = 3
        policy.time.metering.grace = .seconds(20)
        policy.hourly = HourlySettings(window: .seconds(5 * 60), openOnFirstQuery: true)
        policy.extreme = ExtremeSettings(
            phrase: #"Let "me" in \ for {minutes} minutes"#, strictness: .strict, window: .seconds(600))
        policy.gate.time = [.puzzle]
        policy.gate.hourly = [.phrase]
        policy.gate.extreme = [.voice, .puzzle]
        policy.gate.input = .voice
        policy.gate.typedFallbackSteps = 2
        policy.snooze = Allowance(length: .seconds(4 * 60), perDay: 2)
        policy.extend = Allowance(length: .seconds(20 * 60), perDay: 0)
        policy.emergency = Allowance(length: .seconds(3 * 60), perDay: 5)
        policy.emergencyHold = .seconds(5)
        policy.gate.puzzles = PuzzleSettings(kinds: [.chess], difficulty: .hard, count: 3, timeLimit: .seconds(90))
        config.policy = policy
        return config
    }

    @Test func whatEachSettingWritesTheFileReadsBack() throws {
        let config = changed
        let text = written(config, LockrConfiguration.configSections)
        #expect(try ConfigFile.parse(text, path: "written.toml") == config, "\(text)")
        #expect(text.contains("retention = \"2d\"") && text.contains("max-size = \"64MB\""))
    }

    @Test func aReloadNamesTheDeclaredSettingsThatNeedARestartAndNoOthers() {
        let running = LockrConfiguration()
        #expect(
            RestartOnlySettings.changed(from: running, to: changed) == [
                "listen", "listen-tls", "listen-https", "state-dir", "log-level", "threads", "control", "web",
                "speech-model", "cache.size", "cache.serve-stale", "tls.certificate", "tls.key", "tls.name",
                "tcp.max-connections", "tcp.idle-timeout-ms", "query-log.enabled",
                "query-log.retention", "query-log.max-size", "adapters.reconcile-seconds",
                "adapters.retry-max-seconds", "adapters.log-seconds", "adapters.timeout-seconds",
            ])
    }

    @Test func eachSectionIsReadOnceSoEachProblemIsSaidOnce() {
        do {
            _ = try ConfigFile.parse("[adapters]\nreconcile-seconds = 0\n[cache]\nsize = -1\n", path: "twice.toml")
            Issue.record("a bad value was taken")
        } catch {
            #expect(error.issues.map(\.key) == ["adapters.reconcile-seconds", "cache.size"], "\(error)")
        }
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
