/// lockr as the primary of Response Policy Zones: resolvers lockr does not stand in front of
/// (unbound, BIND, PowerDNS Recursor) transfer each person's block set and apply it.
public struct RPZSettings: Sendable, Equatable {
    /// Where resolvers transfer the zones from, UDP and TCP ("127.0.0.1:5300"); empty when lockr
    /// only writes zone files.
    public var listen: [String]
    /// A directory to write each zone into as a zone file, `<zone>.rpz` (`default.rpz.lockr.rpz`),
    /// replaced whole on every change, readable by every user: Knot Resolver's `policy.rpz` reads
    /// and watches it. Nil: none.
    public var zoneFiles: String?
    /// Each person's zone is `<person>.<suffix>`; everyone no person claims gets `default.<suffix>`.
    public var zoneSuffix = "rpz.lockr"
    /// Resolvers told of every change by NOTIFY ("192.168.1.3", port 53, or "192.168.1.3:5353");
    /// they may transfer the zones.
    public var secondaries: [String] = []
    /// More sources that may transfer the zones (addresses or networks), beside the secondaries.
    public var allowTransfer: [String] = []
    /// How long resolvers may cache a block, seconds.
    public var ttl = 30
    /// How often resolvers look for a new version when no NOTIFY came, seconds.
    public var refresh = 300
    /// How soon a resolver that could not reach lockr tries again, seconds.
    public var retry = 60
    /// How long resolvers keep applying the last version while lockr cannot be reached, seconds.
    public var expire = 7 * 86_400
    /// The name of the TSIG key (RFC 8945, HMAC-SHA256) shared with the secondaries, if any.
    public var tsigKey: String?
    /// Where its base64 secret is (as `tsig-keygen` writes it).
    public var tsigSecret: SecretSource?
    /// With a key: whether unsigned requests are refused (false for a fleet with resolvers that
    /// cannot sign, such as unbound).
    public var tsigRequired = true

    public init(listen: [String]) { self.listen = listen }
}
