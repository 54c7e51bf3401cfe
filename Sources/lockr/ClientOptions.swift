import ArgumentParser
import ConfigKit
import Foundation
import LockrAPI
import LockrControl
import LockrDaemon
import NIOCore
import OpenAPIRuntime

/// How a CLI verb finds the daemon, and how it prints.
struct ClientOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's state directory (default: $LOCKR_STATE_DIR, else yours ($XDG_STATE_HOME/lockr, also "
                + "root's) if a daemon runs there, else /var/lib/lockr).", valueName: "DIR"))
    var stateDir: String?

    @Option(
        name: .long, help: ArgumentHelp("The daemon's config file, to find its state directory.", valueName: "FILE"))
    var config: String?

    @Flag(name: .long, help: "Print the API's JSON instead of text.")
    var json = false

    /// The state directory named (by --state-dir, the config's `state-dir`, or $LOCKR_STATE_DIR), or
    /// the caller's own if a daemon runs there, else the system one.
    func stateDirectory() throws -> String {
        if let stateDir { return stateDir }
        if let config {
            let text: String
            do { text = try String(contentsOfFile: config, encoding: .utf8) } catch {
                throw LoadError("cannot read config file \(config)")
            }
            // Only `state-dir` is needed: a mistake elsewhere in the file is the daemon's concern.
            return try ConfigFile.stateDirectory(in: text, path: config) ?? LockrConfiguration.defaultStateDirectory()
        }
        if let named = ProcessEnvironment.current["LOCKR_STATE_DIR"], !named.isEmpty { return named }
        // The caller's own: also root's, where `scripts/run` keeps a daemon apart from the service's.
        let own = LockrConfiguration.defaultStateDirectory(isRoot: false)
        let system = LockrConfiguration.defaultStateDirectory(isRoot: true)
        guard access(own + "/" + ControlFiles.addressFile, F_OK) != 0 else { return own }
        // The system daemon's, even when only root may look inside: the error then says to use sudo.
        if access(system + "/" + ControlFiles.addressFile, F_OK) == 0 || errno == EACCES { return system }
        return ProcessEnvironment.isRoot ? system : own
    }

    /// Calls an operation of the daemon's API (`{ try await $0.getStatus().ok.body.json }`); prints
    /// and exits non-zero on failure. `timeout`: how long the answer may take to begin.
    func call<Answer: Sendable>(
        timeout: TimeAmount = .seconds(10), _ operation: (Client) async throws -> Answer
    ) async -> Answer {
        do { return try await send(timeout: timeout, operation) } catch { fail(error) }
    }

    /// Calls an operation of the daemon's API; failures are thrown, for a verb that handles some
    /// itself. `timeout`: how long the answer may take to begin.
    func send<Answer: Sendable>(
        timeout: TimeAmount = .seconds(10), _ operation: (Client) async throws -> Answer
    ) async throws -> Answer {
        try await client(timeout: timeout).call(operation)
    }

    /// The daemon's API client, found through the state directory.
    func client(timeout: TimeAmount = .seconds(10)) throws -> ControlClient {
        let endpoint = try ControlFiles.endpoint(in: try stateDirectory())
        return ControlClient(baseURL: endpoint.url, token: endpoint.token, timeout: timeout)
    }

    /// Prints why a call failed (as JSON with `--json`) and exits 1.
    func fail(_ error: any Error) -> Never {
        if case ControlClientError.refused(_, let body) = error { fail(body.error, body: body) }
        fail("\(error)", body: Components.Schemas.ErrorBody(error: "\(error)", code: .unreachable))
    }

    /// Prints `answer` as JSON when asked to, else the text `human` makes.
    func show<Answer: Encodable>(_ answer: Answer, _ human: (Answer) -> String) {
        if json {
            print(Self.prettyJSON(answer))
        } else {
            print(human(answer))
        }
    }

    func fail(_ message: String, body: Components.Schemas.ErrorBody) -> Never {
        if json { print(Self.prettyJSON(body)) } else { printError("lockr: \(message)") }
        Foundation.exit(1)
    }

    static func prettyJSON(_ value: some Encodable) -> String {
        let encoder = ControlJSON.encoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }
}

/// `--person NAME`: whom a verb is about.
struct PersonOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The person this is for (default: the one this machine's address belongs to, else the only one; "
                + "status and log show everyone).", valueName: "NAME"))
    var person: String?

    /// `path` asking for `person` when one was named.
    func path(_ path: String) -> String {
        guard let person else { return path }
        return path + (path.contains("?" as Character) ? "&" : "?") + "person=" + pathSegment(person)
    }
}

/// Reads a duration in seconds: "30m", "1h30m", "90s", "2d", or a plain number in `defaultUnit`
/// seconds ("30" is 30 minutes by default). Nil for anything else, or beyond ten years.
func parseDuration(_ text: String, defaultUnit: Int = 60) -> Int? {
    DurationText.seconds(text, plainUnit: defaultUnit)
}

/// A wait or a time left: "12 min", "45 s", "1 h 5 min", rounded up (`Duration.spoken`).
func spoken(seconds: Int64) -> String { Duration.seconds(max(seconds, 0)).spoken }

extension Components.Schemas.TimeBody {
    /// "14:40 (in 6 min)".
    var spokenTime: String { inSeconds > 0 ? "\(local) (in \(spoken(seconds: inSeconds)))" : local }
}
