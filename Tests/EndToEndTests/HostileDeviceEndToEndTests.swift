import DNSTestSupport
import Foundation
import Testing

/// What a device on the LAN that wants lockr's DNS gone can try, against the real binary: each
/// attempt is refused in part, and DNS keeps answering throughout.
@Suite(.serialized) struct HostileDeviceEndToEndTests {
    /// One HTTP request on a connection of its own from `source`, kept open: the connection, and
    /// the status of the answer's head (nil when it was closed without one).
    static func request(_ path: String, port: Int, from source: String) -> (fd: Int32?, status: Int?) {
        guard let fd = DNSClient.openTCP(port: port, from: source) else { return (nil, nil) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: lockr\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return (fd, nil) }
        var head = [UInt8](repeating: 0, count: 12)
        let got = recv(fd, &head, head.count, Int32(MSG_WAITALL))
        guard got == head.count, let status = Int(String(decoding: head[9..<12], as: UTF8.self)) else {
            return (fd, nil)
        }
        return (fd, status)
    }

    /// Whether DNS answers a name it has not cached, over UDP and over TCP.
    static func dnsAnswers(_ port: Int) async throws -> Bool {
        let name = "n\(UInt32.random(in: 0...UInt32.max)).test"
        let overUDP = try await dig(port, name)
        let overTCP = try await dig(port, name, "+tcp")
        return overUDP.contains("status: NXDOMAIN") && overTCP.contains("status: NXDOMAIN")
    }

