import LockrPolicy

// The control API's event log, live events and doctor's checks.

public struct EventBody: Codable, Sendable, Equatable {
    public let person: String
    public let at: String
    /// Local date and time in the policy's time zone, "2026-11-21 15:00".
    public let local: String
    public let type: String
    public let app: String?
    public let detail: String
    /// The action that wrote it; none for what policy time wrote (a day's reset, a window's end).
    public let action: ActionName?
}

/// One live event of `GET events` (the `data` of a server-sent event whose `event` is `type`).
public struct LiveEventBody: Codable, Sendable, Equatable {
    /// The server-sent event's id: send it back as `Last-Event-ID` to miss nothing on reconnecting.
    public let id: String
    public let person: String
    /// `window_opened`, `window_ending`, `window_closed`, `budget_low`, `locked`, `unlocked`,
    /// `app_opened`, `protection_off`, `protection_back`, `settings_changed`.
    public let type: String
    /// Policy time, ISO 8601, and local time ("14:02").
    public let at: String
    public let local: String
    /// The app's id and name; absent for what concerns the person as a whole (a shared budget's
    /// warning, protection, settings).
    public let app: String?
    public let appName: String?
    /// Where the app stands after the change.
    public let state: AccessBody?
    /// `window_ending` (2, 1) and `budget_low` (5, 1): whole minutes left.
    public let minutesLeft: Int?
    /// `app_opened`: how many times the app was opened today.
    public let opensToday: Int?
    /// When the window, the budget or the lock ends, when known.
    public let until: TimeBody?
    /// The change as a sentence.
    public let message: String
    /// `locked`: something to do instead, from the configured list (`[notify] suggestions`).
    public let suggestion: String?
}

/// One check of `lockr doctor`: what was checked, whether it passed, what was found, and what to
/// do when it failed.
public struct DoctorCheckBody: Codable, Sendable, Equatable {
    public let name: String
    public let ok: Bool
    public let detail: String
    public let fix: String?

    public init(name: String, ok: Bool, detail: String, fix: String?) {
        self.name = name
        self.ok = ok
        self.detail = detail
        self.fix = fix
    }
}

/// `GET doctor`: what the daemon serves and its own checks.
public struct DoctorResponse: Codable, Sendable, Equatable {
    /// Whether lockr answers DNS itself (false when backends alone enforce the policy).
    public let dnsServed: Bool
    /// Where it answers DNS ("127.0.0.1:5335").
    public let dnsAddresses: [String]
    /// Upstreams, clock, state database, each person's devices, each backend.
    public let checks: [DoctorCheckBody]

    public init(dnsServed: Bool, dnsAddresses: [String], checks: [DoctorCheckBody]) {
        self.dnsServed = dnsServed
        self.dnsAddresses = dnsAddresses
        self.checks = checks
    }
}

public struct LogResponse: Codable, Sendable, Equatable {
    public let events: [EventBody]
}
