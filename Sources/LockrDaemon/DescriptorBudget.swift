import Foundation
import LockrControl
import Logging

/// The file descriptors lockr may hold and how they are shared. At start the soft limit is raised
/// to the hard one (at most `wanted`): a service gets 1,024 by default, which a device opening
/// connections to the web pages would otherwise use up. DNS keeps a reserve (its TCP connections,
/// upstream sockets, the databases, the loops); the web pages and the control API share what is
/// left, each connection counted against a quota per source address and in all, so that no number
/// of HTTP connections can take a descriptor that DNS needs.
struct DescriptorBudget: Sendable {
    /// Descriptors wanted when the hard limit allows: far more than the quotas take.
    static let wanted = 65_536
    /// Descriptors DNS keeps beside its TCP connections: upstream sockets, TCP exchanges for
    /// truncated answers, the databases, the neighbour table's netlink sockets, the event loops.
    static let dnsOverhead = 256
    /// Connections the web pages and the control API take when descriptors allow, and per source.
    static let webConnections = 512
    static let controlConnections = 64
    static let connectionsPerSource = 32

    /// The soft limit in effect.
    let limit: Int
    /// Connections to the web pages.
    let web: SourceQuota
    /// Connections to the control API.
    let control: SourceQuota

    /// Raises the soft limit and shares it, leaving DNS `maxTCPConnections` and its overhead;
    /// says so when the limit cannot hold the usual quotas.
    static func claim(maxTCPConnections: Int, logger: Logger) -> DescriptorBudget {
        let limit = raiseSoftLimit(logger: logger)
        let budget = DescriptorBudget(limit: limit, maxTCPConnections: maxTCPConnections)
        if budget.web.total < webConnections {
            logger.warning(
                "few file descriptors: the web pages and control API take fewer connections than usual",
                metadata: [
                    "limit": "\(limit)", "web": "\(budget.web.total)", "control": "\(budget.control.total)",
                    "fix": "raise the hard limit (LimitNOFILE= in the service, ulimit -Hn)",
                ])
        }
        return budget
    }

    /// The quotas that fit in `limit` descriptors beside DNS's reserve.
    init(limit: Int, maxTCPConnections: Int) {
        self.limit = limit
        let forHTTP = limit - maxTCPConnections - Self.dnsOverhead
        let wanted = Self.webConnections + Self.controlConnections
        let web = forHTTP >= wanted ? Self.webConnections : max(16, forHTTP * 7 / 8)
        let control = forHTTP >= wanted ? Self.controlConnections : max(16, forHTTP / 8)
        self.web = SourceQuota(total: web, perSource: Self.connectionsPerSource)
        self.control = SourceQuota(total: control, perSource: Self.connectionsPerSource)
    }

    /// Sets the soft limit of open files to the hard one, at most `wanted`; returns the soft limit
    /// in effect.
    private static func raiseSoftLimit(logger: Logger) -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1_024 }
        let target = min(limits.rlim_max, rlim_t(wanted))
        guard limits.rlim_cur < target else { return Int(limits.rlim_cur) }
        let before = limits.rlim_cur
        limits.rlim_cur = target
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return Int(before) }
        logger.debug("raised the open files limit", metadata: ["from": "\(before)", "to": "\(target)"])
        return Int(target)
    }
}
