import DNSWire
import Foundation
import LockrPolicy

// The JSON bodies of the control API (`/api/v1/...`). Keys are snake_case on the wire.

/// A moment as the API shows it: ISO 8601 (UTC), local clock time in the policy's time zone (with
/// the date for a pending change's time, which may be days away), and seconds from the response's
/// `now` (policy time, which `--time-scale` speeds up).
public struct TimeBody: Codable, Sendable, Equatable {
    public let at: String
    public let local: String
    public let inSeconds: Int64
}

public struct CounterBody: Codable, Sendable, Equatable {
    public let used: Int
    public let perDay: Int
}

public struct AppBody: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let open: Bool
    /// Where it stands and why, as a code (for scripts) and a sentence (for people).
    public let state: AccessBody
    /// `state` as a sentence that names the app ("tiktok: daily budget spent (5/5 min)").
    public let reason: String
    /// Use today in every window.
    public let usedSeconds: Int64
    /// The part of `used_seconds` in snooze and emergency windows, charged to no budget.
    public let unchargedSeconds: Int64
    /// Time mode: the budget this app draws on today (its own or the shared one, extensions included)
    /// and what is left of it.
    public let budgetSeconds: Int64?
    public let leftSeconds: Int64?
    public let windowEnds: TimeBody?
    public let nextReset: TimeBody
    /// False for an app listed only because a schedule or profile blocks it.
    public let guarded: Bool
    /// The schedule or profile that blocks it outright, if any.
    public let restriction: RestrictionBody?
}

/// Why an app is open or blocked.
public struct AccessBody: Codable, Sendable, Equatable {
    /// `window`, `budget_left`, `free`, `budget_spent`, `hour_used`, `cooldown`, `locked`, `schedule`,
    /// `profile`.
    public let code: AccessCode
    /// The reason in words, without the app's name ("daily budget spent (5/5 min)").
    public let text: String
    /// When it closes (open) or when the block ends, if not at the day's end (blocked); absent when
    /// neither is known.
    public let until: TimeBody?
    /// `window`: the window's kind (`hourly`, `snooze`, `emergency`).
    public let window: String?
    /// `locked`: what opens it (`sentence`, `gate`, `first_query`, `unlock`).
    public let opensBy: AppAccess.Opening?
}

/// `GET status`: every person (or the one `?person=` names), and what the household shares.
public struct HouseholdStatusBody: Codable, Sendable, Equatable {
    /// The default person first.
    public let people: [StatusBody]
    /// Other blockers lockr drives (empty when lockr only answers DNS itself).
    public let backends: [BackendBody]
    /// Set when policy time and this machine's clock disagree by more than a minute, and why.
    public let clockWarning: String?
}

/// Where one person stands.
public struct StatusBody: Codable, Sendable, Equatable {
    public let person: String
    /// Policy time, ISO 8601, and as local date and time ("2026-11-21 14:02").
    public let now: String
    public let nowLocal: String
    /// The policy's time zone.
    public let timeZone: String
    public let mode: String
    public let summary: String
    public let day: String
    public let dayEnds: TimeBody
    /// The configured daily budget; `extra_minutes` were added to the shared one today.
    public let budgetMinutes: Int64
    public let extraMinutes: Int64
    public let perApp: Bool
    public let windowMinutes: Int64
    public let snoozes: CounterBody
    public let extensions: CounterBody
    public let emergencies: CounterBody
    public let gateMisses: Int
    public let cooldownEnds: TimeBody?
    public let totalUsedSeconds: Int64
    /// The part of `total_used_seconds` charged to the shared budget.
    public let totalChargedSeconds: Int64
    public let apps: [AppBody]
    /// Loosening changes waiting for their time.
    public let pending: [PendingBody]
    /// Settings changed through the CLI or API, which stay on top of the config file
    /// (`lockr settings reset` drops them).
    public let overridden: [String]
    /// The schedules in force, and every profile.
    public let schedules: [ScheduleBody]
    public let profiles: [ProfileBody]
    /// Their devices that asked lately.
    public let devices: [DeviceBody]
}

