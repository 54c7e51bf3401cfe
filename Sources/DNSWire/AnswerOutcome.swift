/// What became of a query, as one stable word: the query log, the control API, stats and metrics
/// all say it so, and a new kind breaks every `switch` that misses it.
public enum AnswerOutcome: String, Codable, Sendable, CaseIterable {
    /// Answered locally: a rule, anti-bypass or the rationing policy blocks the name.
    case blocked
    /// Answered from the cache.
    case cached
    /// Answered by an upstream just now.
    case forwarded
    /// An expired cached answer, because no upstream answered in time (RFC 8767).
    case stale
    /// Answered without asking anyone: the minimal answer to ANY (RFC 8482).
    case synthesized
    /// REFUSED: the client is not on an allowed network.
    case refused
    /// What lockr does not serve: a class other than IN, a zone transfer, an EDNS version other than 0.
    case unsupported
    /// Not a well-formed query: FORMERR.
    case malformed
    /// No upstream answered and nothing stale was at hand: SERVFAIL.
    case failed
}
