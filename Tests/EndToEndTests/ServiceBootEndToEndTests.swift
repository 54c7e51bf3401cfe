import DNSTestSupport
import Foundation
import Testing

/// The .deb booted for real: a minimal Debian of this machine's release (debootstrap), with no Swift
/// toolchain, gets the package installed by its own dpkg and boots under systemd in a container
/// (`systemd-nspawn --boot`, its own network namespace). A check unit runs once lockr.service has
/// started, writes what it saw (then upgrades and purges the package), and powers the container off.
@Suite(.serialized) struct ServiceBootEndToEndTests {
    /// The program as scripts/build-static links it for a release, with the Swift runtime in it.
    static let staticBinary = checkout + "/.build-static/release/lockr"
    static let checkout = URL(fileURLWithPath: DeployEndToEndTests.scripts).deletingLastPathComponent().path

    /// What the check unit does inside the container; each part is headed "== NAME".
    static let checkScript = #"""
        #!/bin/sh
        exec > /var/log/lockr-check.log 2>&1
        section() { echo; echo "== $1"; }
        show() { systemctl show lockr -p "$1" --value; }
        waitActive() {
          for i in $(seq 60); do state="$(systemctl is-active lockr)"; [ "$state" = activating ] || break; sleep 1; done
          echo "$state"
        }
        section started
        waitActive
        if [ "$state" != active ]; then
          section journal; journalctl -u lockr -o cat --no-pager; systemctl poweroff --no-block; exit 0
        fi
        systemctl show lockr -p Type -p StatusText -p NRestarts
        pid="$(show MainPID)"
        section process
        grep -E '^(Uid|CapEff|NoNewPrivs|Seccomp):' "/proc/$pid/status"
        section dns
        drill -p 5335 @127.0.0.1 lockr.lan A
        drill -p 5335 @::1 dns.google AAAA
        section web
        curl -sS -o /dev/null -w 'status %{http_code}\n' http://127.0.0.1:8080/
        section cli-root
        lockr status
        section doctor
        lockr doctor
        section cli-user
        setpriv --reuid=65534 --regid=65534 --clear-groups lockr status
        section reload
        systemctl reload lockr
        echo "reload exit $?, $(systemctl is-active lockr), main pid $( [ "$(show MainPID)" = "$pid" ] && echo kept || echo changed)"
        section killed
        kill -9 "$pid"
        for i in $(seq 20); do [ "$(show NRestarts)" = 1 ] && [ "$(systemctl is-active lockr)" = active ] && break; sleep 1; done
        echo "restarts $(show NRestarts), $(systemctl is-active lockr)"
        lockr status | head -2
        section watchdog
        mkdir -p /run/systemd/system/lockr.service.d
        printf '[Service]\nWatchdogSec=4\n' > /run/systemd/system/lockr.service.d/watchdog.conf
        systemctl daemon-reload
        systemctl restart lockr
        pid="$(show MainPID)"
        sleep 10
        echo "after 10 s: $(systemctl is-active lockr), main pid $( [ "$(show MainPID)" = "$pid" ] && echo kept || echo changed)"
        section stalled
        printf '[Service]\nExecStart=\nExecStart=/usr/bin/lockr serve --config /etc/lockr/lockr.toml --state-dir /var/lib/lockr --test-stall-dns-after 3\n' \
          > /run/systemd/system/lockr.service.d/stall.conf
        systemctl daemon-reload
        systemctl restart lockr
        for i in $(seq 30); do journalctl -u lockr -o cat | grep -q "Watchdog timeout" && break; sleep 1; done
        journalctl -u lockr -o cat | grep -E "Watchdog timeout|Failed with result 'watchdog'"
        rm -r /run/systemd/system/lockr.service.d
        systemctl daemon-reload
        systemctl restart lockr
        waitActive
        section stopped
        systemctl stop lockr
        systemctl show lockr -p Result -p ExecMainStatus -p ActiveState
        section security
        systemd-analyze security lockr.service | tail -1
        section journal
        journalctl -u lockr -o cat --no-pager
        section upgraded
        systemctl start lockr
        pid="$(show MainPID)"
        dpkg -i /var/cache/lockr-next.deb > /dev/null
        waitActive
        echo "version $(dpkg-query -W -f '${Version}' lockr), main pid $( [ "$(show MainPID)" = "$pid" ] && echo kept || echo changed)"
        lockr status | head -1
        section purged
        dpkg --purge lockr > /dev/null
        echo "$(systemctl is-active lockr), unit $(systemctl show lockr -p LoadState --value)"
        for path in /var/lib/lockr /var/lib/private/lockr /etc/lockr /usr/bin/lockr; do [ -e "$path" ] && echo "left: $path"; done
        echo done
        section poweroff
        systemctl poweroff --no-block
        """#

    static let checkUnit = """
        [Unit]
        Description=lockr's boot check
        After=lockr.service