/// Whether a device still asks lockr.
public enum DeviceState: String, Codable, Sendable, CaseIterable {
    case ok
    /// It stopped asking lockr but is still on the network.
    case protectionOff = "protection_off"
    /// It stopped asking, and lockr cannot tell whether it is still around.
    case notSeen = "not_seen"
}

/// A device that asked lockr, and whose it is.
public struct DeviceBody: Codable, Sendable, Equatable {
    public let person: String
    public let address: String
    public let mac: String?
    /// How lockr knew whose it is: forwarded-mac, forwarded-subnet, neighbour-table, source-address.
    public let identifiedBy: String
    /// When it last asked (`in_seconds` is negative: in the past).
    public let lastSeen: TimeBody
    /// Whether it still asks lockr.
    public let state: DeviceState
    /// What the state means, for people.
    public let note: String?
    /// Whether the config file gives it its person (a `devices` entry): changed there, not by an
    /// assignment.
    public var fromConfig = false

    public init(
        person: String, address: String, mac: String?, identifiedBy: String, lastSeen: TimeBody, state: DeviceState,
        note: String?
    ) {
        self.person = person
        self.address = address
        self.mac = mac
        self.identifiedBy = identifiedBy
        self.lastSeen = lastSeen
        self.state = state
        self.note = note
    }
}

/// `GET devices`: every device seen lately.
public struct DevicesResponse: Codable, Sendable, Equatable {
    public let devices: [DeviceBody]
}

/// How one backend (Pi-hole, AdGuard Home, NextDNS, webhook) is doing.
public struct BackendBody: Codable, Sendable, Equatable {
    public let name: String
    /// ok, not_enforcing (reachable and in sync, but the backend's own switches keep lockr's blocks
    /// from working: see `not_enforcing`), failing or starting.
    public let state: String
    /// Changes queued and not delivered yet.
    public let pending: Int
    /// Age of the oldest undelivered change, in seconds (0 when in sync).
    public let lagSeconds: Int64
    public let lastSuccess: String?
    public let lastError: String?
    public let retryInSeconds: Int64?
    /// Entries rewritten because the backend had drifted (deleted or edited by hand).
    public let repairs: Int
    /// What was left alone, and why.
    public let notes: [String]
    /// Why lockr's blocks are not in force, each a sentence (empty when they are).
    public let notEnforcing: [String]
    /// Whether usage is metered from this backend's query log, and why it could not be read last.
    public let metering: Bool
    public let logError: String?

    public init(
        name: String, state: String, pending: Int, lagSeconds: Int64, lastSuccess: String?, lastError: String?,
        retryInSeconds: Int64?, repairs: Int, notes: [String], notEnforcing: [String] = [], metering: Bool,
        logError: String?
    ) {
        self.name = name
        self.state = state
        self.pending = pending
        self.lagSeconds = lagSeconds
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.retryInSeconds = retryInSeconds
        self.repairs = repairs
        self.notes = notes
        self.notEnforcing = notEnforcing
        self.metering = metering
        self.logError = logError
    }
}

/// One app lockr knows (`GET apps`).
public struct CatalogueAppBody: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let group: String
    public let guarded: Bool
}

public struct AppsResponse: Codable, Sendable, Equatable {
    public let apps: [CatalogueAppBody]
    public init(apps: [CatalogueAppBody]) { self.apps = apps }
}

public struct WindowBody: Codable, Sendable, Equatable {
    /// The app, or nil for every guarded app.
    public let app: String?
    public let kind: String
    public let ends: TimeBody
}

public struct AppRequest: Codable, Sendable, Equatable {
    public let app: String?
    /// The sentence as typed, where the gate asks it (`guard remove` loosens; time mode's gate
    /// guards `snooze` and `extend`).
    public let phrase: String?
    public init(app: String?, phrase: String? = nil) {
        self.app = app
        self.phrase = phrase
    }
}

