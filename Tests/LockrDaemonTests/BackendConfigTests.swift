import Foundation
import Testing

@testable import LockrAdapters
@testable import LockrDaemon

@Suite struct BackendConfigTests {
    /// The messages of a config that must not parse (none, with a recorded issue, when it does).
    func issues(_ text: String) -> [String] {
        do {
            _ = try ConfigFile.parse(text, path: "bad.toml")
            Issue.record("must fail")
            return []
        } catch {
            return error.issues.map(\.description)
        }
    }

    @Test func backendsAndTheirSections() throws {
        let config = try ConfigFile.parse(
            """
            backends = ["pihole6", "webhook", "nextdns"]
            meter-from = "pihole6"

            [pihole6]
            url = "http://192.168.1.2"
            password-env = "PIHOLE_PASSWORD"
            clients = ["192.168.1.23"]
            group = "kids"

            [webhook]
            url = "http://127.0.0.1:8123/hook"

            [nextdns]
            profile = "abc123"
            api-key-file = "/etc/lockr/nextdns.key"

            [adapters]
            reconcile-seconds = 5
            timeout-seconds = 3
            """, path: "t.toml")
        #expect(!config.answersDNS)
        #expect(config.backends.map(\.kind) == [.pihole6, .webhook, .nextdns])
        var pihole = PiHole6Settings(url: config.backends[0].url, password: .environment("PIHOLE_PASSWORD"))
        pihole.clients = ["192.168.1.23"]
        pihole.group = "kids"
        #expect(config.backends[0].endpoint == .pihole6(pihole))
        #expect(config.backends[1].endpoint == .webhook(WebhookSettings(url: "http://127.0.0.1:8123/hook")))
        #expect(
            config.backends[2].endpoint
                == .nextdns(
                    NextDNSSettings(
                        url: "https://api.nextdns.io", profile: "abc123", apiKey: .file("/etc/lockr/nextdns.key"))))
        #expect(config.backends.allSatisfy { $0.timeout == .seconds(3) })
        #expect(config.meterFrom == "pihole6")
        #expect(config.adapterTiming.reconcileInterval == .seconds(5))
        #expect(config.warnings == [])
    }

    @Test func aBackendOnlySetUpWithoutAMeterIsWarnedAbout() throws {
        let section = "[pihole6]\nurl = \"http://192.168.1.2\"\npassword-env = \"P\"\n"
        let unmetered = try ConfigFile.parse(
            "backends = [\"webhook\", \"pihole6\"]\n" + section + """
                [webhook]
                url = "http://127.0.0.1:8123/hook"
                """, path: "t.toml")
        #expect(unmetered.warnings.count == 1)
        #expect(unmetered.warnings.first?.contains("nothing meters use") == true)
        #expect(unmetered.warnings.first?.contains("set meter-from = \"pihole6\"") == true)
        let metered = try ConfigFile.parse(
            "backends = [\"pihole6\"]\nmeter-from = \"pihole6\"\n" + section, path: "t.toml")
        #expect(metered.warnings == [])
        let answering = try ConfigFile.parse("backends = [\"dns\", \"pihole6\"]\n" + section, path: "t.toml")
        #expect(answering.warnings == [])
    }

    @Test func mistakesAreNamed() {
        let text = """
            backends = ["dns", "pihole7", "pihole5", "nextdns", "adguardhome"]
            meter-from = "webhook"

            [pihole5]
            url = "http://pi.hole"

            [nextdns]
            api-key-env = "KEY"

            [adguardhome]
            url = "ftp://x"
            password-file = "/a"
            password-env = "B"

            [webhook]
            url = "http://x"
            """
        let messages = issues(text)
        #expect(messages.contains { $0.contains("unknown backend 'pihole7'") })
        #expect(messages.contains { $0.contains("pihole5") && $0.contains("token-file or token-env") })
        #expect(messages.contains { $0.contains("needs profile") })
        #expect(messages.contains { $0.contains("adguardhome.url") })
        #expect(messages.contains { $0.contains("webhook") && $0.contains("not listed in backends") })
        #expect(messages.contains { $0.contains("meter-from") })
    }

    @Test func twoOfAKindByName() throws {
        let config = try ConfigFile.parse(
            """
            backends = ["dns", "pihole6", "upstairs"]
            meter-from = "upstairs"

            [pihole6]
            url = "http://192.168.1.2"
            password-env = "PIHOLE_PASSWORD"

            [upstairs]
            kind = "pihole6"
            url = "http://192.168.1.3"
            password-file = "/etc/lockr/upstairs.password"
            clients = ["192.168.1.40"]
            """, path: "t.toml")
        #expect(config.backends.map(\.name) == ["pihole6", "upstairs"])
        #expect(config.backends.map(\.kind) == [.pihole6, .pihole6])
        var upstairs = PiHole6Settings(url: "http://192.168.1.3", password: .file("/etc/lockr/upstairs.password"))
        upstairs.clients = ["192.168.1.40"]
        #expect(config.backends[1].endpoint == .pihole6(upstairs))
        #expect(config.meterFrom == "upstairs")
    }

    @Test func namedBackendMistakesAreNamed() {
        let text = """
            backends = ["attic", "cellar", "policy", "garage"]

            [attic]
            url = "http://192.168.1.3"

            [cellar]
            kind = "pihole7"

            [garage]
            kind = "adguardhome"
            url = "http://192.168.1.4"
            colour = "red"

            [shed]
            kind = "pihole6"
            url = "http://192.168.1.5"
            """
        let messages = issues(text)
        #expect(messages.contains { $0.contains("[attic] needs kind") })
        #expect(messages.contains { $0.contains("cellar.kind") && $0.contains("not 'pihole7'") })
        #expect(messages.contains { $0.contains("'policy' is one of lockr's own sections") })
        #expect(messages.contains { $0.contains("garage.colour") && $0.contains("unknown key") })
        #expect(messages.contains { $0.contains("shed") && $0.contains("not listed in backends") })
        #expect(!messages.contains { $0.hasSuffix("unknown key") && !$0.contains("colour") }, "\(messages)")
    }

    @Test func secretsAreReadFromFilesAndTheEnvironment() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID())").path
        try "s3cret\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try SecretSource.file(path).read() == "s3cret")
        #expect(try SecretSource.environment("X").read(environment: ["X": "v"]) == "v")
        #expect(throws: BackendError.self) { try SecretSource.environment("MISSING").read(environment: [:]) }
        #expect(throws: BackendError.self) { try SecretSource.file(path + ".none").read() }
        #expect("\(SecretSource.file(path))" == "file \(path)")
    }

    @Test func anRPZSectionWithItsTimersAndKey() throws {
        let config = try ConfigFile.parse(
            """
            backends = ["dns", "rpz"]

            [rpz]
            listen = ["0.0.0.0:5300", "[::]:5300"]
            zone-suffix = "Policy.Example."
            secondaries = ["192.168.1.3", "192.168.1.4:5353"]
            allow-transfer = ["10.0.0.0/8"]
            ttl = "1m"
            refresh = "2m"
            retry = "30s"
            expire = "2d"
            tsig-key = "lockr-rpz"
            tsig-secret-env = "RPZ_SECRET"
            tsig-required = false
            """, path: "rpz.toml")
        guard case .rpz(let rpz) = config.backends.first?.endpoint else {
            Issue.record("no rpz backend: \(config.backends)")
            return
        }
        #expect(rpz.listen == ["0.0.0.0:5300", "[::]:5300"] && rpz.zoneSuffix == "policy.example")
        #expect(rpz.secondaries == ["192.168.1.3", "192.168.1.4:5353"] && rpz.allowTransfer == ["10.0.0.0/8"])
        #expect([rpz.ttl, rpz.refresh, rpz.retry, rpz.expire] == [Int]([60, 120, 30, 172_800]))
        #expect(
            rpz.tsigKey == "lockr-rpz" && rpz.tsigSecret == SecretSource.environment("RPZ_SECRET") && !rpz.tsigRequired)
        #expect(config.backends.first?.secrets == [SecretSource.environment("RPZ_SECRET")])
    }

    @Test func anRPZSectionThatCannotWorkSaysWhy() {
        let found = issues(
            """
            backends = ["rpz"]
            meter-from = "rpz"
            [rpz]
            listen = ["127.0.0.1:5300", "nowhere"]
            zone-suffix = "bad..suffix"
            allow-transfer = ["10.0.0.0/33"]
            tsig-key = "lockr-rpz"
            retry = "1s"
            """)
        for expected in [
            "meter-from", "'nowhere' is not an address", "zone-suffix", "'10.0.0.0/33' is not an address or network",
            "tsig-key and tsig-secret-file", "rpz.retry",
        ] {
            #expect(found.contains { $0.contains(expected) }, "\(expected): \(found)")
        }
        #expect(
            issues("backends = [\"rpz\"]\n[rpz]\nzone-suffix = \"x\"").contains {
                $0.contains("needs listen") && $0.contains("or zone-files")
            })
        #expect(
            issues("backends = [\"rpz\"]\n[rpz]\nzone-files = \"rpz\"").contains {
                $0.contains("'rpz.zone-files': expected an absolute directory")
            })
    }

    @Test func zoneFilesAloneAreEnough() throws {
        let config = try ConfigFile.parse(
            "backends = [\"rpz\"]\n[rpz]\nzone-files = \"/run/lockr\"", path: "knot.toml")
        guard case .rpz(let rpz) = config.backends.first?.endpoint else {
            Issue.record("no rpz backend: \(config.backends)")
            return
        }
        #expect(rpz.listen.isEmpty && rpz.zoneFiles == "/run/lockr")
    }
}