        [Service]
        Type=oneshot
        ExecStart=/usr/local/sbin/lockr-check

        [Install]
        WantedBy=multi-user.target
        """

    /// What keeps the program's resident memory small at start (bench/README.md, "Lean"): its
    /// relocations packed (RELR), none of its own symbols exported, and the functions it runs until
    /// its first answers (scripts/startup-order) laid out together rather than over its 37 MB of code.
    @Test func theReleaseProgramIsLaidOutForStartUp() async throws {
        let sections = try await runAwaited("readelf", ["-SW", Self.staticBinary]).output
        #expect(sections.contains(".relr.dyn"), "no packed relocations")
        let exported = try await runAwaited("nm", ["-D", "--defined-only", Self.staticBinary]).output
        #expect(exported.split(separator: "\n").count < 1_000, "lockr's own symbols are exported")

        let order = try String(contentsOfFile: Self.checkout + "/.build-static/startup-order.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init)
        try #require(order.count > 5_000, "callgrind saw only \(order.count) functions run")
        var addresses: [String: UInt64] = [:]
        for line in try await runAwaited("nm", ["--defined-only", Self.staticBinary]).output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3, "tTwW".contains(fields[1]), let address = UInt64(fields[0], radix: 16) {
                addresses[String(fields[2])] = address
            }
        }
        let placed = order.compactMap { addresses[$0] }.sorted()
        try #require(
            placed.count > order.count * 3 / 4, "only \(placed.count) of \(order.count) ordered functions found")
        // Nine tenths of them (2-3 MB of functions, with the runtime's larger sections around them) lie
        // within 12 MB of one another (5.4 MB); unordered, they spread over about 30 MB.
        let tenth = placed.count / 20
        let span = placed[placed.count - 1 - tenth] - placed[tenth]
        #expect(span < 12 << 20, "the start-up functions spread over \(span >> 20) MB")
    }

    @Test(.timeLimit(.minutes(10))) func theDebianPackageBootsUnderSystemdWithoutASwiftToolchain() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.staticBinary),
            "no \(Self.staticBinary): build it with `scripts/build-static`")
        let linked = try await runAwaited("ldd", [Self.staticBinary]).output
        #expect(
            !linked.contains("libswift") && !linked.contains("/opt/swift"), "the Swift runtime is linked in: \(linked)")
        // PocketSphinx and libdbus are loaded when first used, not at start.
        #expect(!linked.contains("pocketsphinx") && !linked.contains("dbus"), "\(linked)")

        let work = NSTemporaryDirectory() + "lockr-boot-\(UUID())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { _ = try? run("rm", ["-rf", "--one-file-system", work]) }

        // The package, with the program stripped as a release is.
        let program = work + "/lockr"
        #expect(try await runAwaited("strip", ["-o", program, Self.staticBinary]).status == 0)
        let built = try await runAwaited(
            "env",
            [
                "VERSION=0.1.0", "OUTDIR=\(work)", "LOCKR_BINARY=\(program)", "DEB_COMPRESS=none",
                DeployEndToEndTests.scripts + "/package-deb",
            ])
        #expect(built.status == 0, "\(built.output)")
        let package = try #require(built.output.split(separator: "\n").last { $0.hasSuffix(".deb") }.map(String.init))
        let next = try await runAwaited(
            "env",
            [
                "VERSION=0.1.1", "OUTDIR=\(work)", "LOCKR_BINARY=\(program)", "DEB_COMPRESS=none",
                DeployEndToEndTests.scripts + "/package-deb",
            ])
        let nextPackage = try #require(
            next.output.split(separator: "\n").last { $0.hasSuffix(".deb") }.map(String.init))
        let depends = try await runAwaited("dpkg-deb", ["--field", package, "Depends"]).output
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")[0] }

        // A minimal Debian of this machine's release, with systemd, a DNS client, curl and
        // exactly the libraries the package depends on.
        let root = work + "/root"
        let release = try #require(
            try String(contentsOfFile: "/etc/os-release", encoding: .utf8).firstMatch(of: /VERSION_CODENAME=(\w+)/)?.1)
        let mirror = ProcessInfo.processInfo.environment["LOCKR_TEST_DEBIAN_MIRROR"] ?? "http://deb.debian.org/debian"
        let packages = ["systemd", "systemd-sysv", "dbus", "ldnsutils", "curl"] + depends.map(String.init)
        let strapped = try await runAwaited(
            "timeout",
            [
                "600", "debootstrap", "--variant=minbase", "--include=" + packages.joined(separator: ","),
                String(release), root, mirror,
            ])
        try #require(strapped.status == 0, "debootstrap: \(strapped.output.suffix(2000))")
        #expect(!FileManager.default.fileExists(atPath: root + "/opt/swift"), "no Swift toolchain in the container")

        // Installed by the container's own dpkg, which checks the dependencies.
        try FileManager.default.copyItem(atPath: package, toPath: root + "/var/cache/lockr.deb")
        try FileManager.default.copyItem(atPath: nextPackage, toPath: root + "/var/cache/lockr-next.deb")
        let installed = try await runAwaited(
            "timeout", ["120"] + Self.nspawn(root) + ["dpkg", "-i", "/var/cache/lockr.deb"])
        #expect(installed.output.contains("Setting up lockr (0.1.0)"), "\(installed.output)")
        #expect(
            installed.output.contains("multi-user.target.wants/lockr.service"),
            "enabled at install: \(installed.output)")

        try Self.checkScript.write(toFile: root + "/usr/local/sbin/lockr-check", atomically: true, encoding: .utf8)
        chmod(root + "/usr/local/sbin/lockr-check", 0o755)
        try Self.checkUnit.write(
            toFile: root + "/etc/systemd/system/lockr-check.service", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: root + "/etc/systemd/system/multi-user.target.wants/lockr-check.service",
            withDestinationPath: "/etc/systemd/system/lockr-check.service")

        let booted = try await runAwaited("timeout", ["300"] + Self.nspawn(root) + ["--boot"])
        let log = (try? String(contentsOfFile: root + "/var/log/lockr-check.log", encoding: .utf8)) ?? ""
        try #require(!log.isEmpty, "the check unit wrote nothing; the container said: \(booted.output.suffix(3000))")
        let parts = Self.sections(log)
        #expect(booted.status == 0, "the container powered itself off: \(booted.output.suffix(1500))")
        try #require(parts["started"]?.hasPrefix("active") == true, "lockr.service started: \(log)")

        // Type=notify: active once lockr said READY; its own user, only CAP_NET_BIND_SERVICE, no new
        // privileges, a seccomp filter.
        #expect(
            parts["started"]!.contains("Type=notify") && parts["started"]!.contains("StatusText=answering"), "\(log)")
        let process = parts["process"] ?? ""
        #expect(
            process.firstMatch(of: /Uid:\s+(\d+)/).map { Int($0.1)! >= 61184 } == true, "a dynamic user: \(process)")
        #expect(process.contains("CapEff:\t0000000000000400"), "\(process)")
        #expect(process.contains("NoNewPrivs:\t1") && process.contains("Seccomp:\t2"), "\(process)")

        // DNS over IPv4 and IPv6, the web pages, the CLI with no flags (root) and a clear refusal for
        // another user: the installed config and catalogue were found.
        let dns = parts["dns"] ?? ""
        #expect(dns.contains("lockr.lan.\t60\tIN\tA\t127.0.0.1"), "\(dns)")
        #expect(dns.contains("rcode: NXDOMAIN") && dns.contains("dns.google."), "anti-bypass: \(dns)")
        #expect(parts["web"] == "status 200", "\(parts["web"] ?? log)")
        #expect(parts["cli-root"]?.contains("Mode: time") == true, "\(parts["cli-root"] ?? log)")
        #expect(
            parts["cli-user"]?.contains("cannot read /var/lib/lockr/control.address: permission denied") == true
                && parts["cli-user"]?.contains("sudo") == true, "\(parts["cli-user"] ?? log)")
        #expect(log.contains("catalogue=/usr/share/lockr/blocklists"), "\(log)")
        // lockr doctor says what the install found, and what is missing.
        let doctor = parts["doctor"] ?? ""
        #expect(
            doctor.contains("ok   app catalogue: ") && doctor.contains(" apps from /usr/share/lockr/blocklists"),
            "\(doctor)")
        #expect(doctor.contains("ok   speech model: not usable (only the spoken sentence needs it)"), "\(doctor)")
        #expect(
            doctor.contains("ok   DNS on 127.0.0.1:5335: answers") && doctor.contains("ok   state database"),
            "\(doctor)")

        // Reload keeps the process; a kill is restarted; pings keep a 4 s watchdog satisfied, a stall
        // gets the process killed; a stop is clean.
        #expect(parts["reload"] == "reload exit 0, active, main pid kept", "\(parts["reload"] ?? log)")
        #expect(parts["killed"]?.hasPrefix("restarts 1, active\nNow: ") == true, "\(parts["killed"] ?? log)")
        #expect(parts["watchdog"] == "after 10 s: active, main pid kept", "\(parts["watchdog"] ?? log)")
        #expect(
            parts["stalled"]?.contains("lockr.service: Watchdog timeout (limit 4s)!") == true,
            "\(parts["stalled"] ?? log)")
        #expect(parts["stalled"]?.hasSuffix("active") == true, "back after the stall: \(parts["stalled"] ?? log)")
        #expect(
            parts["stopped"] == "Result=success\nExecMainStatus=0\nActiveState=inactive", "\(parts["stopped"] ?? log)")
        #expect(
            parts["journal"]?.contains("notice lockr: [LockrDaemon] stopped") == true
                && parts["journal"]?.contains("Started lockr.service") == true, "\(parts["journal"] ?? log)")

        // An upgrade under a running systemd restarts the service on the new program; a purge stops
        // it and leaves nothing of it, its state behind systemd's link included.
        #expect(
            parts["upgraded"]?.hasPrefix("active\nversion 0.1.1, main pid changed\nNow: ") == true,
            "\(parts["upgraded"] ?? log)")
        #expect(parts["purged"] == "inactive, unit not-found\ndone", "\(parts["purged"] ?? log)")

        // The score of the running system's systemd agrees with the offline one.
        let security = parts["security"] ?? ""
        let score = try #require(security.firstMatch(of: /lockr\.service: (\d+\.\d+) (\w+)/), "\(security)")
        #expect(Double(score.1)! <= 2.0 && score.2 == "OK", "\(security)")
        print("boot check in a container:\n\(log)")
    }

    /// systemd-nspawn on `root`: no registration with a machine manager (none runs here), its own
    /// network namespace with only loopback.
    static func nspawn(_ root: String) -> [String] {
        ["systemd-nspawn", "--quiet", "--directory=\(root)", "--private-network", "--register=no", "--keep-unit"]
    }

    /// The log's parts by their "== NAME" headings, trimmed.
    static func sections(_ log: String) -> [String: String] {
        var parts: [String: String] = [:]
        var name: String?
        var lines: [Substring] = []
        func close() {
            if let name { parts[name] = lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        for line in log.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("== ") {
                close()
                name = String(line.dropFirst(3))
                lines = []
            } else {
                lines.append(line)
            }
        }
        close()
        return parts
    }
}
