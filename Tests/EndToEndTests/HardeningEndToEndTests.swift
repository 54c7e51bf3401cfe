import DNSTestSupport
import Foundation
import Testing

/// What a new user runs into: clear errors for mistakes, numbers that cannot stop the daemon, a
/// state directory that only its owner controls, one daemon per state directory.
@Suite(.serialized) struct HardeningEndToEndTests {
    func withLockr(
        _ extra: [String] = [], stateDirectory: String? = nil,
        _ body: (LockrProcess, ScriptedUpstream) async throws -> Void
    ) async throws {
        let upstream = try await ScriptedUpstream(records: [
            "tiktok.com.": ["tiktok.com. 300 IN A 192.0.2.21"], "www.test.": ["www.test. 300 IN A 192.0.2.1"],
        ])
        let lockr = try await LockrProcess(
            ["--upstream", "127.0.0.1:\(upstream.port)", "--guard", "tiktok"] + extra, stateDirectory: stateDirectory)
        try await stoppingAfterwards(lockr, upstream) { try await body(lockr, upstream) }
    }

    /// Whether lockr still answers DNS.
    func answers(_ lockr: LockrProcess) async throws -> Bool {
        try await dig(lockr.port, "www.test", "+short").contains("192.0.2.1")
    }

    @Test func numbersFromOutsideAreCheckedAndTheDaemonKeepsRunning() async throws {
        try await withLockr { lockr, _ in
            let since = try await lockr.cli("log", "--since", "10000000000000000s")
            #expect(since.status != 0 && since.output.contains("--since"), "\(since.output)")
            let budget = try await lockr.cli("mode", "time", "--budget", "1000000000000000m")
            #expect(budget.status != 0 && budget.output.contains("--budget must be whole minutes from 5m to 3h"))
            let longer = try await lockr.cli("mode", "time", "--budget", "1h30m").output
            #expect(longer.contains("#1 time.budget-minutes: 30 min → 1 h 30 min — pending, applies at"), "\(longer)")
            // The same numbers straight to the API, as anything holding the token could send them.
            let token = try String(contentsOfFile: lockr.stateDirectory + "/control.token", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let address = try String(contentsOfFile: lockr.stateDirectory + "/control.address", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            for (method, path, body) in [
                ("GET", "log?since=10000000000000000", ""),
                ("PUT", "mode", #"{"mode":"time","budget_minutes":1000000000000000}"#),
                ("PUT", "mode", #"{"mode":"time","budget_minutes":-5}"#),
                ("PUT", "mode", #"{"mode":"time","budget_minutes":30.5}"#),
            ] {
                let answer = try await runAwaited(
                    "curl",
                    [
                        "-s", "-X", method, "-H", "Authorization: Bearer \(token)", "-H",
                        "Content-Type: application/json", "--data-raw", body, "http://\(address)/api/v1/\(path)",
                    ])
                #expect(answer.output.contains("\"code\""), "\(path) \(body): \(answer.output)")
            }
            #expect(try await answers(lockr))
            #expect(lockr.process.isRunning)
        }
    }

    @Test func appIdsAreForgivingAndListed() async throws {
        try await withLockr { lockr, _ in
            let listed = try await lockr.cli("apps", "tik")
            #expect(listed.status == 0)
            #expect(
                listed.output.contains("tiktok") && listed.output.contains("TikTok")
                    && listed.output.contains("guarded"))
            #expect(try await lockr.cli("apps").output.split(separator: "\n").count >= 30)
            let typo = try await lockr.cli("guard", "add", "instagrm")
            #expect(typo.status == 1 && typo.output.contains("did you mean instagram?"), "\(typo.output)")
            let cased = try await lockr.cli("guard", "add", "Instagram")
            #expect(cased.status == 0 && cased.output.contains("Guarding"), "\(cased.output)")
            let sneaky = try await lockr.cli("guard", "remove", "../status")
            #expect(sneaky.status == 1 && sneaky.output.contains("no app '../status'"), "\(sneaky.output)")
            _ = try await lockr.cli("guard", "remove", "tiktok")
            let log = try await lockr.cli("log").output
            // Dates, and event names in full.
            #expect(
                log.range(of: #"\d{4}-\d{2}-\d{2} \d{2}:\d{2}  change_pending"#, options: .regularExpression) != nil,
                "\(log)")
        }
    }

    @Test func aSecondDaemonOnTheSameStateDirectoryIsRefused() async throws {
        try await withLockr { lockr, upstream in
            let second = try await runAwaited(
                LockrProcess.binary,
                [
                    "serve", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--web", "off", "--upstream",
                    "127.0.0.1:\(upstream.port)", "--state-dir", lockr.stateDirectory,
                ])
            #expect(second.status == 1)
            #expect(
                second.output.contains(
                    "another lockr daemon (pid \(lockr.process.processIdentifier)) is using the state directory"),
                "\(second.output)")
            // The first one still answers and can still be driven.
            #expect(try await answers(lockr))
            #expect(try await lockr.cli("status").status == 0)
        }
    }

    @Test func aTakenPortIsNamedAndACleanStopLogsNoError() async throws {
        try await withLockr { lockr, upstream in
            let clash = try await runAwaited(
                LockrProcess.binary,
                [
                    "serve", "--listen", "127.0.0.1:\(lockr.port)", "--control", "127.0.0.1:0", "--web", "off",
                    "--upstream",
                    "127.0.0.1:\(upstream.port)", "--state-dir", LockrProcess.makeStateDirectory(),
                ])
            #expect(clash.status == 1)
            #expect(
                clash.output.contains("cannot listen on 127.0.0.1:\(lockr.port) (")
                    && clash.output.contains("): address already in use"),
                "\(clash.output)")
            #expect(!clash.output.contains("descriptor"))
            let loud = try await runAwaited(LockrProcess.binary, ["serve", "--log-level", "loud"])
            #expect(loud.status != 0 && loud.output.contains("--log-level must be one of"))

            lockr.signal(SIGTERM)
            lockr.process.waitUntilExit()
            #expect(lockr.process.terminationStatus == 0)
            let log = lockr.log
            #expect(log.contains("[LockrDaemon] stopped"))
            #expect(!log.contains(" error "), "\(log)")
        }
    }

    /// Port 0 picks a port no UDP socket holds, not one that sharing sockets (SO_REUSEADDR and
    /// SO_REUSEPORT, as another lockr's) hold: in a namespace whose only free-to-pick port such a
    /// socket holds, lockr says it cannot listen rather than share it.
    @Test(.disabled(if: NetworkNamespaces.unavailable != nil)) func portZeroNeverSharesAnotherDaemonsPort() async throws
    {
        let namespace = "lkr-port-\(UUID().uuidString.prefix(6).lowercased())"
        _ = try await runAwaited(NetworkNamespaces.ip, ["netns", "add", namespace])
        defer {
            let pids =
                (try? run(NetworkNamespaces.ip, ["netns", "pids", namespace]))?.output.split(separator: "\n") ?? []
            for pid in pids.compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
            _ = try? run(NetworkNamespaces.ip, ["netns", "del", namespace])
        }
        func inside(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await runAwaited(NetworkNamespaces.ip, ["netns", "exec", namespace] + arguments)
        }
        _ = try await inside(["ip", "link", "set", "lo", "up"])
        _ = try await inside(["sysctl", "-w", "net.ipv4.ip_local_port_range=40000 40000"])
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: NetworkNamespaces.ip)
        holder.arguments = [
            "netns", "exec", namespace, "python3", "-c",
            """
            import socket, time
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            s.bind(("127.0.0.1", 40000))
            print("held", flush=True)
            time.sleep(60)
            """,
        ]
        let held = Pipe()
        holder.standardOutput = held
        try holder.run()
        defer { holder.terminate() }
        _ = held.fileHandleForReading.availableData  // "held"
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let refused = try await inside([
            LockrProcess.binary, "serve", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--web", "off",
            "--upstream",
            "127.0.0.1:9", "--state-dir", state,
        ])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(
            refused.output.contains("cannot listen on 127.0.0.1:0 (udp): address already in use"), "\(refused.output)")
    }

    @Test func theClientFindsTheDaemonWithoutNeedingAGoodConfig() async throws {
        try await withLockr { lockr, _ in
            let viaEnvironment = try await runAwaited(
                "env", ["LOCKR_STATE_DIR=\(lockr.stateDirectory)", LockrProcess.binary, "status"])
            #expect(viaEnvironment.status == 0, "\(viaEnvironment.output)")
            let config = NSTemporaryDirectory() + "lockr-e2e-client-\(UUID()).toml"
            defer { try? FileManager.default.removeItem(atPath: config) }
            try "state-dir = \"\(lockr.stateDirectory)\"\n[cache]\nsize = \"big\"\n".write(
                toFile: config, atomically: true, encoding: .utf8)
            let viaConfig = try await runAwaited(LockrProcess.binary, ["status", "--config", config])
            #expect(viaConfig.status == 0, "\(viaConfig.output)")
            #expect(viaConfig.output.contains("Now: 2") && viaConfig.output.contains("Mode: time"))
            // Someone else's user cannot read a root daemon's directory: said in words.
            let stranger = try await runAwaited(
                "setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", LockrProcess.binary, "status",
                    "--state-dir", lockr.stateDirectory,
                ])
            #expect(stranger.status == 1)
            #expect(stranger.output.contains("permission denied"), "\(stranger.output)")
        }
    }

