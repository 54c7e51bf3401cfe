import DNSTestSupport
import Foundation

/// A real dnsmasq on a free loopback port, with the given configuration lines: a home router's or a
/// Pi-hole's resolver (Pi-hole's FTL is a fork of dnsmasq and takes the same lines in
/// `misc.dnsmasq_lines`). Started with every signal unblocked (the test's threads block most, and a
/// child inherits that mask: dnsmasq would never see SIGTERM), stopped with SIGTERM and reaped.
final class DnsmasqProcess {
    private let configPath: String
    private let pid: pid_t
    let port: Int

    /// The dnsmasq binary (Debian's dnsmasq-base puts it in /usr/sbin).
    static var binary: String? {
        ["/usr/sbin/dnsmasq", "/usr/bin/dnsmasq"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts dnsmasq with `lines` (no /etc/resolv.conf, no /etc/hosts) and waits until it answers;
    /// with `namespace`, in that network namespace, where `port` may be given (53: a resolver as
    /// devices name it). A free port picked for it may be taken by another test before dnsmasq
    /// binds it (dnsmasq then exits with status 2): it is tried again on another, up to 5 times.
    init(lines: [String], namespace: String? = nil, port: Int? = nil) async throws {
        guard let binary = Self.binary else {
            throw LockrProcess.Failure("dnsmasq is not installed (apt-get install dnsmasq-base)")
        }
        var attempt = 0
        while true {
            attempt += 1
            let chosen = try port ?? freeLoopbackPort()
            let path = NSTemporaryDirectory() + "lockr-e2e-dnsmasq-\(UUID()).conf"
            do {
                pid = try await Self.start(binary, lines: lines, port: chosen, configPath: path, namespace: namespace)
                (self.port, configPath) = (chosen, path)
                return
            } catch is AddressTaken {
                guard port == nil, attempt < 5 else {
                    throw LockrProcess.Failure("dnsmasq exited with status 2: port \(chosen) was in use")
                }
            }
        }
    }

    private struct AddressTaken: Error {}

    /// Starts dnsmasq on `port` and waits until it answers; returns its PID.
    private static func start(
        _ binary: String, lines: [String], port: Int, configPath: String, namespace: String?
    ) async throws -> pid_t {
        let config =
            [
                "port=\(port)", "listen-address=127.0.0.1", "bind-interfaces", "no-resolv", "no-hosts",
                "user=root",
                "pid-file=",
            ] + lines
        try config.joined(separator: "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
        let command =
            (namespace.map { ["netns", "exec", $0, binary] } ?? []) + [
                "--keep-in-foreground", "--conf-file=\(configPath)",
            ]
        let pid = try spawnWithDefaultSignals(namespace == nil ? binary : NetworkNamespaces.ip, command)
        for _ in 0..<100 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                try? FileManager.default.removeItem(atPath: configPath)
                let code = (status >> 8) & 0xff
                // 2: a network problem, such as the address in use.
                if code == 2 { throw AddressTaken() }
                throw LockrProcess.Failure("dnsmasq exited with status \(code) (bad lines?)")
            }
            let probe = ["@127.0.0.1", "-p", "\(port)", "+tries=1", "+time=1", "lockr-probe.invalid"]
            let digCommand = namespace.map { ["ip", "netns", "exec", $0, "dig"] } ?? ["dig"]
            let answered = try? await runAwaited(digCommand[0], Array(digCommand.dropFirst()) + probe)
            if answered?.output.contains("status:") == true { return pid }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: configPath)
        throw LockrProcess.Failure("dnsmasq did not start answering on port \(port)")
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: configPath)
    }
}

/// Starts `path` with `arguments`, every signal unblocked and at its default, and none of the
/// test's descriptors but 0-2 (a pipe's end kept open by a server that runs on would keep another
/// test's helper waiting for its end of input); returns its PID.
func spawnWithDefaultSignals(_ path: String, _ arguments: [String]) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    _ = closeFrom(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    var all = sigset_t()
    sigemptyset(&none)
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    guard result == 0 else { throw LockrProcess.Failure("cannot run \(path): errno \(result)") }
    return pid
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which its headers hide from Swift.
private let closeFrom: @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32 = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        fatalError("glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)")
    }
    return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()

/// A loopback port that was free for TCP and UDP a moment ago. It is picked at random below the
/// kernel's ephemeral range (32768 and up), which the system hands to every outgoing socket of the
/// tests running side by side: a port from there was sometimes taken again before the server the
/// test started could bind it.
func freeLoopbackPort() throws -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 10_000...32_000)
        if canBind(port, Int32(SOCK_STREAM.rawValue)) && canBind(port, Int32(SOCK_DGRAM.rawValue)) { return port }
    }
    throw LockrProcess.Failure("no free loopback port found between 10000 and 32000")
}

/// Whether a socket of `type` can be bound to 127.0.0.1:`port` now.
private func canBind(_ port: Int, _ type: Int32) -> Bool {
    let descriptor = socket(AF_INET, type, 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
