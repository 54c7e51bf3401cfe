import ArgumentParser
import LockrDaemon
import Logging

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the DNS forwarder, the app policy and its control API (DNS on 127.0.0.1 and ::1 port 5335).",
        discussion: """
            Upstreams default to the name servers of /etc/resolv.conf (lockr skips itself). The control API \
            that the other verbs use listens on 127.0.0.1:5380; state is kept in --state-dir. \
            SIGHUP reloads the config file and lists without dropping queries; SIGTERM stops cleanly. \
            With `backends` in the config file, lockr also pushes its decisions to Pi-hole, AdGuard Home, \
            NextDNS or a webhook (their passwords and keys come from files or the environment only), or \
            serves them as Response Policy Zones to resolvers such as unbound ([rpz]); with [dnstap], it \
            meters use from the client queries such resolvers log by dnstap (see docs/fleet.md).
            """
    )

    @OptionGroup var options: ServeOptions

    func run() async throws {
        do {
            let first = try options.resolve()
            let level = Logger.Level(rawValue: first.logLevel) ?? .info
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            let logger = Logger(label: "lockr")
            let options = self.options
            let daemon = try await Daemon.build(configuration: { try options.resolve() }, logger: logger)
            try await daemon.run()
        } catch {
            printError("lockr: \(error)")
            throw ExitCode.failure
        }
    }
}
