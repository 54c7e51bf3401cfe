import ArgumentParser
import DNSProxy
import Foundation
import LockrDaemon
import LockrPolicy

/// The settings `serve` and `check-config` share: a config file and the flags that override it.
struct ServeOptions: ParsableArguments {
    @Option(
        name: .long, help: ArgumentHelp("TOML config file (see docs/configuration.md).", valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Address to answer on, UDP and TCP (repeatable).", valueName: "ADDR:PORT"))
    var listen: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Upstream resolver (repeatable): ADDR[:PORT] (plain, port 53), tls://NAME, tls://ADDR@NAME, https://HOST/dns-query or https://ADDR@HOST/dns-query.",
            valueName: "UPSTREAM")
    )
    var upstream: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Block list file: domains, hosts or adblock syntax (repeatable).", valueName: "FILE"))
    var blocklist: [String] = []

    @Option(name: .long, help: ArgumentHelp("Allow list file: names never blocked (repeatable).", valueName: "FILE"))
    var allowlist: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Directory for lockr's state, created if missing (default /var/lib/lockr as root, else "
                + "$XDG_STATE_HOME/lockr).", valueName: "DIR"))
    var stateDir: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Answer for blocked names: null, nxdomain, refused or an IP.", valueName: "MODE"))
    var blockMode: String?

    @Option(
        name: .long, help: ArgumentHelp("\(LockrConfiguration.logLevelsText).", valueName: "LEVEL"))
    var logLevel: String?

    @Option(
        name: .customLong("guard"),
        help: ArgumentHelp(
            "Guard a catalogue app, e.g. instagram (repeatable; adds to the config's).", valueName: "APP"))
    var guardedApps: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Address of the control API the CLI verbs use (default 127.0.0.1:5380).", valueName: "ADDR:PORT"))
    var control: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Address of the web pages (default 127.0.0.1:8080; a LAN address lets phones open them; off: none).",
            valueName: "ADDR:PORT"))
    var web: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Run policy time this many times faster, for demos and tests, on a state directory of their own "
                + "(60: an hour a minute).", valueName: "N"))
    var timeScale: Double?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Start policy time at this ISO 8601 time instead of now, for demos and tests, on a state directory "
                + "of their own (never before the last time the state saw).", valueName: "TIME"))
    var startAt: String?

    @Option(name: .long, help: .hidden)
    var testStallDNSAfter: Double?

    func validate() throws {
        for text in listen where AddressText.parse(text, defaultPort: nil) == nil {
            throw ValidationError("--listen '\(text)' is not ADDR:PORT or [V6]:PORT")
        }
        for text in upstream {
            do { _ = try UpstreamEntry.parse(text) } catch { throw ValidationError("--upstream \(error)") }
        }
        if let control {
            guard let address = AddressText.parse(control, defaultPort: nil) else {
                throw ValidationError("--control '\(control)' is not ADDR:PORT or [V6]:PORT")
            }
            guard AddressText.isLoopback(address) else {
                throw ValidationError("--control must be a loopback address (127.0.0.1 or [::1]): the API has no TLS")
            }
        }
        if let web, web != "off", AddressText.parse(web, defaultPort: nil) == nil {
            throw ValidationError("--web '\(web)' is not ADDR:PORT, [V6]:PORT or off")
        }
        if let timeScale, !(1...3600).contains(timeScale) {
            throw ValidationError("--time-scale must be between 1 and 3600")
        }
        if let startAt, (try? Date.ISO8601FormatStyle().parse(startAt)) == nil {
            throw ValidationError("--start-at '\(startAt)' is not an ISO 8601 time such as 2026-06-01T14:55:00Z")
        }
        if let logLevel, !LockrConfiguration.logLevels.contains(logLevel) {
            throw ValidationError(
                "--log-level must be one of \(LockrConfiguration.logLevels.joined(separator: ", ")), not '\(logLevel)'")
        }
        if let blockMode, BlockAnswer(blockMode) == nil {
            throw ValidationError("--block-mode '\(blockMode)' is not null, nxdomain, refused or an IP address")
        }
    }

    /// The config file (if any) with the flags applied over it.
    func resolve() throws -> LockrConfiguration {
        var result = LockrConfiguration()
        if let config {
            let text: String
            do { text = try String(contentsOfFile: config, encoding: .utf8) } catch {
                throw LoadError("cannot read config file \(config)")
            }
            result = try ConfigFile.parse(text, path: config)
        }
        if !listen.isEmpty { result.listen = listen.compactMap { AddressText.parse($0, defaultPort: nil) } }
        if !upstream.isEmpty { result.upstreams = upstream.flatMap { (try? UpstreamEntry.parse($0)) ?? [] } }
        result.blocklists += blocklist
        result.allowlists += allowlist
        if let stateDir { result.stateDirectory = stateDir }
        if let blockMode, let answer = BlockAnswer(blockMode) { result.blockAnswer = answer }
        if let logLevel { result.logLevel = logLevel }
        for app in guardedApps where !result.guarded.contains(app) { result.guarded.append(app) }
        if let control, let address = AddressText.parse(control, defaultPort: nil) { result.control = address }
        if let web { result.web = web == "off" ? nil : AddressText.parse(web, defaultPort: nil) }
        if let timeScale { result.timeScale = timeScale }
        if let startAt, let date = try? Date.ISO8601FormatStyle().parse(startAt) { result.startAt = Instant(date) }
        if let testStallDNSAfter { result.testStallDNSAfter = .milliseconds(Int64(testStallDNSAfter * 1000)) }
        return result
    }
}
