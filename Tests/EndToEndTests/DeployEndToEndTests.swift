import DNSTestSupport
import Foundation
import Testing

/// The files in deploy/ as their tools read them: the systemd unit verified and its hardening
/// scored by systemd-analyze (offline: systemd is not PID 1 here).
@Suite struct DeployEndToEndTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy").path

    /// The unit with its ExecStart pointing at the lockr this run built (verify wants the binary).
    func unitHere() throws -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "lockr-unit-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = try String(contentsOfFile: Self.deploy + "/systemd/lockr.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/lockr", with: LockrProcess.binary)
        let path = directory + "/lockr.service"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (directory, path)
    }

    @Test func theUnitVerifiesAndItsHardeningScoresOK() async throws {
        let unit = try unitHere()
        defer { try? FileManager.default.removeItem(atPath: unit.directory) }
        let verified = try await runAwaited("systemd-analyze", ["verify", unit.path])
        #expect(verified.status == 0 && verified.output.isEmpty, "systemd-analyze verify: \(verified.output)")
        let scored = try await runAwaited("systemd-analyze", ["security", "--offline=true", unit.path])
        let line = try #require(scored.output.split(separator: "\n").last { $0.contains("Overall exposure level") })
        let score = try #require(line.firstMatch(of: /level for lockr\.service: (\d+\.\d+) (\w+)/))
        #expect(Double(score.1)! <= 2.0 && score.2 == "OK", "exposure: \(line)")
        let text = try String(contentsOfFile: Self.deploy + "/systemd/lockr.service", encoding: .utf8)
        for setting in [
            "Type=notify", "WatchdogSec=", "StateDirectory=lockr", "AmbientCapabilities=CAP_NET_BIND_SERVICE",
            "After=network-online.target time-sync.target", "ProtectSystem=strict", "NoNewPrivileges=yes",
            "SystemCallFilter=@system-service", "RestrictAddressFamilies=", "Restart=on-failure",
        ] {
            #expect(text.contains(setting), "\(setting)")
        }
    }

    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts").path

    @Test func theInstallScriptsPutEverythingInItsPlaceUnderPrefixAndDestdirAndTakeItAway() async throws {
        let stage = NSTemporaryDirectory() + "lockr-stage-\(UUID())"
        defer { try? FileManager.default.removeItem(atPath: stage) }
        let prefix = "/opt/lockr-test"
        let environment = ["DESTDIR=\(stage)", "PREFIX=\(prefix)", "LOCKR_BINARY=\(LockrProcess.binary)"]
        let installed = try await runAwaited("env", environment + [Self.scripts + "/install"])
        #expect(installed.status == 0, "\(installed.output)")
        let root = stage + prefix
        let files = FileManager.default
        #expect(files.isExecutableFile(atPath: root + "/bin/lockr"))
        #expect(files.fileExists(atPath: root + "/share/lockr/blocklists/README.md"), "the catalogue")
        #expect(files.fileExists(atPath: root + "/share/doc/lockr/README.md"))
        #expect(
            files.fileExists(atPath: root + "/share/doc/lockr/docs/configuration.md"), "the docs the README links to")
        let manual = try await runAwaited("gzip", ["-dc", root + "/share/man/man1/lockr.1.gz"]).output
        #expect(manual.contains(".Dt LOCKR 1") && manual.contains(".It Em unlock"), "the manual page")
        let unit = try String(contentsOfFile: stage + "/etc/systemd/system/lockr.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix)/bin/lockr serve --config /etc/lockr/lockr.toml"), "\(unit)")
        let config = stage + "/etc/lockr/lockr.toml"
        #expect(
            try String(contentsOfFile: config, encoding: .utf8).contains(
                "listen = [\"127.0.0.1:5335\", \"[::1]:5335\"]"))

        // The installed program reads the installed config and finds the catalogue under its prefix.
        let state = NSTemporaryDirectory() + "lockr-installed-state-\(UUID())"
        defer { try? files.removeItem(atPath: state) }
        let ran = try await runAwaited(
            "timeout",
            [
                "3", root + "/bin/lockr", "serve", "--config", config, "--listen", "127.0.0.1:0", "--control",
                "127.0.0.1:0",
                "--web", "off", "--state-dir", state, "--upstream", "127.0.0.1:9",
            ])
        #expect(ran.output.contains("] ready"), "\(ran.output)")
        #expect(ran.output.contains("catalogue=\(root)/share/lockr/blocklists"), "\(ran.output)")

        // Installed again: the config someone edited is kept; uninstalled: it stays, the rest goes.
        try (try String(contentsOfFile: config, encoding: .utf8) + "\n# edited\n").write(
            toFile: config, atomically: true, encoding: .utf8)
        let again = try await runAwaited("env", environment + [Self.scripts + "/install"])
        #expect(again.output.contains("kept the existing"), "\(again.output)")
        let removed = try await runAwaited("env", environment + [Self.scripts + "/uninstall"])
        #expect(
            removed.status == 0 && removed.output.contains("kept \(config) (changed since it was installed)"),
            "\(removed.output)")
        for path in ["/bin/lockr", "/share/lockr", "/share/doc/lockr", "/share/man/man1/lockr.1.gz"] {
            #expect(!files.fileExists(atPath: root + path), "\(path) removed")
        }
        #expect(!files.fileExists(atPath: stage + "/etc/systemd/system/lockr.service"))
        #expect(files.fileExists(atPath: config))
        // An unchanged config goes with the rest.
        try files.removeItem(atPath: config)
        _ = try await runAwaited("env", environment + [Self.scripts + "/install"])
        _ = try await runAwaited("env", environment + [Self.scripts + "/uninstall"])
        #expect(!files.fileExists(atPath: config) && !files.fileExists(atPath: stage + "/etc/lockr"))
    }

    @Test func theDebianPackageInstallsUpgradesKeepingAnEditedConfigAndPurgesCleanly() async throws {
        let work = NSTemporaryDirectory() + "lockr-deb-\(UUID())"
        defer { try? FileManager.default.removeItem(atPath: work) }
        let root = work + "/root"
        for directory in ["/var/lib/dpkg/info", "/var/lib/dpkg/updates"] {
            try FileManager.default.createDirectory(atPath: root + directory, withIntermediateDirectories: true)
        }
        #expect(FileManager.default.createFile(atPath: root + "/var/lib/dpkg/status", contents: Data()))
        // A program that needs the toolchain's Swift runtime would not run where the package goes.
        let refused = try await runAwaited(
            "env", ["OUTDIR=\(work)", "LOCKR_BINARY=\(LockrProcess.binary)", Self.scripts + "/package-deb"])
        #expect(
            refused.status == 1 && refused.output.contains("needs the Swift toolchain's runtime"), "\(refused.output)")
        func package(_ version: String) async throws -> String {
            let built = try await runAwaited(
                "env",
                [
                    "VERSION=\(version)", "OUTDIR=\(work)", "LOCKR_BINARY=\(ServiceBootEndToEndTests.staticBinary)",
                    "DEB_COMPRESS=none", Self.scripts + "/package-deb",
                ])
            #expect(built.status == 0, "\(built.output)")
            return try #require(built.output.split(separator: "\n").last { $0.hasSuffix(".deb") }.map(String.init))
        }
        // Into a root of the test's own: its dependencies are this machine's, not that root's.
        func dpkg(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await runAwaited(
                "dpkg",
                ["--root=\(root)", "--force-script-chrootless", "--force-depends", "--log=/dev/null"] + arguments)
        }
        // Without VERSION the package carries the version `lockr --version` prints.
        let version = try await runAwaited(LockrProcess.binary, ["--version"]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(version.wholeMatch(of: /\d+\.\d+\.\d+/) != nil, "\(version)")
        let unversioned = try await runAwaited(
            "env",
            [
                "OUTDIR=\(work)", "LOCKR_BINARY=\(ServiceBootEndToEndTests.staticBinary)", "DEB_COMPRESS=none",
                Self.scripts + "/package-deb",
            ])
        #expect(unversioned.output.contains("/lockr_\(version)_"), "\(unversioned.output)")
        let first = try await package("0.1.0")
        let info = try await runAwaited("dpkg-deb", ["--info", first]).output
        #expect(
            info.contains("Package: lockr") && info.contains("Depends: ") && info.contains("libldns3")
                && info.contains(", tzdata"), "\(info)")
        let contents = try await runAwaited("dpkg-deb", ["--contents", first]).output
        for path in [
            "./usr/bin/lockr", "./usr/share/lockr/blocklists/README.md", "./usr/lib/systemd/system/lockr.service",
            "./etc/lockr/lockr.toml", "./usr/share/doc/lockr/copyright", "./usr/share/doc/lockr/changelog.gz",
            "./usr/share/man/man1/lockr.1.gz",
        ] {
            #expect(contents.contains(path), "\(path)")
        }
        let installed = try await dpkg(["-i", first])
        #expect(installed.output.contains("Setting up lockr (0.1.0)"), "\(installed.output)")
        let config = root + "/etc/lockr/lockr.toml"
        try (try String(contentsOfFile: config, encoding: .utf8) + "# edited\n").write(
            toFile: config, atomically: true, encoding: .utf8)
        let upgraded = try await dpkg(["--force-confold", "-i", try await package("0.1.1")])
        #expect(upgraded.output.contains("Setting up lockr (0.1.1)"), "\(upgraded.output)")
        #expect(
            try String(contentsOfFile: config, encoding: .utf8).hasSuffix("# edited\n"), "the edited config is kept")
        try FileManager.default.createDirectory(atPath: root + "/var/lib/lockr", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: root + "/var/lib/lockr/state.sqlite", contents: Data()))
        let purged = try await dpkg(["--purge", "lockr"])
        #expect(purged.status == 0, "\(purged.output)")
        let left = try await runAwaited(
            "find", [root, "-path", root + "/var/lib/dpkg", "-prune", "-o", "-type", "f", "-print"]
        )
        .output
        #expect(left.isEmpty, "nothing of lockr is left: \(left)")
    }
}
