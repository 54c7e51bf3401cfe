import ConfigKit
import NIOCore

/// How queries are sent upstream.
public struct ForwardSettings: Sendable, Equatable {
    /// How long one attempt waits for an answer before the next upstream is tried.
    public var attemptTimeout: TimeAmount = .milliseconds(1000)
    /// Attempts per query, cycling through the upstreams in health order.
    public var attempts: Int = 3
    /// UDP sockets per address family and event loop.
    public var socketsPerFamily: Int = 8
    /// Queries one socket carries before a socket on a new random port replaces it.
    public var queriesPerPort: Int = 64
    /// How long a query with an expired cached answer waits for the upstreams before it gets the
    /// stale answer (RFC 8767's client-response timer; it suggests 1.8 s). The upstream answer, when
    /// it comes, still refreshes the cache. While every upstream is down, stale answers go at once.
    public var staleAnswerTimeout: TimeAmount = .milliseconds(1800)
    /// Whether the locally served zones (`LocallyServedZones`) are answered here instead of being
    /// asked of the upstreams.
    public var answersLocalZones = true
    /// How long a connection to a `tls://` or `https://` upstream stays open without queries.
    public var encryptedIdleTimeout: TimeAmount = .seconds(30)
    /// PEM certificates that `tls://` and `https://` upstreams are checked against instead of the
    /// system's store.
    public var caFile: String?
    /// Plain DNS servers asked where an upstream named by its host alone is; empty: the plain
    /// upstreams, else the nameservers of /etc/resolv.conf.
    public var bootstrap: [SocketAddress] = []

    /// Every setting at its default.
    public static let defaults = ForwardSettings()
}

extension ForwardSettings: ConfigSection {
    public static let settings: [Setting<ForwardSettings>] = [
        Setting(
            "ca-file", \.caFile,
            "PEM file of the certificate authorities that tls:// and https:// upstreams' certificates must come from. Unset: the system's store (/etc/ssl/certs).",
            read: { $0.string($1) }, write: { $0.map(quotedConfigString) ?? "" }
        ).shown(as: "\"/etc/ssl/certs/ca-certificates.crt\""),
        .addresses(
            "bootstrap", \.bootstrap, defaultPort: 53,
            "Plain DNS servers (\"ADDR\" or \"ADDR:PORT\") asked where an upstream written by its name alone (https://dns.quad9.net/dns-query, tls://dns.quad9.net) is, when lockr starts and reloads. Empty: the plain upstreams, else the nameservers of /etc/resolv.conf other than lockr."
        ),
        .integer(
            "idle-seconds", \.encryptedIdleTimeout, in: 1...3_600, as: { .seconds(Int64($0)) },
            shown: { Int($0.nanoseconds / 1_000_000_000) },
            "How long a connection to a tls:// or https:// upstream stays open without queries, seconds ({range}). Each answering thread keeps its own."
        ),
        .integer(
            "timeout-ms", \.attemptTimeout, in: 10...60_000, as: { .milliseconds(Int64($0)) },
            shown: { Int($0.nanoseconds / 1_000_000) },
            "How long one attempt waits before the next upstream is tried, milliseconds ({range})."),
        .integer(
            "attempts", \.attempts, in: 1...10,
            "Attempts per query, cycling through the upstreams healthiest first ({range}). A query with no answer gets SERVFAIL after at most attempts x timeout-ms, and within a quarter second while every upstream is down (three failures in a row each)."
        ),
        .integer(
            "stale-answer-ms", \.staleAnswerTimeout, in: 0...60_000, as: { .milliseconds(Int64($0)) },
            shown: { Int($0.nanoseconds / 1_000_000) },
            "A query whose name has an expired cached answer (within [cache] serve-stale) gets that stale answer when the upstreams take longer than this, milliseconds ({range}; RFC 8767 suggests 1800), and at once while every upstream is down; the upstream answer still refreshes the cache."
        ),
        .bool(
            "local-zones", \.answersLocalZones,
            "Answer the locally served zones here, never asking the upstreams: reverse lookups of private, CGNAT, link-local and unique-local addresses (RFC 6303), and local, home.arpa, onion and invalid. NXDOMAIN, unless a [[forward]] covers the name. false: they go upstream like any name."
        ),
    ]
}