public struct UnlockRequest: Codable, Sendable, Equatable {
    /// The app, or nil with `all` for every guarded app.
    public let app: String?
    public let all: Bool?
    /// Extreme mode: the sentence as typed.
    public let phrase: String?

    public init(app: String?, all: Bool? = nil, phrase: String? = nil) {
        self.app = app
        self.all = all
        self.phrase = phrase
    }
}

public struct UnlockResponse: Codable, Sendable, Equatable {
    public let opened: [WindowBody]
    public let alreadyOpen: [WindowBody]
}

public struct ModeRequest: Codable, Sendable, Equatable {
    public let mode: String
    public let budgetMinutes: Int?
    public let windowMinutes: Int?
    public let perApp: Bool?
    /// Extreme mode: the sentence, for a change that loosens.
    public let phrase: String?

    public init(
        mode: String, budgetMinutes: Int? = nil, windowMinutes: Int? = nil, perApp: Bool? = nil, phrase: String? = nil
    ) {
        self.mode = mode
        self.budgetMinutes = budgetMinutes
        self.windowMinutes = windowMinutes
        self.perApp = perApp
        self.phrase = phrase
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decode(String.self, forKey: .mode)
        budgetMinutes = try container.decodeWholeNumber(Int.self, forKey: .budgetMinutes)
        windowMinutes = try container.decodeWholeNumber(Int.self, forKey: .windowMinutes)
        perApp = try container.decodeIfPresent(Bool.self, forKey: .perApp)
        phrase = try container.decodeIfPresent(String.self, forKey: .phrase)
    }
}

/// A change that loosens protection, waiting for its time.
public struct PendingBody: Codable, Sendable, Equatable {
    public let id: Int
    /// "time.budget-minutes: 30 min → 45 min".
    public let change: String
    public let source: String
    public let appliesAt: TimeBody
    /// It waits for the sentence too (`lockr pending confirm ID`).
    public let awaitingSentence: Bool
}

/// What a settings change did.
public struct ChangeBody: Codable, Sendable, Equatable {
    /// Changes in force now.
    public let applied: [String]
    /// Loosening changes waiting for their time.
    public let pending: [PendingBody]
    /// Changes that were waiting and are no longer asked for: cancelled by this one.
    public let cancelled: [PendingBody]
}

public struct ModeResponse: Codable, Sendable, Equatable {
    /// The mode in force and its main number (a loosening change may still be pending).
    public let mode: String
    public let summary: String
    public let change: ChangeBody
}

public struct GuardResponse: Codable, Sendable, Equatable {
    public let guarded: [String]
    public let change: ChangeBody
}

public struct PendingResponse: Codable, Sendable, Equatable {
    public let pending: [PendingBody]
}

public struct PinRequest: Codable, Sendable, Equatable {
    /// The new PIN (4-64 characters).
    public let pin: String
    public init(pin: String) { self.pin = pin }
}

public struct PinResponse: Codable, Sendable, Equatable {
    /// Whether a PIN is set now.
    public let set: Bool
}

/// The sentence, for a loosening change in extreme mode.
public struct PhraseRequest: Codable, Sendable, Equatable {
    public let phrase: String?
    public init(phrase: String?) { self.phrase = phrase }
}

public struct ExtendResponse: Codable, Sendable, Equatable {
    public let budgetMinutes: Int64
}

public struct HoldResponse: Codable, Sendable, Equatable {
    public let hold: UInt64
    /// Real time to wait before completing the hold (the policy's hold, divided by the time scale).
    public let waitMilliseconds: Int64
}

public struct EmergencyRequest: Codable, Sendable, Equatable {
    public let hold: UInt64
    public init(hold: UInt64) { self.hold = hold }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let hold = try container.decodeWholeNumber(UInt64.self, forKey: .hold) else {
            throw DecodingError.keyNotFound(
                CodingKeys.hold, .init(codingPath: container.codingPath, debugDescription: "hold is required"))
        }
        self.hold = hold
    }
}

