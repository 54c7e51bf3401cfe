/// Why a backend call failed. The text never holds a secret: no password, token or session id.
public enum BackendError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection, a timeout, or a reset.
    case unreachable(String)
    /// The backend refused lockr's credentials.
    case unauthorized(String)
    /// Too many requests, or no free session seat.
    case rateLimited(String)
    /// An unexpected status or body.
    case failed(String)
    /// The configuration cannot work (a secret file that cannot be read, say).
    case misconfigured(String)

    public var description: String {
        switch self {
        case .unreachable(let why): "unreachable: \(why)"
        case .unauthorized(let why): "not authorised: \(why)"
        case .rateLimited(let why): "rate limited: \(why)"
        case .failed(let why): why
        case .misconfigured(let why): "misconfigured: \(why)"
        }
    }
}

/// What one sync did.
public struct SyncReport: Sendable, Equatable {
    /// Entries written (created, changed or removed).
    public var writes = 0
    /// What was left alone, and why (a user's own entry for the same domain; a rule the backend
    /// cannot express).
    public var notes: [String] = []
    /// Why lockr's blocks are not in force although they are in place, each a sentence: a switch of
    /// the household's own that lockr must not override (Pi-hole's blocking turned off, an allow
    /// entry covering a guarded domain). Empty when the blocks hold.
    public var notEnforcing: [String] = []

    public init(writes: Int = 0) { self.writes = writes }
}