    static func openFiles(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    /// 2,000 event streams asked for, from one address and from 250, by a daemon whose limit of
    /// open files cannot be raised: each address gets its share, all of them no more than the
    /// total, and DNS, the control API and a new device's page go on working.
    @Test func aFloodOfEventStreamsNeverTakesTheDescriptorsDNSNeeds() async throws {
        let upstream = try await ScriptedUpstream()
        let lockr = try await LockrProcess(
            ["--upstream", "127.0.0.1:\(upstream.port)"], openFiles: (soft: 1_024, hard: 1_024))
        try await stoppingAfterwards(lockr, upstream) {
            let web = Int(try #require(lockr.webAddress?.split(separator: ":").last))!
            // Only the streams are kept open here: refused connections are closed on this side too,
            // as Foundation's Process (which runs dig and curl) fails in a process holding over 1,024.
            var held: [Int32] = []
            defer { for fd in held { close(fd) } }
            func keepStreams(_ fd: Int32?, _ status: Int?) {
                guard let fd else { return }
                if status == 200 { held.append(fd) } else { close(fd) }
            }
            var fromOne: [Int?] = []
            for _ in 0..<1_000 {
                let (fd, status) = Self.request("/events", port: web, from: "127.0.0.1")
                keepStreams(fd, status)
                fromOne.append(status)
            }
            let streams = fromOne.filter { $0 == 200 }.count
            #expect(streams == 8, "one address holds 8 streams, got \(streams)")
            #expect(fromOne.contains(429), "the rest are told why")
            var fromMany: [Int?] = []
            for index in 0..<1_000 {
                let source = "127.0.\(1 + index / 250).\(1 + index % 250)"
                let (fd, status) = Self.request("/events", port: web, from: source)
                keepStreams(fd, status)
                fromMany.append(status)
            }
            let more = fromMany.filter { $0 == 200 }.count
            #expect(streams + more == 128, "128 streams in all, got \(streams + more)")
            #expect(fromMany.contains(503))
            #expect(Self.openFiles(of: lockr.process.processIdentifier) < 1_024 - 256, "a reserve stays free")
            #expect(try await Self.dnsAnswers(lockr.port))
            #expect(try await lockr.cli("status").status == 0, "the control API has descriptors of its own")
            // Bare connections that never ask: one address keeps 32 of them.
            let bare = (0..<40).compactMap { _ in DNSClient.openTCP(port: web, from: "127.0.8.1") }
            held += bare
            try await Task.sleep(for: .milliseconds(300))
            let open = bare.filter { !DNSClient.isClosedNow($0) }.count
            #expect(open == 32, "\(open) bare connections kept")
            let page = Self.request("/", port: web, from: "127.0.9.1")
            if let fd = page.fd { close(fd) }
            #expect(page.status == 200, "a new device's page loads")
            let (token, address) = try PolicyEndToEndTests().controlEndpoint(lockr)
            let metrics = try await runAwaited(
                "curl", ["-s", "-H", "Authorization: Bearer \(token)", "http://\(address)/metrics"]
            ).output
            #expect(metrics.contains(#"lockr_connections_open{kind="events"} 128"#), "\(metrics)")
            #expect(metrics.contains(#"lockr_connections_refused_total{kind="events"}"#))
            for fd in held { close(fd) }
            held = []
            let freed = try await eventually(10) {
                let again = Self.request("/events", port: web, from: "127.0.0.1")
                if let fd = again.fd { close(fd) }
                return again.status == 200
            }
            #expect(freed, "closed streams give their share back")
            #expect(lockr.process.isRunning)
        }
    }

    /// Asks `name` from `count` distinct addresses (127.1.0.1 and on), one query each, not waiting
    /// for answers.
    static func askFromManyAddresses(_ count: Int, port: Int, name: String) async throws {
        let flood = try await runAwaited(
            "python3",
            [
                "-c",
                """
                import socket, struct, sys
                count, port, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
                query = struct.pack(">HHHHHH", 1, 0x0100, 1, 0, 0, 0)
                query += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\\0" + struct.pack(">HH", 1, 1)
                for index in range(count):
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    s.bind(("127.1.%d.%d" % (index // 250, 1 + index % 250), 0))
                    s.sendto(query, ("127.0.0.1", port))
                    s.close()
                """,
                "\(count)", "\(port)", name,
            ])
        guard flood.status == 0 else { throw LockrProcess.Failure(flood.output) }
    }

    /// The devices lockr lists, as the control API's JSON.
    static func devices(_ lockr: LockrProcess) async throws -> String {
        let (token, address) = try PolicyEndToEndTests().controlEndpoint(lockr)
        return try await runAwaited(
            "curl",
            ["-s", "--max-time", "60", "-H", "Authorization: Bearer \(token)", "http://\(address)/api/v1/devices"]
        ).output
    }

    /// 20,000 addresses ask once each, more than the device table holds: a real device that asks
    /// afterwards is listed, the table says it forgot some, and what it holds outlives a restart.
    @Test func aFloodOfAddressesNeitherHidesANewDeviceNorOutlivesTheTable() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let upstream = try await ScriptedUpstream()
        let lockr = try await LockrProcess(["--upstream", "127.0.0.1:\(upstream.port)"], stateDirectory: state)
        try await stoppingAfterwards(lockr, upstream) {
            try await Self.askFromManyAddresses(20_000, port: lockr.port, name: "www.test")
            // Asked again while lockr may still be answering the flood on a loaded machine.
            #expect(
                try await eventually(20) {
                    try await dig(lockr.port, "www.test", "-b", "127.200.0.1").contains("192.0.2.1")
                })
            // It keeps asking: sightings of the flood still queued when it first asked may push it
            // out of the full table once more. The table is read through the API with time to
            // spare: 16,000 devices can take a loaded machine past the CLI's 10 s.
            let listed = try await eventually(60) {
                _ = try await dig(lockr.port, "www.test", "-b", "127.200.0.1")
                return try await Self.devices(lockr).contains("\"127.200.0.1\"")
            }
            #expect(listed, "the new device is listed")
            let (token, address) = try PolicyEndToEndTests().controlEndpoint(lockr)
            let metrics = try await runAwaited(
                "curl", ["-s", "-H", "Authorization: Bearer \(token)", "http://\(address)/metrics"]
            ).output
            let evicted = metrics.firstMatch(of: /lockr_devices_evicted_total (\d+)/).map { Int($0.1)! } ?? 0
            #expect(evicted > 3_000, "\(metrics)")
            let logged = try await eventually(10) { lockr.log.contains("device table full") }
            #expect(logged)
        }
        let upstream2 = try await ScriptedUpstream()
        let again = try await LockrProcess(["--upstream", "127.0.0.1:\(upstream2.port)"], stateDirectory: state)
        try await stoppingAfterwards(again, upstream2) {
            let devices = try await Self.devices(again)
            #expect(devices.contains("\"127.200.0.1\""), "kept across the restart")
            #expect(devices.components(separatedBy: "\"address\"").count > 10_000)
        }
    }

