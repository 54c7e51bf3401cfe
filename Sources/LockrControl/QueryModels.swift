import DNSWire
import LockrPolicy

// The control API's query log and `explain`.

/// Which logged queries `GET queries` asks for.
public struct QueryLogRequest: Sendable, Equatable {
    public var person: String?
    /// An address or MAC address.
    public var client: String?
    public var blockedOnly = false
    /// Seconds back from now.
    public var sinceSeconds: Int64?
    /// Only entries after this id (`lockr queries --follow`).
    public var afterID: Int64?
    public var limit: Int

    public init(
        person: String? = nil, client: String? = nil, blockedOnly: Bool = false, sinceSeconds: Int64? = nil,
        afterID: Int64? = nil, limit: Int = 100
    ) {
        self.person = person
        self.client = client
        self.blockedOnly = blockedOnly
        self.sinceSeconds = sinceSeconds
        self.afterID = afterID
        self.limit = limit
    }
}
