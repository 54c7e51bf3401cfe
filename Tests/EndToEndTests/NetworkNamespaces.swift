import DNSTestSupport
import Foundation

/// A small home network the test builds in network namespaces of its own: a router namespace with
/// a bridge (`lan0`, 10.77.0.1/24) and client namespaces, each with a veth into that bridge, its own
/// MAC address and its own address. Names carry a random suffix, so tests may run side by side;
/// `remove()` kills whatever still runs inside and deletes them all.
final class NetworkNamespaces {
    /// iproute2, which every step uses.
    static let ip = "/usr/sbin/ip"
    let router: String
    private(set) var clients: [String] = []
    private let suffix = String(UUID().uuidString.prefix(6)).lowercased()

    /// Why namespaces cannot be made here (not root, no iproute2), or nil.
    static var unavailable: String? {
        guard getuid() == 0 else { return "network namespaces need root" }
        guard FileManager.default.isExecutableFile(atPath: ip) else { return "iproute2 is not installed" }
        let probe = "lockr-probe-\(UUID().uuidString.prefix(6))"
        guard (try? run(ip, ["netns", "add", probe]))?.status == 0 else { return "`ip netns add` is not allowed here" }
        _ = try? run(ip, ["netns", "del", probe])
        return nil
    }

    init() throws {
        router = "lkr-\(suffix)-r"
        try command(["netns", "add", router])
        try inside(router, ["ip", "link", "set", "lo", "up"])
        try inside(router, ["ip", "link", "add", "lan0", "type", "bridge"])
        // A MAC of its own: a bridge otherwise takes its ports' lowest, which changes as clients
        // join, and devices that cached the old one cannot reach the router for seconds.
        try inside(router, ["ip", "link", "set", "lan0", "address", "02:00:00:77:00:01"])
        try inside(router, ["ip", "addr", "add", "10.77.0.1/24", "dev", "lan0"])
        try inside(router, ["ip", "link", "set", "lan0", "up"])
    }

    /// Adds a client namespace at `address` (in 10.77.0.0/24) with `mac`; returns its name.
    @discardableResult
    func addClient(_ label: String, address: String, mac: String) throws -> String {
        let name = "lkr-\(suffix)-\(label)"
        let (outside, inner) = ("v\(suffix)\(label)", "eth0")
        try command(["netns", "add", name])
        clients.append(name)
        try command(["link", "add", outside, "netns", router, "type", "veth", "peer", "name", inner, "netns", name])
        try inside(router, ["ip", "link", "set", outside, "master", "lan0", "up"])
        try inside(name, ["ip", "link", "set", "lo", "up"])
        try inside(name, ["ip", "link", "set", inner, "address", mac])
        try inside(name, ["ip", "addr", "add", "\(address)/24", "dev", inner])
        try inside(name, ["ip", "link", "set", inner, "up"])
        return name
    }

    /// Adds a namespace beyond the router (its "internet"): a veth from the router's `wan0`
    /// (10.78.0.1/24) to the new namespace at `address` (in 10.78.0.0/24), with routes both ways
    /// and the router forwarding between its LAN and it; returns its name. Clients get a default
    /// route through the router.
    @discardableResult
    func addBeyondRouter(_ label: String, address: String) throws -> String {
        let name = "lkr-\(suffix)-\(label)"
        try command(["netns", "add", name])
        clients.append(name)
        try command([
            "link", "add", "w\(suffix)\(label)", "netns", router, "type", "veth", "peer", "name", "eth0", "netns", name,
        ])
        try inside(router, ["ip", "link", "set", "w\(suffix)\(label)", "name", "wan0"])
        try inside(router, ["ip", "addr", "add", "10.78.0.1/24", "dev", "wan0"])
        try inside(router, ["ip", "link", "set", "wan0", "up"])
        try inside(router, ["sysctl", "-q", "-w", "net.ipv4.ip_forward=1"])
        try inside(name, ["ip", "link", "set", "lo", "up"])
        try inside(name, ["ip", "addr", "add", "\(address)/24", "dev", "eth0"])
        try inside(name, ["ip", "link", "set", "eth0", "up"])
        try inside(name, ["ip", "route", "add", "default", "via", "10.78.0.1"])
        for client in clients where client != name {
            _ = try? inside(client, ["ip", "route", "add", "default", "via", "10.77.0.1"])
        }
        return name
    }

    /// Adds a namespace behind `parent` on a link of their own (`network`, a /24 such as
    /// "10.81.0"): the parent is `network.1`, the new namespace `network.2`; returns its name. A
    /// client of a resolver that runs in `parent`.
    @discardableResult
    func addBehind(_ parent: String, _ label: String, network: String) throws -> String {
        let name = "lkr-\(suffix)-\(label)"
        try command(["netns", "add", name])
        clients.append(name)
        try command([
            "link", "add", "b\(suffix)\(label)", "netns", parent, "type", "veth", "peer", "name", "eth0", "netns", name,
        ])
        try inside(parent, ["ip", "addr", "add", "\(network).1/24", "dev", "b\(suffix)\(label)"])
        try inside(parent, ["ip", "link", "set", "b\(suffix)\(label)", "up"])
        try inside(name, ["ip", "link", "set", "lo", "up"])
        try inside(name, ["ip", "addr", "add", "\(network).2/24", "dev", "eth0"])
        try inside(name, ["ip", "link", "set", "eth0", "up"])
        return name
    }

    /// Takes a client off the network: its namespace goes, and its veth with it. The kernel tears a
    /// namespace down in the background, and under load its stack still answers ARP for a while:
    /// this returns once the router's end of its veth is gone.
    func removeClient(_ name: String) async throws {
        let label = String(name.dropFirst("lkr-\(suffix)-".count))
        try command(["netns", "del", name])
        clients.removeAll { $0 == name }
        let deadline = Date().addingTimeInterval(20)
        while (try? await runAwaited(Self.ip, ["-n", router, "link", "show", "v\(suffix)\(label)"]))?.status == 0,
            Date() < deadline
        {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs `arguments` in namespace `name`; throws when it fails.
    @discardableResult
    func inside(_ name: String, _ arguments: [String]) throws -> String {
        try command(["netns", "exec", name] + arguments)
    }

    /// Runs `ip arguments`; throws with its output when it fails.
    @discardableResult
    private func command(_ arguments: [String]) throws -> String {
        let result = try run(Self.ip, arguments)
        guard result.status == 0 else {
            throw LockrProcess.Failure("ip \(arguments.joined(separator: " ")): \(result.output)")
        }
        return result.output
    }

    /// Kills what runs inside and deletes every namespace (the veths go with them).
    func remove() {
        for name in clients + [router] {
            let pids = (try? run(Self.ip, ["netns", "pids", name]))?.output.split(separator: "\n") ?? []
            for pid in pids.compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
            _ = try? run(Self.ip, ["netns", "del", name])
        }
    }
}
