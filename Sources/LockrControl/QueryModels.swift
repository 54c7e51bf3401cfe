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

/// One logged query.
public struct QueryEntryBody: Codable, Sendable, Equatable {
    public let id: Int64
    /// When it was answered (RFC 3339, the wall clock).
    public let at: String
    public let client: String
    public let mac: String?
    public let person: String
    public let name: String
    public let type: String
    public let outcome: AnswerOutcome
    public let reason: String?
    public let app: String?
    public let upstream: String?
    public let latencyMs: Double?

    public init(
        id: Int64, at: String, client: String, mac: String?, person: String, name: String, type: String,
        outcome: AnswerOutcome, reason: String?, app: String?, upstream: String?, latencyMs: Double?
    ) {
        self.id = id
        self.at = at
        self.client = client
        self.mac = mac
        self.person = person
        self.name = name
        self.type = type
        self.outcome = outcome
        self.reason = reason
        self.app = app
        self.upstream = upstream
        self.latencyMs = latencyMs
    }
}

/// `GET queries`: the newest logged queries that match, oldest first.
public struct QueriesResponse: Codable, Sendable, Equatable {
    /// Whether queries are logged at all (`[query-log] enabled`).
    public let enabled: Bool
    public let retentionDays: Double
    /// Entries dropped since the daemon started because the log could not keep up or be written.
    public let dropped: Int
    /// The household's people, the default person first.
    public let people: [String]
    public let entries: [QueryEntryBody]

    public init(enabled: Bool, retentionDays: Double, dropped: Int, people: [String], entries: [QueryEntryBody]) {
        self.enabled = enabled
        self.people = people
        self.retentionDays = retentionDays
        self.dropped = dropped
        self.entries = entries
    }
}

/// `GET explain`: what lockr would answer for a name now, and why, without asking upstream.
/// What `lockr explain` finds lockr does with a name.
public enum ExplainVerdict: String, Codable, Sendable, CaseIterable {
    /// Answered by lockr itself: a block list's rule, anti-bypass, or an app the policy closed.
    case blocked
    /// From the cache or the upstreams.
    case allowed
    /// An app's name, open now, with TTLs cut to `ttl_cap_seconds`.
    case appOpen = "app_open"
    /// The name of lockr's web pages, answered with their address.
    case lockr
}

public struct ExplainBody: Codable, Sendable, Equatable {
    public let name: String
    public let type: String
    public let person: String
    /// The device asked about, when one was given.
    public let client: String?
    /// The person's mode.
    public let mode: String
    /// What lockr does with the name (see `ExplainVerdict`).
    public let verdict: ExplainVerdict
    /// What the client gets: "0.0.0.0", "NXDOMAIN", "the upstream's answer", ...
    public let answer: String
    /// Why, in words.
    public let reason: String
    /// The list rule that decides it, and its list.
    public let rule: String?
    public let list: String?
    /// The app whose name it is, and the policy's code when it is closed (`budget_spent`,
    /// `hour_used`, `cooldown`, `locked`, `schedule`, `profile`).
    public let app: String?
    public let appName: String?
    public let code: AccessCode?
    public let ttlCapSeconds: Int?

    public init(
        name: String, type: String, person: String, client: String?, mode: String, verdict: ExplainVerdict,
        answer: String,
        reason: String, rule: String? = nil, list: String? = nil, app: String? = nil, appName: String? = nil,
        code: AccessCode? = nil, ttlCapSeconds: Int? = nil
    ) {
        self.name = name
        self.type = type
        self.person = person
        self.client = client
        self.mode = mode
        self.verdict = verdict
        self.answer = answer
        self.reason = reason
        self.rule = rule
        self.list = list
        self.app = app
        self.appName = appName
        self.code = code
        self.ttlCapSeconds = ttlCapSeconds
    }
}
