import Foundation

/// The set-up of a resolver that takes lockr's Response Policy Zone `default.rpz.lockr.`, as
/// docs/fleet.md describes it: it answers `clients` on `address`, transfers the zone from lockr at
/// `primary` (which also sends its NOTIFYs), and forwards what the policy lets through to
/// `upstream`. unbound and BIND are told of changes by NOTIFY (BIND applies each at once:
/// `min-update-interval 0`); PowerDNS Recursor 4.8 takes no NOTIFY for an RPZ and asks every
/// second, and its packet cache, which answers without the policy, is off.
struct PolicyZoneResolver {
    enum Kind: String { case unbound, bind, powerDNS = "PowerDNS Recursor" }

    /// A host and a port, spelled in each resolver's config as it wants them.
    struct Endpoint {
        let host: String
        let port: Int
    }

    let kind: Kind
    /// Where its config files go, and what it keeps (BIND's copy of the zone).
    let directory: String
    /// The address it answers on ("0.0.0.0": every address it has) and its port.
    var address = "127.0.0.1"
    var port = 53
    /// The network of the clients it answers.
    var clients = "127.0.0.0/8"
    let primary: Endpoint
    let upstream: Endpoint
    /// BIND's transfers are signed with this secret (hmac-sha256, key `lockr-rpz`) when it is set.
    var tsigSecret: String? = nil
    /// Added to unbound's config as clauses of their own, to BIND's inside `options`.
    var extra = ""

    /// The command that runs it in the foreground on the config `writeConfig` wrote.
    var command: String {
        switch kind {
        case .unbound: "/usr/sbin/unbound -d -c \(directory)/unbound.conf"
        case .bind: "/usr/sbin/named -g -c \(directory)/named.conf"
        case .powerDNS: "/usr/sbin/pdns_recursor --config-dir=\(directory)"
        }
    }

    /// Its program, which `scripts/setup` installs.
    var binary: String { String(command.prefix { $0 != " " }) }

    /// Writes its config files into `directory`.
    func writeConfig() throws {
        switch kind {
        case .unbound:
            try write("unbound.conf", unboundConfig)
        case .bind:
            try write("named.conf", bindConfig)
        case .powerDNS:
            try write("rpz.lua", #"rpzPrimary("\#(primary.host):\#(primary.port)", "default.rpz.lockr.", {refresh=1})"#)
            try write("recursor.conf", powerDNSConfig)
        }
    }

    private func write(_ file: String, _ text: String) throws {
        try text.write(toFile: directory + "/" + file, atomically: true, encoding: .utf8)
    }

    private var unboundConfig: String {
        """
        server:
          interface: \(address)@\(port)
        \(UnboundProcess.inTheForeground)
          access-control: \(clients) allow
          module-config: "respip iterator"
        rpz:
          name: "default.rpz.lockr."
          primary: \(primary.host)@\(primary.port)
          allow-notify: \(primary.host)
        forward-zone:
          name: "."
          forward-addr: \(upstream.host)@\(upstream.port)
        \(extra)
        """
    }

    private var bindConfig: String {
        let key = tsigSecret == nil ? "" : #"key "lockr-rpz""#
        return """
            options {
              directory "\(directory)";
              listen-on port \(port) { \(address == "0.0.0.0" ? "any" : address); };
              listen-on-v6 { none; };
              pid-file none;
              recursion yes;
              allow-query { \(clients); };
              allow-recursion { \(clients); };
              forwarders { \(upstream.host) port \(upstream.port); };
              forward only;
              dnssec-validation no;
              response-policy { zone "default.rpz.lockr" min-update-interval 0; } qname-wait-recurse no;
              \(extra)
            };
            controls { };
            \(tsigSecret.map { "key \"lockr-rpz\" { algorithm hmac-sha256; secret \"\($0)\"; };" } ?? "")
            zone "default.rpz.lockr" {
              type secondary;
              primaries { \(primary.host) port \(primary.port) \(key); };
              file "default.rpz.lockr.db";
              allow-notify { \(primary.host); };
            };
            """
    }

    private var powerDNSConfig: String {
        """
        local-address=\(address)
        local-port=\(port)
        allow-from=\(clients)
        forward-zones-recurse=.=\(upstream.host):\(upstream.port)
        lua-config-file=\(directory)/rpz.lua
        socket-dir=\(directory)
        daemon=no
        write-pid=no
        dnssec=off
        disable-packetcache=yes
        disable-syslog=yes
        security-poll-suffix=
        """
    }
}