    /// A device asking 80,000 unique names (blocked ones, so that no upstream is loaded) cannot
    /// grow the query log past its `max-size`: the oldest queries go, the file stays within it,
    /// and the newest are there to read.
    @Test func uniqueNamesCannotGrowTheQueryLogPastItsSize() async throws {
        let config = NSTemporaryDirectory() + "lockr-small-log-\(UUID()).toml"
        try "[query-log]\nmax-size = \"1MB\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        // The names are blocked, so that lockr answers them itself: the flood loads no upstream.
        let list = NSTemporaryDirectory() + "lockr-flood-\(UUID()).txt"
        try "||flood.test^\n".write(toFile: list, atomically: true, encoding: .utf8)
        defer {
            try? FileManager.default.removeItem(atPath: config)
            try? FileManager.default.removeItem(atPath: list)
        }
        let upstream = try await ScriptedUpstream()
        let lockr = try await LockrProcess([
            "--config", config, "--blocklist", list, "--upstream", "127.0.0.1:\(upstream.port)",
        ])
        try await stoppingAfterwards(lockr, upstream) {
            let flood = try await runAwaited(
                "python3",
                [
                    "-c",
                    """
                    import socket, struct, sys, time
                    port = int(sys.argv[1])
                    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    for index in range(80000):
                        name = "u%06d-a-long-unique-label-for-the-log.flood.test" % index
                        query = struct.pack(">HHHHHH", index % 65536, 0x0100, 1, 0, 0, 0)
                        query += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\\0"
                        s.sendto(query + struct.pack(">HH", 1, 1), ("127.0.0.1", port))
                        if index % 500 == 499: time.sleep(0.04)
                    """,
                    "\(lockr.port)",
                ])
            #expect(flood.status == 0, "\(flood.output)")
            let database = lockr.stateDirectory + "/queries.sqlite"
            func bytes(_ path: String) -> Int {
                var info = stat()
                return stat(path, &info) == 0 ? Int(info.st_size) : 0
            }
            let trimmed = try await eventually(20) { lockr.log.contains("query log at its size limit") }
            #expect(trimmed, "\(lockr.log)")
            // The file and its write-ahead log, which a checkpoint cuts back once queries are trimmed.
            let kept = try await eventually(10) { bytes(database) + bytes(database + "-wal") <= 1_200_000 }
            #expect(kept, "queries.sqlite is \(bytes(database)) bytes, its WAL \(bytes(database + "-wal"))")
            let newest = try await lockr.cli("queries", "--limit", "1").output
            #expect(newest.contains(".flood.test"), "\(newest)")
            #expect(try await dig(lockr.port, "www.test", "+short").contains("192.0.2.1"))
        }
    }

    /// A service gets 1,024 open files unless lockr raises its soft limit to the hard one.
    @Test func theSoftLimitOfOpenFilesIsRaised() async throws {
        let upstream = try await ScriptedUpstream()
        let lockr = try await LockrProcess(
            ["--upstream", "127.0.0.1:\(upstream.port)", "--web", "off"], openFiles: (soft: 1_024, hard: 8_192))
        try await stoppingAfterwards(lockr, upstream) {
            let limits = try String(contentsOfFile: "/proc/\(lockr.process.processIdentifier)/limits", encoding: .utf8)
            let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }.map(String.init) ?? ""
            #expect(
                line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["8192", "8192"],
                "\(line)")
        }
    }
}

/// The state directory: every file lockr opens there is checked alike, everything it makes is
/// 0600, and a directory that another user could swap is refused.
@Suite struct StateDirectoryEndToEndTests {
    /// `lockr serve` on `state`, stopped after 10 s if it starts.
    static func serve(_ state: String) async throws -> (status: Int32, output: String) {
        try await runAwaited(
            "timeout",
            [
                "10", LockrProcess.binary, "serve", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--web",
                "off", "--upstream", "127.0.0.1:9", "--state-dir", state,
            ])
    }

    @Test func aQueryLogLinkedToAnotherUsersFileIsRefused() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let elsewhere = NSTemporaryDirectory() + "lockr-not-mine-\(UUID())"
        FileManager.default.createFile(atPath: elsewhere, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        chown(elsewhere, 65534, 65534)
        try FileManager.default.createSymbolicLink(atPath: state + "/queries.sqlite", withDestinationPath: elsewhere)
        let refused = try await Self.serve(state)
        #expect(refused.status == 1, "\(refused.output)")
        #expect(refused.output.contains("\(state)/queries.sqlite is not a regular file"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere + "-wal"), "nothing was made beside the target")
    }