extension KeyedDecodingContainer {
    /// A JSON number that must be whole and fit `T`. Foundation reports `30.5` or `1e30` for an
    /// integer as "not valid JSON" without naming the key; this names it ("must be a whole number").
    func decodeWholeNumber<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard value.rounded() == value, let whole = T(exactly: value) else {
            throw DecodingError.typeMismatch(
                T.self, .init(codingPath: codingPath + [key], debugDescription: "not a whole number in range"))
        }
        return whole
    }
}

public struct EventBody: Codable, Sendable, Equatable {
    public let person: String
    public let at: String
    /// Local date and time in the policy's time zone, "2026-11-21 15:00".
    public let local: String
    public let type: String
    public let app: String?
    public let detail: String
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

public struct ErrorBody: Codable, Sendable, Equatable, Error {
    public let error: String
    /// A stable word for scripts: unauthorized, bad_request, unknown_app, not_guarded, wrong_phrase, ...
    public let code: ErrorCode
    public let retryAfterSeconds: Int64?
    /// `phrase_required`: the sentence to type.
    public let sentence: String?
    /// A spoken sentence refused: what the recogniser heard.
    public let heard: String?

    public init(
        error: String, code: ErrorCode, retryAfterSeconds: Int64? = nil, sentence: String? = nil, heard: String? = nil
    ) {
        self.error = error
        self.code = code
        self.retryAfterSeconds = retryAfterSeconds
        self.sentence = sentence
        self.heard = heard
    }
}

/// The API's JSON coders: snake_case keys, sorted for stable output.
public enum ControlJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }
}

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

/// `GET stats`: each person's days and streaks.
public struct StatsResponse: Codable, Sendable, Equatable {
    public let people: [PersonStatsBody]
}

/// One person's days, oldest first, and their streaks as of today.
public struct PersonStatsBody: Codable, Sendable, Equatable {
    public let person: String
    public let days: [DayStatsBody]
    public let streaks: StreaksBody
}

/// One day: use against the budget, each app, gates, allowances and queries.
public struct DayStatsBody: Codable, Sendable, Equatable {
    /// The local date the day starts on.
    public let day: String
    /// Time mode: the shared budget, with what extensions added (nil in other modes or with
    /// budgets per app, which `apps` carry).
    public let budgetSeconds: Int64?
    /// Use of all guarded apps together, and what of it the budget was charged.
    public let usedSeconds: Int64
    public let chargedSeconds: Int64
    public let apps: [AppDayBody]
    public let gates: [GateDayBody]
    public let snoozes: Int
    public let extensions: Int
    public let emergencies: Int
    /// No snooze, extension or emergency asked for more.
    public let heldLimits: Bool
    /// Queries answered per outcome (the query log's counts; empty when it is off).
    public let queries: [String: Int]
}

/// One app on one day.
public struct AppDayBody: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let usedSeconds: Int64
    /// Its own budget, when budgets are per app (with extensions).
    public let budgetSeconds: Int64?
    /// Times it was opened: use more than 5 minutes after the last.
    public let opens: Int
    /// Windows opened for it (unlocks, first queries of the hour, snoozes).
    public let windows: Int
    /// Queries of its names answered with the block answer.
    public let blocked: Int
}

/// Gates of one kind ("phrase", "voice", "chess hard") on one day.
public struct GateDayBody: Codable, Sendable, Equatable {
    public let kind: String
    public let passed: Int
    public let failed: Int
}

/// Days in a row: the run that reaches today, and the longest.
public struct RunBody: Codable, Sendable, Equatable {
    public let current: Int
    public let best: Int
}

/// Days whose limits held, and days without an emergency.
public struct StreaksBody: Codable, Sendable, Equatable {
    public let heldLimits: RunBody
    public let withoutEmergency: RunBody
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
