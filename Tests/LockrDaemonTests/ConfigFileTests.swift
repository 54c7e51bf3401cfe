import DNSProxy
import DNSTestSupport
import Foundation
import NIOCore
import Testing

@testable import DNSProxy
@testable import LockrAdapters
@testable import LockrDaemon

@Suite struct ConfigFileTests {
    @Test func theEmbeddedDefaults() throws {
        let config = try ConfigFile.parse("", path: "empty.toml")
        #expect(config.listen.map(AddressText.format) == ["127.0.0.1:5335", "[::1]:5335"])
        #expect(config.upstreams.isEmpty)
        #expect(config.blockAnswer == .null)
        #expect(config.blockTTL == 60)
        #expect(config.names.antiBypass)
        #expect(config.cache == CacheSettings())
        #expect(config.access == AccessControl())
    }

    /// The reference in docs/configuration.md is what the declarations make (`lockr config
    /// reference`): it lists every key with its default, and parsed, it is the default.
    @Test func theDocumentedReferenceIsTheDeclarations() throws {
        let reference = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/configuration.md")
        let text = try String(contentsOf: reference, encoding: .utf8)
        let section = try #require(text.range(of: "# Configuration reference")).upperBound
        let start = try #require(text.range(of: "```toml\n", range: section..<text.endIndex)).upperBound
        let end = try #require(text.range(of: "```", range: start..<text.endIndex)).lowerBound
        let documented = String(text[start..<end])
        #expect(
            documented == LockrConfiguration.reference,
            "docs/configuration.md no longer says what the declarations do: run scripts/config-reference")
        #expect(try ConfigFile.parse(documented, path: "docs/configuration.md") == LockrConfiguration())
        #expect(!documented.contains("{range}"))
        let lines = try TOMLConfig.read(documented, path: "docs/configuration.md").lines
        for key in ConfigFile.knownKeys {
            #expect(
                lines[key] != nil || documented.contains("# \(key.split(separator: ".").last!) ="),
                "docs/configuration.md documents \(key)")
        }
    }

    @Test func everyKey() throws {
        let text = """
            listen = ["0.0.0.0:53", "[::]:53"]
            upstreams = ["192.0.2.1", "[2001:db8::1]:5353", "192.0.2.2:8053"]
            state-dir = "/tmp/lockr-state"
            blocklists = ["/etc/lockr/ads.txt"]
            allowlists = ["/etc/lockr/allow.txt"]
            catalogue = "/usr/share/lockr/blocklists"
            log-level = "debug"
            threads = 3

            [blocking]
            mode = "10.0.0.1"
            ttl = 10
            anti-bypass = false

            [cache]
            size = 500
            min-ttl = 5
            max-ttl = 3600
            negative-max-ttl = 60
            serve-stale = 0

            [upstream]
            timeout-ms = 250
            attempts = 4

            [access]
            allow = ["192.168.1.0/24", "fd00::/8"]

            [tcp]
            max-connections = 32
            idle-timeout-ms = 5000
            """
        let config = try ConfigFile.parse(text, path: "full.toml")
        #expect(config.listen.map(AddressText.format) == ["0.0.0.0:53", "[::]:53"])
        #expect(config.upstreams.map(\.description) == ["192.0.2.1:53", "[2001:db8::1]:5353", "192.0.2.2:8053"])
        #expect(config.stateDirectory == "/tmp/lockr-state")
        #expect(config.blocklists == ["/etc/lockr/ads.txt"])
        #expect(config.allowlists == ["/etc/lockr/allow.txt"])
        #expect(config.catalogueDirectory == "/usr/share/lockr/blocklists")
        #expect(config.logLevel == "debug")
        #expect(config.threads == 3)
        #expect(config.blockAnswer == .address(ipv4: [10, 0, 0, 1], ipv6: nil))
        #expect(config.blockTTL == 10)
        #expect(!config.names.antiBypass)
        #expect(config.cache.capacity == 500)
        #expect(config.cache.bounds == .init(minimum: 5, maximum: 3600, negativeMaximum: 60))
        #expect(config.cache.staleSeconds == 0)
        #expect(config.forwarding == ForwardSettings(attemptTimeout: .milliseconds(250), attempts: 4))
        #expect(config.access.networks.map(\.description) == ["192.168.1.0/24", "fd00::/8"])
        #expect(config.tcp.maxConnections == 32)
        #expect(config.tcp.idleTimeout == .seconds(5))
    }

    @Test func everyErrorNamesItsLineAndKey() {
        let text = """
            listen = ["127.0.0.1:99999"]
            colour = "blue"

            [blocking]
            mode = "purple"
            ttl = -1

            [cache]
            size = "big"
            min-ttl = 10
            max-ttl = 5

            [access]
            allow = ["not-a-network"]
            """
        do {
            _ = try ConfigFile.parse(text, path: "bad.toml")
            Issue.record("a bad file must not parse")
        } catch {
            let lines = error.issues.map { "\($0.line ?? 0) \($0.key ?? "")" }
            #expect(
                lines == [
                    "1 listen", "2 colour", "5 blocking.mode", "6 blocking.ttl", "9 cache.size", "10 cache.min-ttl",
                    "14 access.allow",
                ])
            #expect(
                error.description.contains(
                    "bad.toml: line 5: key 'blocking.mode': expected null, nxdomain, refused or an IP address"))
        }
    }

    @Test func everyGateErrorNamesItsLineAndKey() {
        let text = """
            [hourly]
            gate = ["puzzle", "puzle"]
            [extreme]
            gate = []
            input = "shout"
            [puzzles]
            kinds = []
            count = 9
            time-limit = "1s"
            difficulty = "insane"
            """
        do {
            _ = try ConfigFile.parse(text, path: "gate.toml")
            Issue.record("a bad gate must not parse")
        } catch {
            #expect(
                error.issues.map { "\($0.line ?? 0) \($0.key ?? "")" } == [
                    "2 hourly.gate", "4 extreme.gate", "5 extreme.input", "7 puzzles.kinds", "8 puzzles.count",
                    "9 puzzles.time-limit", "10 puzzles.difficulty",
                ])
        }
    }

    @Test func theQueryLogKeysAndTheirErrors() throws {
        let config = try ConfigFile.parse(
            """
            [query-log]
            retention = "2d"
            privacy = "apps"

            [people.kid]
            devices = ["192.0.2.7"]
            [people.kid.query-log]
            privacy = "counts"

            [people.parent]
            devices = ["192.0.2.8"]
            """, path: "log.toml")
        #expect(config.queryLog.enabled && config.queryLog.retention == .seconds(2 * 86_400))
        #expect(
            config.household.map { "\($0.name) \($0.queryLogPrivacy!)" } == [
                "default apps", "kid counts", "parent apps",
            ])
        #expect(try !ConfigFile.parse("[query-log]\nenabled = false\n", path: "off.toml").queryLog.enabled)
        #expect(config.queryLog.maximumBytes == 256 << 20)
        #expect(
            try ConfigFile.parse("[query-log]\nmax-size = \"2 GB\"\n", path: "big.toml").queryLog.maximumBytes == 2
                << 30)
        do {
            _ = try ConfigFile.parse(
                """
                [query-log]
                retention = "10m"
                privacy = "secret"
                max-size = "12KB"
                [people.kid]
                devices = ["192.0.2.7"]
                [people.kid.query-log]
                retention = "1d"
                """, path: "badlog.toml")
            Issue.record("a bad query log section must not parse")
        } catch {
            #expect(
                error.issues.map { "\($0.line ?? 0) \($0.key ?? "")" } == [
                    "2 query-log.retention", "3 query-log.privacy", "4 query-log.max-size",
                    "8 people.kid.query-log.retention",
                ])
            #expect(error.description.contains("expected a size from 1MB to 1TB such as \"256MB\", not '12KB'"))
            #expect(error.description.contains("expected full (every query), apps (only the names of apps) or counts"))
        }
    }

    /// Safe search at the top level and per person: YouTube left unset follows the search engines.
    @Test func safeSearchKeysAndTheirErrors() throws {
        let config = try ConfigFile.parse(
            """
            safe-search = true

            [people.kid]
            devices = ["192.0.2.7"]
            youtube = "strict"

            [people.parent]
            devices = ["192.0.2.8"]
            safe-search = false
            """, path: "safe.toml")
        let names = config.household.map { $0.names(config.names).safeSearch }
        #expect(names.map(\.text) == ["search engines, YouTube moderate", "search engines, YouTube strict", "off"])
        #expect(try !ConfigFile.parse("", path: "empty.toml").names.safeSearch.isOn)
        do {
            _ = try ConfigFile.parse(
                "safe-search = \"yes\"\nyoutube = \"kids\"\n[people.kid]\ndevices = [\"192.0.2.7\"]\nyoutube = 1\n",
                path: "bad.toml")
            Issue.record("bad safe-search keys must not parse")
        } catch {
            #expect(
                error.issues.map { "\($0.line ?? 0) \($0.key ?? "")" } == [
                    "1 safe-search", "2 youtube", "5 people.kid.youtube",
                ])
            #expect(error.description.contains("expected off, moderate or strict, not 'kids'"), "\(error)")
        }
    }

    /// Every provider the catalogue ships reads, and says where the provider documents it.
    @Test func theCataloguesSafeSearchProvidersRead() throws {
        let catalogue = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("blocklists").path
        let providers = try PolicyLoader.safeSearchProviders(in: catalogue)
        #expect(
            providers.map(\.name) == [
                "Bing", "Brave Search", "DuckDuckGo", "Ecosia", "Google", "Pixabay", "Yandex", "YouTube",
            ])
        #expect(providers.allSatisfy { !$0.source.isEmpty && !$0.names.isEmpty })
        let google = try #require(providers.first { $0.name == "Google" })
        #expect(google.names.contains("www.google.com") && google.names.contains("www.google.co.uk"))
        #expect(google.names.count > 150)
    }

    /// toml++ (the parser) aborts the process on a table header that starts with a character no key
    /// starts with (found by the config fuzzer); such a file gets an error naming its line instead,
    /// and the same characters in strings, comments and arrays are left alone.
    /// A mistyped key is named with the key it was probably meant to be, wherever it stands; a key
    /// like none gets no guess.
    @Test func aMistypedKeyIsNamedWithTheOneProbablyMeant() {
        let text = """
            log-levle = "info"
            [cache]
            sise = 10
            [people.kid]
            gaurd = ["tiktok"]
            [people.kid.time]
            budget-minute = 20
            [blocking]
            zebra = 1
            """
        do {
            _ = try ConfigFile.parse("mode = \"extreme\"\n", path: "misplaced.toml")
            Issue.record("a key of a section at the top level must not parse")
        } catch {
            #expect(
                error.description.contains("key 'mode': unknown key (it belongs in [blocking] or [policy])"), "\(error)"
            )
        }
        do {
            _ = try ConfigFile.parse(text, path: "typo.toml")
            Issue.record("mistyped keys must not parse")
        } catch {
            let said = error.issues.map { "\($0.line ?? 0) \($0.message)" }
            for (line, meant) in [(1, "log-level"), (3, "size"), (5, "guard"), (7, "budget-minutes")] {
                #expect(
                    said.contains { $0.hasPrefix("\(line) ") && $0.contains("did you mean '\(meant)'?") }, "\(said)")
            }
            #expect(said.contains { $0.hasPrefix("9 ") && $0.contains("unknown key") && !$0.contains("did you mean") })
        }
    }

    /// The whole file is read: a NUL byte is an error naming its line, not the file's end (the
    /// reader before stopped there and silently dropped what followed).
    @Test func aNULByteIsAnErrorNotTheEndOfTheFile() {
        do {
            _ = try ConfigFile.parse("log-level = \"info\"\n\u{0}\nblock-mode = \"bogus\"\n", path: "nul.toml")
            Issue.record("a file with a NUL byte must not parse")
        } catch {
            #expect(error.issues.map(\.line) == [2], "\(error.description)")
        }
    }

    @Test func aTableNameThatCannotStartAKeyIsAnErrorNotACrash() throws {
        for (text, line, found) in [
            ("guard = []\n[[?eople.kid.schedules]]\n", 2, "'?'"), ("[ ?x]\n", 1, "'?'"),
            ("a = 1\n[\n", 2, "the end of the line"),
            ("[[\n", 1, "the end of the line"),
            // Found by fuzzing: a byte order mark, then a header of bytes that are not UTF-8.
            (String(decoding: [0xEF, 0xBB, 0xBF, 0x5B, 0xEF, 0x2F, 0xBB, 0xBF, 0x5B], as: UTF8.self), 1, "'\u{FFFD}'"),
        ] {
            do {
                _ = try ConfigFile.parse(text, path: "bad.toml")
                Issue.record("\(text) must not parse")
            } catch {
                #expect(error.issues.map(\.line) == [line], "\(text)")
                #expect(error.description.contains("not \(found)"), "\(error.description)")
            }
        }
        let fine = #"""
            # [?not a header]
            state-dir = "/var/lib/[?odd"
            blocklists = [
              "a.txt",
            ]
            [notify]
            suggestions = ["""
            [?still a string
            """]
            """#
        #expect(throws: Never.self) { try ConfigFile.parse(fine, path: "fine.toml") }
        #expect(throws: Never.self) { try ConfigFile.parse("\u{FEFF}[notify]\n", path: "bom.toml") }
    }

    @Test func liveEventKeysAndTheirErrors() throws {
        let config = try ConfigFile.parse(
            """
            backends = ["dns", "webhook"]
            [notify]
            suggestions = ["Water the plants.", ""]
            [webhook]
            url = "http://hass.local/api/webhook/lockr"
            events = "text"
            events-url = "https://ntfy.home.lan/lockr"
            """, path: "events.toml")
        #expect(config.suggestions == ["Water the plants."])
        var hook = WebhookSettings(url: "http://hass.local/api/webhook/lockr")
        hook.events = .text
        hook.eventsURL = "https://ntfy.home.lan/lockr"
        #expect(config.backends.first?.endpoint == .webhook(hook))
        #expect(try ConfigFile.parse("", path: "plain.toml").suggestions.count == 3, "the defaults")
        do {
            _ = try ConfigFile.parse(
                """
                backends = ["webhook"]
                [notify]
                suggestions = "walk"
                [webhook]
                url = "http://hass.local/hook"
                events = "push"
                events-url = "ntfy.home.lan/lockr"
                """, path: "badevents.toml")
            Issue.record("bad live event keys must not parse")
        } catch {
            #expect(
                error.issues.map { "\($0.line ?? 0) \($0.key ?? "")" } == [
                    "3 notify.suggestions", "6 webhook.events", "7 webhook.events-url",
                ])
            #expect(
                error.description.contains(
                    "expected json (every live event), text (notifications, as ntfy takes them) or off"))
        }
    }

    @Test func theWebPagesAddressOrOff() throws {
        #expect(try ConfigFile.parse("web = \"off\"", path: "off.toml").web == nil)
        let lan = try ConfigFile.parse("web = \"192.168.1.2:8080\"", path: "lan.toml").web
        #expect(lan.map(AddressText.format) == "192.168.1.2:8080")
        #expect(try ConfigFile.parse("", path: "plain.toml").web.map(AddressText.format) == "127.0.0.1:8080")
        #expect(throws: (any Error).self) { try ConfigFile.parse("web = \"everywhere\"", path: "bad.toml") }
        do {
            _ = try ConfigFile.parse("web = \"everywhere\"", path: "bad.toml")
        } catch {
            #expect(
                "\(error)".contains("bad.toml: line 1: key 'web': 'everywhere' is not ADDR:PORT, [V6]:PORT or off"),
                "\(error)")
        }
    }

    @Test func theWebPagesNameIsAnsweredWithTheirAddressUnlessTheyListenEverywhere() throws {
        let plain = try ConfigFile.parse("", path: "plain.toml")
        #expect(plain.webName == "lockr.lan" && plain.pagesName != nil)
        #expect(try ConfigFile.parse("web-name = \"off\"", path: "off.toml").pagesName == nil)
        #expect(try ConfigFile.parse("web = \"off\"", path: "off.toml").pagesName == nil)
        #expect(
            try ConfigFile.parse("web = \"0.0.0.0:8080\"", path: "any.toml").pagesName == nil, "no one address to give")
        let named = try ConfigFile.parse("web = \"192.168.1.2:8080\"\nweb-name = \"lockr.home.arpa\"", path: "lan.toml")
        #expect(named.pagesName == PagesName("lockr.home.arpa", address: [192, 168, 1, 2]))
        #expect(throws: (any Error).self) { try ConfigFile.parse("web-name = \"not a name\"", path: "bad.toml") }
    }

    @Test func syntaxErrorsNameTheirLine() {
        do {
            _ = try ConfigFile.parse("listen = [\"127.0.0.1:53\"]\n[cache\nsize = 1\n", path: "broken.toml")
            Issue.record("a broken file must not parse")
        } catch {
            #expect(error.issues.first?.line == 2)
        }
    }

    @Test func addressText() {
        #expect(AddressText.parse("127.0.0.1:53", defaultPort: nil).map(AddressText.format) == "127.0.0.1:53")
        #expect(AddressText.parse("[::1]:5335", defaultPort: nil).map(AddressText.format) == "[::1]:5335")
        #expect(AddressText.parse("::1", defaultPort: 53).map(AddressText.format) == "[::1]:53")
        #expect(AddressText.parse("9.9.9.9", defaultPort: 53).map(AddressText.format) == "9.9.9.9:53")
        #expect(AddressText.parse("9.9.9.9", defaultPort: nil) == nil)
        #expect(AddressText.parse("example.com:53", defaultPort: nil) == nil)
        #expect(AddressText.parse("1.2.3.4:70000", defaultPort: nil) == nil)
    }

    /// An upstream written by its name is looked up through the bootstrap servers: each address
    /// found is an upstream; a name with none is left out, with the reason, while others remain;
    /// with nothing left, lockr says what to write.
    @Test func anUpstreamWrittenByNameIsLookedUpThroughTheBootstrapServers() async throws {
        let bootstrap = try await ScriptedUpstream(records: [
            "dns.test.": ["dns.test. 300 IN A 127.0.0.9", "dns.test. 300 IN AAAA ::9"]
        ])
        defer { Task { await bootstrap.stop() } }
        var config = LockrConfiguration()
        config.forwarding.bootstrap = [try SocketAddress(ipAddress: "127.0.0.1", port: bootstrap.port)]
        config.upstreams = try UpstreamEntry.parse("https://dns.test:8443/dns-query")
        let found = try PolicyLoader.upstreams(config)
        #expect(
            found.upstreams.map(\.description).sorted() == [
                "https://127.0.0.9@dns.test:8443/dns-query", "https://[::9]@dns.test:8443/dns-query",
            ])
        #expect(found.unresolved.isEmpty)

        config.upstreams = try UpstreamEntry.parse("tls://gone.test") + UpstreamEntry.parse("192.0.2.53")
        let partly = try PolicyLoader.upstreams(config)
        #expect(partly.upstreams.map(\.description) == ["192.0.2.53:53"])
        #expect(partly.unresolved.map(\.upstream) == ["tls://gone.test"])
        #expect(partly.unresolved.first?.reason.hasPrefix("where gone.test is") == true)

        // Without [upstream] bootstrap the plain upstreams are asked; a server that is not there refuses.
        config.forwarding.bootstrap = []
        config.upstreams =
            try UpstreamEntry.parse("https://dns.test/dns-query") + UpstreamEntry.parse("127.0.0.1:\(bootstrap.port)")
        #expect(try PolicyLoader.upstreams(config).upstreams.count == 3)
        config.forwarding.bootstrap = [try SocketAddress(ipAddress: "127.0.0.1", port: 9)]
        config.upstreams = try UpstreamEntry.parse("https://dns.test/dns-query")
        #expect {
            _ = try PolicyLoader.upstreams(config)
        } throws: { error in
            "\(error)".contains("no address found for https://dns.test/dns-query")
                && "\(error)".contains("set [upstream] bootstrap")
        }
    }

    @Test func upstreamsFromResolvConfSkipLockrItself() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("resolv-\(UUID()).conf").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "# test\nnameserver 127.0.0.1\nnameserver 192.0.2.53\noptions edns0\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        var config = LockrConfiguration()
        config.listen = [try SocketAddress(ipAddress: "0.0.0.0", port: 53)]
        #expect(try PolicyLoader.upstreams(config, resolvConf: path).upstreams.map(\.description) == ["192.0.2.53:53"])
        config.listen = [try SocketAddress(ipAddress: "127.0.0.1", port: 5335)]
        #expect(try PolicyLoader.upstreams(config, resolvConf: path).upstreams.count == 2)
        try "nameserver 127.0.0.1\n".write(toFile: path, atomically: true, encoding: .utf8)
        config.listen = [try SocketAddress(ipAddress: "127.0.0.1", port: 53)]
        #expect(throws: LoadError.self) { try PolicyLoader.upstreams(config, resolvConf: path) }
    }

    @Test func stateDirectoryDefaults() {
        #expect(LockrConfiguration.defaultStateDirectory(environment: [:], isRoot: true) == "/var/lib/lockr")
        #expect(
            LockrConfiguration.defaultStateDirectory(environment: ["XDG_STATE_HOME": "/x"], isRoot: false) == "/x/lockr"
        )
        #expect(
            LockrConfiguration.defaultStateDirectory(environment: ["HOME": "/home/a"], isRoot: false)
                == "/home/a/.local/state/lockr")
        // HOME unset (a service, `env -i`): the home directory from the user database, never /tmp.
        #expect(
            LockrConfiguration.defaultStateDirectory(environment: [:], isRoot: false, home: { "/home/b" })
                == "/home/b/.local/state/lockr")
        #expect(
            LockrConfiguration.defaultStateDirectory(environment: ["HOME": ""], isRoot: false, home: { nil })
                == "/var/lib/lockr")
    }
}

/// `[[forward]]`: the home's own domains and the servers that answer them.
@Suite struct ForwardConfigTests {
    @Test func eachTableNamesItsDomainsAndServers() throws {
        let config = try ConfigFile.parse(
            """
            [[forward]]
            domains = ["lan", "Home.Arpa.", "168.192.in-addr.arpa"]
            servers = ["192.168.1.1", "[fd00::1]:5353"]

            [[forward]]
            domains = ["corp.example"]
            servers = ["10.0.0.53"]
            """, path: "forward.toml")
        #expect(config.forwards.map(\.domains) == [["lan", "home.arpa", "168.192.in-addr.arpa"], ["corp.example"]])
        #expect(config.forwards[0].servers.map { AddressText.format($0) } == ["192.168.1.1:53", "[fd00::1]:5353"])
        #expect(try ConfigFile.parse("", path: "empty.toml").forwards.isEmpty)
    }

    @Test func aBadTableIsRefusedNamingItsLineAndKey() {
        let text = """
            [[forward]]
            domains = ["lan", "not a name"]
            servers = ["router"]
            sever = "x"

            [[forward]]
            domains = ["LAN"]
            servers = []
            """
        do {
            _ = try ConfigFile.parse(text, path: "bad.toml")
            Issue.record("a bad [[forward]] must not parse")
        } catch {
            let said = error.issues.map { "\($0.key ?? "") \($0.message)" }
            #expect(
                said.contains(
                    "forward.domains 'not a name' is not a domain name (as \"lan\" or \"168.192.in-addr.arpa\")"))
            #expect(said.contains("forward.servers 'router' is not an address (ADDR[:PORT])"))
            #expect(said.contains("forward.sever unknown key (did you mean 'servers'?)"))
            #expect(said.contains("forward.servers needs at least one server"))
            #expect(said.contains("forward.domains 'lan' is in two [[forward]] tables"))
            #expect(error.issues.allSatisfy { $0.line != nil }, "\(error.issues)")
        }
        do {
            _ = try ConfigFile.parse("forward = \"192.168.1.1\"", path: "bad.toml")
            Issue.record("forward must be tables")
        } catch {
            #expect(error.issues.map(\.message) == ["expected tables ([[forward]] with domains and servers)"])
        }
        do {
            _ = try ConfigFile.parse("[[forward]]\ndomains = \"lan\"\n", path: "bad.toml")
            Issue.record("domains must be a list, and servers are missing")
        } catch {
            #expect(
                Set(error.issues.map { "\($0.key ?? "") \($0.message)" }) == [
                    "forward.domains expected an array of strings",
                    "forward.servers is missing: the servers that answer these domains, as [\"192.168.1.1\"]",
                ], "one problem each, not two")
        }
    }
}
