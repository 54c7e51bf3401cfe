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
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // The C library, wrapped once. Only DNSWire imports it (tests use it as an oracle).
        .systemLibrary(
            name: "CLdns",
            pkgConfig: "ldns",
            providers: [.apt(["libldns-dev"])]
        ),
        // Wire format: in-place query parsing, answer synthesis, upstream answer layout; ldns for validation.
        .target(name: "DNSWire", dependencies: ["CLdns"]),
        // Rule lists, the compact domain matcher, the app catalogue. Pure Swift, no I/O beyond reading files.
        .target(name: "DNSFilter", dependencies: ["DNSWire"]),
        // The query pipeline, cache, upstream forwarding and the UDP/TCP listeners (SwiftNIO).
        .target(
            name: "DNSProxy",
            dependencies: [
                "DNSWire", "DNSFilter",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Configuration (TOML + flags) and composition of the running daemon.
        .target(
            name: "LockrDaemon",
            dependencies: [
                "DNSWire", "DNSFilter", "DNSProxy",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .executableTarget(
            name: "lockr",
            dependencies: [
                "LockrDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Test helpers: a scripted upstream DNS server built on ldns, a UDP/TCP client.
        .target(
            name: "DNSTestSupport",
            dependencies: [
                "CLdns",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/Support"
        ),
        .testTarget(name: "DNSWireTests", dependencies: ["DNSWire", "CLdns", "DNSTestSupport"]),
        .testTarget(name: "DNSFilterTests", dependencies: ["DNSFilter"]),
        .testTarget(
            name: "DNSProxyTests",
            dependencies: ["DNSProxy", "DNSWire", "DNSFilter", "DNSTestSupport"]
        ),
        .testTarget(
            name: "LockrDaemonTests",
            dependencies: ["LockrDaemon", "DNSProxy", "DNSTestSupport"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["DNSTestSupport", "DNSWire"]
        ),
    ]
)