    /// `scripts/run` as root keeps a daemon in root's own state directory, apart from the
    /// service's /var/lib/lockr; root's CLI finds it there with no flag.
    @Test func rootsCLIFindsADaemonInRootsOwnStateDirectory() async throws {
        let home = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: home) }
        let own = home + "/.local/state/lockr"
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        try await withLockr(stateDirectory: own) { lockr, _ in
            let found = try await runAwaited(
                "env", ["-u", "LOCKR_STATE_DIR", "-u", "XDG_STATE_HOME", "HOME=\(home)", LockrProcess.binary, "status"])
            #expect(found.status == 0, "\(found.output)")
            #expect(found.output.contains("tiktok"), "\(found.output)")
        }
    }

    /// A person who spent their budget cannot restart their daemon at tomorrow: `--start-at` and
    /// `--time-scale` are refused on a state directory of the real clock; a demo's own directory
    /// takes them, and a jump of policy time is in `lockr log`.
    @Test func aDemoClockIsRefusedOnARealPolicyAndLoggedOnADemos() async throws {
        let real = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: real) }
        try await withLockr(stateDirectory: real) { _, _ in }
        for flags in [["--start-at", "2030-01-01T10:00:00Z"], ["--time-scale", "60"]] {
            let refused = try await runAwaited(
                LockrProcess.binary,
                [
                    "serve", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--web", "off", "--upstream",
                    "127.0.0.1:9", "--state-dir", real,
                ] + flags)
            #expect(refused.status == 1, "\(flags): \(refused.output)")
            #expect(refused.output.contains("holds a policy on the real clock"), "\(refused.output)")
        }
        let demo = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: demo) }
        try await withLockr(["--start-at", "2026-06-01T10:00:00Z", "--time-scale", "60"], stateDirectory: demo) {
            _, _ in
        }
        try await withLockr(["--start-at", "2026-06-02T10:00:00Z"], stateDirectory: demo) { lockr, _ in
            // Saved with the first tick of the policy's clock.
            let logged = try await eventually(10) {
                try await lockr.cli("log").output.contains("policy time moved forward by ")
            }
            let log = try await lockr.cli("log").output
            #expect(logged, "\(log)")
            #expect(!lockr.log.contains("behind this machine's clock"), "a demo's clock is apart on purpose")
        }
    }

    @Test func aStateDirectoryOthersControlIsRefused() async throws {
        let shared = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: shared) }
        chown(shared, 65534, 65534)
        chmod(shared, 0o777)
        let refused = try await runAwaited(
            LockrProcess.binary,
            [
                "serve", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--web", "off", "--upstream",
                "192.0.2.1", "--state-dir", shared,
            ])
        #expect(refused.status == 1)
        #expect(refused.output.contains("belongs to uid 65534"), "\(refused.output)")

        // Made readable by others whatever the umask (a daemon in this process may have narrowed it).
        let own = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: own) }
        chmod(own, 0o755)
        try await withLockr(stateDirectory: own) { lockr, _ in
            // A directory of lockr's own user that others could read is narrowed, and said so.
            #expect(lockr.log.contains("narrowed the state directory"))
            // A control address someone else could have written gets no token.
            let address = lockr.stateDirectory + "/control.address"
            chmod(address, 0o666)
            let client = try await lockr.cli("status")
            #expect(client.status == 1)
            #expect(client.output.contains("refusing to send the control token"), "\(client.output)")
            chmod(address, 0o644)
            #expect(try await lockr.cli("status").status == 0)
        }
    }

    @Test func aBinaryWithoutItsCatalogueSaysSoAtStart() async throws {
        // A copy of the binary outside the checkout finds no blocklists/ above it.
        let directory = NSTemporaryDirectory() + "lockr-no-catalogue-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: LockrProcess.binary, toPath: directory + "/lockr")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: directory + "/lockr")
        process.arguments = [
            "serve", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--web", "off", "--upstream", "192.0.2.1",
            "--state-dir",
            directory + "/state",
        ]
        let pipe = Pipe()
        process.standardError = pipe
        try process.run()
        var log = ""
        let deadline = Date() + 20
        while !log.contains("] ready"), Date() < deadline, process.isRunning {
            log += String(decoding: pipe.fileHandleForReading.availableData, as: UTF8.self)
        }
        process.terminate()
        process.waitUntilExit()
        #expect(log.contains("warning lockr: [LockrDaemon] no app catalogue found"), "\(log)")
        // Asking to guard an app then says why there is none.
        let refused = try await runAwaited(
            directory + "/lockr", ["serve", "--guard", "tiktok", "--state-dir", directory + "/other"])
        #expect(refused.status == 1 && refused.output.contains("none was found"), "\(refused.output)")
    }

    @Test func policyTimeAheadOfTheClockIsWarnedAbout() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let tomorrow = ISO8601DateFormatter().string(from: Date().addingTimeInterval(86_400))
        try await withLockr(["--start-at", tomorrow], stateDirectory: state) { _, _ in }
        try await withLockr(stateDirectory: state) { lockr, _ in
            #expect(lockr.log.contains("ahead of this machine's clock"), "\(lockr.log)")
            let status = try await lockr.cli("status").output
            #expect(status.contains("WARNING: policy time") && status.contains("ahead of this machine's clock"))
        }
    }
}
