import Logging
import NIOCore

/// One `[[forward]]` table of the config file: names under `domains` are asked of `servers`, not
/// of the upstreams (conditional forwarding, as dnsmasq's `server=/lan/192.168.1.1`).
public struct ForwardRule: Sendable, Equatable {
    /// Domains in lower case, without the final dot ("lan", "168.192.in-addr.arpa"); each covers
    /// itself and every name under it.
    public var domains: [String]
    public var servers: [SocketAddress]

    public init(domains: [String], servers: [SocketAddress]) {
        self.domains = domains
        self.servers = servers
    }
}

/// Where the names of the home's own domains go instead of the upstreams: the router's DNS, say,
/// which knows the names its DHCP handed out (`printer.lan`) and their reverse lookups. The
/// longest domain that covers a name wins; a name no domain covers goes to the upstreams. Each
/// rule's servers are a pool of their own, with its own health and failover.
public struct ForwardRoutes: Sendable {
    /// By domain, the longest first; `suffix` is the domain with a dot before it.
    private let routes: [(domain: String, suffix: String, pool: UpstreamPool)]

    /// No route: every name goes to the upstreams.
    public init() { routes = [] }

    public init(_ rules: [ForwardRule], logger: Logger? = nil) {
        routes = rules.flatMap { rule in
            let pool = UpstreamPool(servers: rule.servers, logger: logger)
            return rule.domains.map { (domain: $0, suffix: "." + $0, pool: pool) }
        }.sorted { $0.domain.count > $1.domain.count }
    }

    /// Whether there are no routes.
    public var isEmpty: Bool { routes.isEmpty }

    /// The pool of the longest domain that covers `name` (presentation form, any case, with or
    /// without its final dot), nil when none does.
    func pool(for name: String) -> UpstreamPool? { route(for: name)?.pool }

    /// The longest domain that covers `name`, and its servers (`lockr explain`).
    public func domain(for name: String) -> (domain: String, servers: [SocketAddress])? {
        route(for: name).map { ($0.domain, $0.pool.servers.map(\.address)) }
    }

    private func route(for name: String) -> (domain: String, suffix: String, pool: UpstreamPool)? {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return routes.first { name == $0.domain || name.hasSuffix($0.suffix) }
    }
}
