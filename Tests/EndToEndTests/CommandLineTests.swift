import DNSTestSupport
import Foundation
import Testing

/// The `lockr` command line: help, config checking, start-up errors.
@Suite struct CommandLineTests {
    @Test func helpListsTheCommands() async throws {
        let help = try await runAwaited(LockrProcess.binary, ["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("serve"))
        #expect(help.output.contains("check-config"))
        let serveHelp = try await runAwaited(LockrProcess.binary, ["serve", "--help"])
        for flag in ["--listen", "--upstream", "--blocklist", "--state-dir", "--block-mode", "--config"] {
            #expect(serveHelp.output.contains(flag))
        }
    }

    @Test func checkConfigNamesEveryError() async throws {
        let path = NSTemporaryDirectory() + "lockr-check-\(UUID()).toml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bad = """
            listen = ["127.0.0.1:53"]
            upstreams = ["192.0.2.1"]
            [cache]
            size = "big"
            [blocking]
            mode = "purple"
            """
        try bad.write(toFile: path, atomically: true, encoding: .utf8)
        let serving = try await runAwaited(LockrProcess.binary, ["serve", "--config", path])
        #expect(serving.status == 1)
        #expect(serving.output.contains("line 4: key 'cache.size': expected an integer"))
        let refused = try await runAwaited(LockrProcess.binary, ["check-config", path])
        #expect(refused.status == 1)
        #expect(refused.output.contains("line 4: key 'cache.size': expected an integer"))
        #expect(refused.output.contains("line 6: key 'blocking.mode'"))
        try "listen = [\"127.0.0.1:53\"]\nupstreams = [\"192.0.2.1\"]\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let good = try await runAwaited(LockrProcess.binary, ["check-config", path])
        #expect(good.status == 0, "\(good.output)")
        #expect(good.output.contains("OK"))
        #expect(good.output.contains("apps"))
        #expect(!good.output.contains("warning"))

        // Valid but unmetered: backends only, no meter-from. Accepted, with a warning saying what to set.
        try """
        backends = ["pihole6"]
        [pihole6]
        url = "http://192.168.1.2"
        password-env = "PIHOLE_PASSWORD"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let noSecret = try await runAwaited(
            "env", ["-u", "PIHOLE_PASSWORD", LockrProcess.binary, "check-config", path])
        #expect(noSecret.status == 1)
        #expect(noSecret.output.contains("pihole6: misconfigured: environment variable PIHOLE_PASSWORD is not set"))
        let unmetered = try await runAwaited(
            "env", ["PIHOLE_PASSWORD=secret", LockrProcess.binary, "check-config", path])
        #expect(unmetered.status == 0, "\(unmetered.output)")
        #expect(unmetered.output.contains("upstreams: none (lockr answers no DNS; backends: pihole6)"))
        #expect(
            unmetered.output.contains("warning: nothing meters use")
                && unmetered.output.contains("meter-from = \"pihole6\""))
    }

    @Test func checkConfigNamesBadAppDomainsAndEveryUnknownApp() async throws {
        let path = NSTemporaryDirectory() + "lockr-check-apps-\(UUID()).toml"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        upstreams = ["192.0.2.1"]
        guard = ["tiktk", "instagrm", "YouTube", "news"]
        [apps]
        news = ["news.ycombinator.com", "bad name.com"]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let badDomain = try await runAwaited(LockrProcess.binary, ["check-config", path])
        #expect(badDomain.status == 1)
        #expect(
            badDomain.output.contains("key 'apps.news': 'bad name.com' is not a domain rule"), "\(badDomain.output)")
        try """
        upstreams = ["192.0.2.1"]
        guard = ["tiktk", "instagrm", "YouTube", "news"]
        [apps]
        news = ["news.ycombinator.com"]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let unknown = try await runAwaited(LockrProcess.binary, ["check-config", path])
        #expect(unknown.status == 1)
        #expect(
            unknown.output.contains(
                "no app 'tiktk' (did you mean tiktok?), 'instagrm' (did you mean instagram?) in the catalogue"),
            "\(unknown.output)")
    }

    @Test func badStartsAreClearErrors() async throws {
        let missingList = try await runAwaited(
            LockrProcess.binary,
            ["serve", "--listen", "127.0.0.1:0", "--upstream", "192.0.2.1", "--blocklist", "/nonexistent/list.txt"])
        #expect(missingList.status == 1)
        #expect(missingList.output.contains("cannot read /nonexistent/list.txt"))
        let badState = try await runAwaited(
            LockrProcess.binary,
            ["serve", "--listen", "127.0.0.1:0", "--upstream", "192.0.2.1", "--state-dir", "/etc/hostname"])
        #expect(badState.status == 1)
        #expect(badState.output.contains("the state directory /etc/hostname is not a directory"))
        let badMode = try await runAwaited(LockrProcess.binary, ["serve", "--block-mode", "purple"])
        #expect(badMode.status != 0)
        #expect(badMode.output.contains("--block-mode 'purple'"))
    }
}
