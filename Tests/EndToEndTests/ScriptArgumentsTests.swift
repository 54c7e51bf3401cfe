import DNSTestSupport
import Foundation
import Testing

/// Every script of the checkout answers `-h` and `--help` with its usage and refuses an unknown
/// argument, and neither changes anything: the commands a script would act with (swift, apt-get,
/// systemctl, install, rm, ...) are stand-ins here that write down being called, and the places
/// the script would write to stay empty.
@Suite struct ScriptArgumentsTests {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The scripts of scripts/ and bench/, by their path in the checkout.
    static let scripts: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: checkout + "/scripts")) ?? []
        let executable = names.map { "scripts/" + $0 }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: checkout + "/" + path, isDirectory: &isDirectory)
                && !isDirectory.boolValue && FileManager.default.isExecutableFile(atPath: checkout + "/" + path)
        }
        return executable.sorted() + [
            "bench/run", "bench/fuzz", "bench/soak", "bench/lists", "bench/encrypted", "bench/rpz", "bench/dnstap",
            "bench/memory",
        ]
    }()

    /// Commands that would change something; each stand-in appends its name to `called` and fails.
    static let actors = [
        "swift", "apt-get", "pip", "pip3", "systemctl", "install", "rm", "cp", "mv", "ln", "mkdir", "strip", "gzip",
        "dpkg-deb", "dpkg-shlibdeps", "debootstrap", "systemd-nspawn", "chmod", "chown",
    ]

    /// Runs `script` with `arguments` where every actor is a stand-in: its status and output, the
    /// actors it called, and whatever appeared in the places it was given to write to.
    func runGuarded(
        _ script: String, _ arguments: [String]
    ) async throws -> (
        status: Int32, output: String, called: String, written: [String]
    ) {
        let scratch = NSTemporaryDirectory() + "lockr-script-args-\(UUID())"
        let stand = scratch + "/bin"
        let places = scratch + "/places"
        try FileManager.default.createDirectory(atPath: stand, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: places, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for actor in Self.actors {
            let path = stand + "/" + actor
            try "#!/bin/sh\necho \(actor) >> \(scratch)/called\nexit 1\n".write(
                toFile: path, atomically: true, encoding: .utf8)
            chmod(path, 0o755)
        }
        let environment = [
            "PATH=\(stand):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")", "DESTDIR=\(places)",
            "PREFIX=\(places)/prefix", "UNITDIR=\(places)/units", "OUTDIR=\(places)/out",
        ]
        let ran = try await runAwaited("env", environment + [Self.checkout + "/" + script] + arguments)
        let called = (try? String(contentsOfFile: scratch + "/called", encoding: .utf8)) ?? ""
        let written = (try? FileManager.default.contentsOfDirectory(atPath: places)) ?? []
        return (ran.status, ran.output, called, written)
    }

    @Test(arguments: scripts) func helpPrintsTheUsageAndChangesNothing(script: String) async throws {
        for flag in ["--help", "-h"] {
            let ran = try await runGuarded(script, [flag])
            #expect(ran.status == 0, "\(script) \(flag): \(ran.output)")
            #expect(ran.output.hasPrefix("usage: "), "\(script) \(flag): \(ran.output)")
            #expect(ran.output.split(separator: "\n").count >= 2, "\(script) \(flag) says what it does")
            #expect(ran.called.isEmpty, "\(script) \(flag) called \(ran.called)")
            #expect(ran.written.isEmpty, "\(script) \(flag) wrote \(ran.written)")
        }
    }

    /// `scripts/run` hands its arguments to `lockr serve`, which checks them once it is built.
    @Test(arguments: scripts.filter { $0 != "scripts/run" })
    func anUnknownArgumentIsRefusedAndChangesNothing(script: String) async throws {
        let ran = try await runGuarded(script, ["--no-such-option"])
        #expect(ran.status == 2, "\(script): \(ran.output)")
        #expect(
            ran.output.contains("unknown argument --no-such-option")
                || ran.output.contains("unrecognized arguments: --no-such-option"), "\(script): \(ran.output)")
        #expect(ran.called.isEmpty, "\(script) called \(ran.called)")
        #expect(ran.written.isEmpty, "\(script) wrote \(ran.written)")
    }
}
