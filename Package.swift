// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "lockr",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "lockr", targets: ["lockr"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird", from: "2.1.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // The C library, wrapped once. Only DNSWire imports it (tests use it as an oracle).
        .systemLibrary(
            name: "CLdns",
            pkgConfig: "ldns",
            providers: [.apt(["libldns-dev"])]
        ),
        // Speech recognition on this machine (CMU PocketSphinx), loaded with dlopen on first use, not
        // linked: its functions declared by hand. Only LockrSpeech imports it.
        .systemLibrary(name: "CPocketSphinx"),
        // Text operations without Foundation's internationalised parts (which bring ICU): trimming,
        // fixed decimals, hexadecimal, path components.
        .target(name: "PlainText"),
        // Threads that work behind the DNS event loops: named apart and scheduled after them.
        .target(name: "BackgroundThreads"),
        // The desktop session's bus (libdbus), loaded with dlopen on first use, not linked: its
        // functions declared by hand. Only DesktopNotifications imports it.
        .systemLibrary(name: "CDBus"),
        // Desktop notifications (org.freedesktop.Notifications over D-Bus), for `lockr notify`.
        .target(name: "DesktopNotifications", dependencies: ["CDBus"]),
        // Hears the sentence: WAV clips read and resampled to 16 kHz mono, silence and noise told
        // apart, PocketSphinx decoders on a bounded pool of threads of their own.
        .target(
            name: "LockrSpeech",
            dependencies: [
                "PlainText",
                "CPocketSphinx",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // toml++ (Debian's libtomlplusplus-dev, header-only) read into plain values that one call
        // frees. Only LockrDaemon imports it.
        .target(
            name: "CTOMLReader",
            cxxSettings: [.define("TOML_EXCEPTIONS", to: "0"), .define("TOML_HEADER_ONLY", to: "1")]
        ),
        // The config file's sections as each module declares them: keys, ranges, defaults, which
        // need a restart; read from any syntax's values (the daemon reads TOML into them).
        .target(name: "ConfigKit"),
        // Wire format: in-place query parsing, answer synthesis, upstream answer layout; ldns for validation.
        .target(name: "DNSWire", dependencies: ["CLdns"]),
        // Rule lists, the compact domain matcher, the app catalogue. Pure Swift, no I/O beyond reading files.
        .target(name: "DNSFilter", dependencies: ["DNSWire"]),
        // Puzzles for the gate: arithmetic, and chess mates checked by lockr's own move generator. Pure.
        .target(
            name: "LockrPuzzles",
            dependencies: [
                "PlainText", "ConfigKit",
            ]),
        // Modes, metering, windows and gates: pure, no I/O, time comes in as a parameter.
        // Dates and time zones from the system's TZif files, without ICU: civil dates, offsets, wall clocks.
        .target(name: "CivilTime", dependencies: ["PlainText"]),
        .target(
            name: "LockrPolicy",
            dependencies: [
                "PlainText", "CivilTime", "ConfigKit", "LockrPuzzles",
            ]),
        // The query pipeline, cache, upstream forwarding (plain, TLS, HTTPS) and the listeners (SwiftNIO).
        .target(
            name: "DNSProxy",
            dependencies: [
                "ConfigKit", "DNSWire", "DNSFilter",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ExtrasBase64", package: "swift-extras-base64"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Policy state and the query log in SQLite (GRDB): numbered migrations, windows, usage,
        // counters, events; queries in compact batches.
        .target(
            name: "LockrStore",
            dependencies: ["DNSWire", "LockrPolicy", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The one HTTP client for outgoing calls: reports a refused connection at once, errors in words.
        .target(
            name: "OutboundHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The JSON control API: its models, the Hummingbird server routes and the client the CLI uses.
        // The control API's types, generated from docs/openapi.yaml by scripts/generate-api (committed:
        // the generator takes minutes to build). The domain's own enums stand in for the document's.
        .target(
            name: "LockrAPI",
            dependencies: [
                "DNSWire", "LockrPolicy", "LockrPuzzles",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            path: "Generated/LockrAPI",
            exclude: ["openapi-generator-config.yaml", "generated-from.sha256"],
            // Its imports are the generator's, some unused.
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])]
        ),
        .target(
            name: "LockrControl",
            dependencies: [
                "PlainText",
                "ConfigKit", "DNSFilter", "DNSWire", "LockrAPI", "LockrLists", "LockrPolicy", "LockrSpeech",
                "OutboundHTTP",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Drives other blockers (Pi-hole v6/v5, AdGuard Home, NextDNS, a webhook) from the policy's
        // block set: one persisted outbox per backend, retries with backoff, reconciling, query logs.
        .target(
            name: "LockrAdapters",
            dependencies: [
                "CivilTime",
                "PlainText",
                "ConfigKit", "DNSFilter", "LockrPolicy", "LockrStore", "OutboundHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // lockr as the primary of Response Policy Zones: each person's block set as a zone that
        // resolvers (unbound, BIND, PowerDNS Recursor) transfer and apply.
        .target(
            name: "LockrRPZ",
            dependencies: [
                "PlainText",
                "DNSFilter", "DNSProxy", "DNSWire", "LockrAdapters", "LockrStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // dnstap in: Frame Streams from resolvers lockr does not stand in front of, each client
        // question handed on for metering. The protobuf code is generated from dnstap.proto by
        // scripts/generate-dnstap and committed.
        .target(
            name: "LockrDnstap",
            dependencies: [
                "ConfigKit", "DNSProxy", "DNSWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["dnstap.proto"]
        ),
        // Block and allow lists given by URL: fetched, kept in the state directory, kept up to date.
        .target(
            name: "LockrLists",
            dependencies: [
                "BackgroundThreads", "PlainText",
                "ConfigKit", "DNSFilter",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The web pages a phone opens: status, rendered on the server from Mustache templates.
        .target(
            name: "LockrWeb",
            dependencies: [
                "PlainText",
                "LockrAPI", "LockrControl", "LockrPolicy", "LockrPuzzles", "LockrSpeech",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            // The templates, stylesheet and script, embedded at build time by EmbedWebAssets.
            exclude: ["Assets"],
            plugins: ["EmbedWebAssets"]
        ),
        // Turns a target's Assets/ into string literals in its code (a static binary carries them).
        .plugin(name: "EmbedWebAssets", capability: .buildTool()),
        // Configuration (TOML + flags) and composition of the running daemon.
        .target(
            name: "LockrDaemon",
            dependencies: [
                "BackgroundThreads", "PlainText",
                "ConfigKit", "CTOMLReader", "DNSWire", "DNSFilter", "DNSProxy", "LockrPolicy", "LockrPuzzles",
                "LockrStore",
                "LockrAPI", "LockrControl", "LockrLists",
                "LockrAdapters", "LockrDnstap", "LockrRPZ", "LockrSpeech", "LockrWeb",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "lockr",
            dependencies: [
                "ConfigKit", "LockrAPI", "LockrDaemon", "LockrControl", "LockrPolicy", "LockrPuzzles",
                "DesktopNotifications", "PlainText", "CivilTime",
                "DNSProxy",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The release program laid out for a small memory (bench/README.md, "Lean"): lld packs the
            // relocations of position-independent code (RELR; otherwise a 4 MB table is read at each
            // start) and lockr exports none of its own symbols (otherwise a table of 70,000 names is
            // mapped in for the loader, which has no use for them).
            linkerSettings: [
                .unsafeFlags(
                    ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"],
                    .when(platforms: [.linux], configuration: .release))
            ]
        ),
        // Test helpers: a scripted upstream DNS server built on ldns, a UDP/TCP client.
        .target(
            name: "DNSTestSupport",
            dependencies: [
                "CLdns", "DNSWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/Support"
        ),
        // Counts a thread's heap allocations, for tests that show a path makes none.
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        // Fake Pi-hole v6/v5, AdGuard Home, NextDNS and webhook servers on loopback, with every request
        // checked against the OpenAPI files in ../shared/specs, and faults to inject.
        .target(
            name: "BackendFakes",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Tests/BackendFakes"
        ),
        .testTarget(
            name: "LockrAdaptersTests",
            dependencies: [
                "LockrAdapters", "LockrStore", "DNSFilter", "BackendFakes", "DNSTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "LockrRPZTests",
            dependencies: [
                "LockrRPZ", "LockrAdapters", "LockrStore", "DNSProxy", "DNSWire", "CLdns", "DNSTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LockrDnstapTests",
            dependencies: [
                "LockrDnstap", "DNSProxy",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
        .testTarget(name: "DNSWireTests", dependencies: ["DNSWire", "CLdns", "DNSTestSupport", "AllocationCounter"]),
        .testTarget(name: "DNSFilterTests", dependencies: ["DNSFilter", "DNSTestSupport"]),
        .testTarget(
            name: "DNSProxyTests",
            dependencies: [
                "DNSProxy", "DNSWire", "DNSFilter", "DNSTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LockrDaemonTests",
            dependencies: ["CivilTime", "LockrAPI", "LockrDaemon", "DNSProxy", "DNSTestSupport"]
        ),
        .testTarget(
            name: "LockrListsTests",
            dependencies: [
                "LockrLists", "DNSTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "LockrPolicyTests", dependencies: ["CivilTime", "LockrPolicy", "LockrPuzzles"]),
        .testTarget(name: "CivilTimeTests", dependencies: ["CivilTime"]),
        .testTarget(name: "LockrPuzzlesTests", dependencies: ["LockrPuzzles"]),
        .testTarget(
            name: "LockrWebTests",
            dependencies: [
                "CivilTime", "LockrWeb", "LockrAPI", "LockrControl", "LockrPolicy", "LockrPuzzles", "PolicyFakes",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        .testTarget(name: "PlainTextTests", dependencies: ["PlainText"]),
        // libdbus's own headers, to check lockr's declarations of it against (tests only).
        .systemLibrary(
            name: "CDBusHeaders", path: "Tests/DBusHeaders", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]
        ),
        .testTarget(name: "DesktopNotificationsTests", dependencies: ["DesktopNotifications", "CDBus", "CDBusHeaders"]),
        .testTarget(name: "LockrSpeechTests", dependencies: ["LockrSpeech", "LockrPolicy", "DNSTestSupport"]),
        // Fixtures: state databases older versions wrote, for the migrations.
        .testTarget(
            name: "LockrStoreTests",
            dependencies: [
                "CivilTime", "DNSWire", "LockrStore", "LockrPolicy", "LockrPuzzles",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"]),
        // Each person's engine in memory behind the control API's PolicyAccess, for the control
        // API's and the web pages' in-process tests.
        .target(
            name: "PolicyFakes", dependencies: ["CivilTime", "LockrAPI", "LockrControl", "LockrPolicy"],
            path: "Tests/PolicyFakes"
        ),
        .testTarget(
            name: "LockrControlTests",
            dependencies: [
                "LockrAPI", "LockrControl", "LockrPolicy", "LockrPuzzles", "DNSTestSupport", "PolicyFakes",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["DNSTestSupport", "DNSWire", "BackendFakes", "LockrPuzzles"]
        ),
    ],
    cxxLanguageStandard: .cxx17
)

// libFuzzer harnesses for every parser of outside bytes, built only by `bench/fuzz` (LOCKR_FUZZ=1,
// with -sanitize=fuzzer,address): libFuzzer brings the program's main.
if Context.environment["LOCKR_FUZZ"] != nil {
    package.targets.append(.target(name: "LockrFuzzDriver", path: "Fuzz/Driver"))
    package.targets.append(
        .executableTarget(
            name: "lockr-fuzz",
            dependencies: [
                "LockrFuzzDriver", "CivilTime", "DNSWire", "DNSFilter", "DNSProxy", "LockrPolicy", "LockrPuzzles",
                "LockrSpeech", "LockrAPI", "LockrControl",
                "LockrDaemon", "LockrDnstap", "LockrLists", "LockrWeb",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Fuzz/Harness"
        ))
    package.products.append(.executable(name: "lockr-fuzz", targets: ["lockr-fuzz"]))
}