    @Test func aDirectoryInADirectoryOfAnotherUserIsRefused() async throws {
        let parent = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        chown(parent, 65534, 65534)
        chmod(parent, 0o755)
        let refused = try await Self.serve(parent + "/lockr")
        #expect(refused.status == 1, "\(refused.output)")
        #expect(
            refused.output.contains("\(parent), above the state directory, belongs to uid 65534"), "\(refused.output)")
    }

    @Test func everythingLockrMakesIsPrivateAndLooserFilesAreNarrowed() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let upstream = try await ScriptedUpstream()
        do {
            let lockr = try await LockrProcess(["--upstream", "127.0.0.1:\(upstream.port)"], stateDirectory: state)
            try await stoppingAfterwards(lockr, upstream) {
                _ = try await dig(lockr.port, "www.test")
                let logged = try await eventually(10) {
                    FileManager.default.fileExists(atPath: state + "/queries.sqlite-wal")
                }
                #expect(logged)
                for name in try FileManager.default.contentsOfDirectory(atPath: state) {
                    var info = stat()
                    lstat(state + "/" + name, &info)
                    #expect(info.st_mode & 0o077 == 0, "\(name): mode \(String(info.st_mode & 0o777, radix: 8))")
                }
            }
        }
        chmod(state + "/queries.sqlite", 0o644)
        let upstream2 = try await ScriptedUpstream()
        let again = try await LockrProcess(["--upstream", "127.0.0.1:\(upstream2.port)"], stateDirectory: state)
        try await stoppingAfterwards(again, upstream2) {
            var info = stat()
            stat(state + "/queries.sqlite", &info)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(again.log.contains("narrowed \(state)/queries.sqlite from mode 644 to 600"), "\(again.log)")
        }
    }
}

/// A state directory on a small disk of its own (tmpfs), which a test can fill.
struct SmallDisk {
    let mountPoint: String

    /// Why there is none here (mounting needs root), or nil.
    static var unavailable: String? {
        guard getuid() == 0 else { return "mounting a tmpfs needs root" }
        let probe = NSTemporaryDirectory() + "lockr-mount-probe-\(UUID())"
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? run("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", probe]))?.status == 0 else {
            return "mounting a tmpfs is not allowed here"
        }
        _ = try? run("umount", [probe])
        return nil
    }

    init(megabytes: Int) throws {
        mountPoint = NSTemporaryDirectory() + "lockr-small-disk-\(UUID())"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try run("mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", mountPoint])
        guard mounted.status == 0 else { throw LockrProcess.Failure("mount: \(mounted.output)") }
    }

    /// Writes a file until the disk is full.
    func fill() {
        let descriptor = open(mountPoint + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0xAB, count: 4_096)
        while write(descriptor, chunk, chunk.count) > 0 {}
    }

    func makeRoom() { unlink(mountPoint + "/filler") }

    func remove() {
        _ = try? run("umount", ["-l", mountPoint])
        try? FileManager.default.removeItem(atPath: mountPoint)
    }
}

/// A full disk: a change that cannot be stored is not made, and the caller hears why.
@Suite struct FullDiskEndToEndTests {
    @Test(.disabled(if: SmallDisk.unavailable != nil)) func aChangeThatCannotBeStoredIsRefusedWhole() async throws {
        let disk = try SmallDisk(megabytes: 16)
        defer { disk.remove() }
        let state = disk.mountPoint + "/state"
        let upstream = try await ScriptedUpstream()
        let lockr = try await LockrProcess(
            ["--upstream", "127.0.0.1:\(upstream.port)", "--guard", "tiktok"], stateDirectory: state)
        try await stoppingAfterwards(lockr, upstream) {
            disk.fill()
            let guarded = try await lockr.cli("guard", "add", "instagram")
            #expect(guarded.status != 0, "\(guarded.output)")
            #expect(guarded.output.contains("full"), "\(guarded.output)")
            let (token, address) = try PolicyEndToEndTests().controlEndpoint(lockr)
            let mode = try await runAwaited(
                "curl",
                [
                    "-s", "-w", "\n%{http_code}", "-X", "PUT", "-H", "Authorization: Bearer \(token)", "-H",
                    "Content-Type: application/json", "--data-raw", #"{"mode":"hourly","minutes_per_hour":10}"#,
                    "http://\(address)/api/v1/mode",
                ]
            ).output
            #expect(mode.hasSuffix("\n500") && mode.contains(#""code":"storage""#), "\(mode)")
            let status = try await lockr.cli("status").output
            #expect(!status.contains("instagram") && status.contains("Mode: time"), "nothing changed: \(status)")
            #expect(try await dig(lockr.port, "www.test", "+short").contains("192.0.2.1"), "DNS goes on")
            disk.makeRoom()
            let again = try await lockr.cli("guard", "add", "instagram")
            #expect(again.status == 0, "\(again.output)")
        }
        let upstream2 = try await ScriptedUpstream()
        let restarted = try await LockrProcess(["--upstream", "127.0.0.1:\(upstream2.port)"], stateDirectory: state)
        try await stoppingAfterwards(restarted, upstream2) {
            let status = try await restarted.cli("status").output
            #expect(status.contains("instagram") && status.contains("Mode: time"), "\(status)")
        }
    }
}
