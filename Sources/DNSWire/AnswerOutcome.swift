/// What became of a query, as one stable word: the query log, the control API, stats and metrics
/// all say it so, and a new kind breaks every `switch` that misses it. Each is the word of one case
/// of DNSProxy's `QueryOutcome`, which says what it means.
public enum AnswerOutcome: String, Codable, Sendable, CaseIterable {
    case blocked, cached, forwarded, stale, synthesized, refused, unsupported, malformed, failed
}
