import DNSTestSupport
import Foundation
import Synchronization
import Testing

/// The real `lockr` binary, started for one test and stopped with SIGTERM.
final class LockrProcess {
    let process = Process()
    let logPath: String
    /// Its state directory; made for this process unless the test passed one (to restart in it).
    let stateDirectory: String
    private let ownsStateDirectory: Bool
    /// The network namespace it runs in, if not the test's own.
    let namespace: String?
    private(set) var port = 0

    /// The `lockr` built next to this test bundle.
    static var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("lockr").path
    }

    /// A new empty directory for a daemon's state.
    static func makeStateDirectory() -> String {
        let path = NSTemporaryDirectory() + "lockr-e2e-state-\(UUID())"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Starts `lockr serve` on free loopback ports (DNS and control) with `arguments` and waits until
    /// it is ready. `answersDNS` false: the configuration has no `dns` backend, so there is no port.
    /// With `namespace`, it runs in that network namespace (and so do its CLI verbs).
    /// `environment` is added to the test process's own; `openFiles` (soft, hard) are its limits
    /// of open files, as a service manager sets them.
    init(
        _ arguments: [String], stateDirectory: String? = nil, answersDNS: Bool = true, namespace: String? = nil,
        environment: [String: String] = [:], openFiles: (soft: Int, hard: Int)? = nil
    ) async throws {
        self.namespace = namespace
        logPath = NSTemporaryDirectory() + "lockr-e2e-\(UUID()).log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        self.stateDirectory = stateDirectory ?? Self.makeStateDirectory()
        ownsStateDirectory = stateDirectory == nil
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw Failure("no lockr binary at \(Self.binary): run `swift build` before the tests")
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        process.arguments =
            (openFiles.map { ["prlimit", "--nofile=\($0.soft):\($0.hard)", "--"] } ?? [])
            + Self.launcher(namespace)
            + [
                "serve", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--web", "127.0.0.1:0", "--state-dir",
                self.stateDirectory,
            ]
            + arguments
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let webOff = zip(arguments, arguments.dropFirst()).contains { $0 == "--web" && $1 == "off" }
        let deadline = Date().addingTimeInterval(20)
        // The log is read once more after the deadline: on a loaded machine this task may wake
        // only after it, to a daemon that was ready long before.
        var lastLook = false
        while !lastLook {
            lastLook = Date() >= deadline
            let text = log
            // Ready, and its web pages served (or given up on): tests reach those too.
            let served = webOff || text.contains("] web pages")
            if text.contains("] ready"), served,
                let match = text.firstMatch(of: /address=127\.0\.0\.1:(\d+) transport=/)
            {
                port = Int(match.1)!
                return
            }
            if !answersDNS, text.contains("] ready"), served { return }
            guard process.isRunning else { throw Failure("lockr exited: \(log)") }
            // Awaited, not slept: a thread of Swift's concurrency blocked here is one the other
            // tests running meanwhile do not get.
            try await Task.sleep(for: .milliseconds(20))
        }
        process.terminate()
        throw Failure("lockr did not start listening: \(log)")
    }

    /// The command line that runs the binary, in `namespace` when given (`ip netns exec` execs it,
    /// so signals reach lockr itself).
    private static func launcher(_ namespace: String?) -> [String] {
        (namespace.map { ["ip", "netns", "exec", $0] } ?? []) + [binary]
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    /// Its whole log as it stopped (the file goes with it), for what a test checks afterwards.
    private(set) var finalLog = ""

    /// Where its web pages are served ("127.0.0.1:PORT"), once it says so.
    var webAddress: String? {
        log.firstMatch(of: /address=(\S+) \[LockrDaemon\] web pages/).map { String($0.1) }
    }

    /// The port it listens on for `transport` ("tls", "https"), as it logged when ready: a test
    /// gives it port 0, so no other test can take the port between a choice and lockr's bind.
    func listeningPort(_ transport: String) throws -> Int {
        for match in log.matches(of: /address=127\.0\.0\.1:(\d+) transport=(\S+)/) where match.2 == transport {
            return Int(match.1)!
        }
        throw Failure("lockr listens for no \(transport): \(log)")
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Kills it with SIGKILL: no chance to save anything.
    func kill9() {
        signal(SIGKILL)
        process.waitUntilExit()
    }

    /// Runs a CLI verb against this daemon: `cli("unlock", "tiktok")`.
    func cli(_ arguments: String...) async throws -> (status: Int32, output: String) { try await cli(arguments) }

    func cli(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let command = Self.launcher(namespace)
        return try await runAwaited(
            command[0], Array(command.dropFirst()) + arguments + ["--state-dir", stateDirectory])
    }

    /// `lockr status --json`: where `person` stands (the default person unless named).
    func status(of person: String = "default") async throws -> [String: Any] {
        let output = try await cli("status", "--json").output
        let household = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        let people = household?["people"] as? [[String: Any]] ?? []
        return people.first { $0["person"] as? String == person } ?? [:]
    }

    /// `lockr status --json`'s dnstap figures (empty without `[dnstap]`).
    func dnstapFigures() async throws -> [String: Any] {
        let output = try await cli("status", "--json").output
        let household = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return household?["dnstap"] as? [String: Any] ?? [:]
    }

    /// Policy time by the daemon's status, and when `app`'s window ends (nil when none is open).
    /// Time-scaled behaviour is judged by it: the real seconds a loaded machine takes to start or
    /// poll a process do not enter.
    func policyClock(_ app: String) async throws -> (now: Date, windowEnds: Date?) {
        let status = try await status()
        let apps = status["apps"] as? [[String: Any]] ?? []
        let state = apps.first { $0["id"] as? String == app }?["state"] as? [String: Any]
        let now = try #require(apiInstant(status["now"]), "\(status)")
        return (now, apiInstant((state?["until"] as? [String: Any])?["at"]))
    }

    /// Stops with SIGTERM and waits for it to exit without holding one of Swift's concurrency
    /// threads meanwhile: as it stops, lockr may still talk to fakes in this test process (a
    /// Pi-hole's logout), whose handlers need those threads.
    @discardableResult
    func finish() async -> Int32 {
        if process.isRunning {
            await withCheckedContinuation { (exited: CheckedContinuation<Void, Never>) in
                let once = Once()
                let resume: @Sendable () -> Void = { if once.first() { exited.resume() } }
                process.terminationHandler = { _ in resume() }
                process.terminate()
                if !process.isRunning { resume() }
            }
        }
        return stop()
    }

    /// Sends `number` and waits up to `seconds` for lockr to exit: its exit status, or nil when it
    /// went on running (it is then killed, as systemd would after its stop timeout).
    func stop(sending number: Int32, within seconds: Double) async -> Int32? {
        signal(number)
        let exited = await eventually(seconds) { !process.isRunning }
        if !exited { kill9() }
        stop()
        return exited ? process.terminationStatus : nil
    }

    /// Stops with SIGTERM and returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        if finalLog.isEmpty { finalLog = log }
        try? FileManager.default.removeItem(atPath: logPath)
        if ownsStateDirectory { try? FileManager.default.removeItem(atPath: stateDirectory) }
        return process.terminationStatus
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

/// Runs `body`, then stops `lockr` and `upstreams` whether it succeeded or threw.
func stoppingAfterwards(
    _ lockr: LockrProcess, _ upstreams: ScriptedUpstream..., body: () async throws -> Void
)
    async throws
{
    do {
        try await body()
    } catch {
        await lockr.finish()
        for upstream in upstreams { await upstream.stop() }
        throw error
    }
    await lockr.finish()
    for upstream in upstreams { await upstream.stop() }
}

/// The same with one upstream, `body` written last.
func stoppingAfterwards(
    _ lockr: LockrProcess, _ upstream: ScriptedUpstream, _ body: () async throws -> Void
)
    async throws
{
    try await stoppingAfterwards(lockr, upstream, body: body)
}

/// An ISO 8601 time of the API (with milliseconds when it has any).
func apiInstant(_ text: Any?) -> Date? {
    let text = text as? String ?? ""
    return (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
        ?? (try? Date.ISO8601FormatStyle().parse(text))
}

/// `dig` against lockr (one try, as the tests count what reaches the upstream; 5 s for it, as a
/// machine running the suite 16 wide can be that slow); fails the test when dig itself is missing.
func dig(_ port: Int, _ arguments: String...) async throws -> String { try await dig(port, arguments) }

func dig(_ port: Int, _ arguments: [String]) async throws -> String {
    let result = try await runAwaited("dig", ["@127.0.0.1", "-p", "\(port)", "+tries=1", "+time=5"] + arguments)
    if result.status == 127 { throw LockrProcess.Failure("dig is not installed (apt-get install bind9-dnsutils)") }
    return result.output
}

/// `drill` against lockr; fails the test when drill itself is missing.
func drill(_ port: Int, _ arguments: String...) async throws -> String {
    let result = try await runAwaited("drill", ["-p", "\(port)"] + arguments + ["@127.0.0.1"])
    if result.status == 127 { throw LockrProcess.Failure("drill is not installed (apt-get install ldnsutils)") }
    return result.output
}

/// `run`, awaited without holding one of the few threads Swift's concurrency has for the
/// seconds the tool takes (other tests run meanwhile).
func runAwaited(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    let outputPath = NSTemporaryDirectory() + "lockr-tool-\(UUID()).out"
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.standardOutput = output
    process.standardError = output
    let status = try await withCheckedThrowingContinuation { (finished: CheckedContinuation<Int32, any Error>) in
        process.terminationHandler = { finished.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { finished.resume(throwing: error) }
    }
    try output.close()
    return (status, (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
}

/// True the first time it is asked, false after.
private final class Once: Sendable {
    private let asked = Mutex(false)

    func first() -> Bool {
        asked.withLock { asked in
            defer { asked = true }
            return !asked
        }
    }
}
