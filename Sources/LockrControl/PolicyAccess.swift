import LockrAPI
import LockrPolicy
import NIOCore

/// Why a control call failed: the policy refused, the person is unknown or unnamed, or the state
/// could not be read or saved.
public enum ControlFailure: Error, Sendable, Equatable {
    case refused(PolicyRefusal)
    case storage(String)
    /// No person of this name; the household's people.
    case unknownPerson(String, people: [String])
    /// The call names no person, the caller's address is none of theirs, and there are several.
    case personNeeded(people: [String])
}

/// One person's policy as it stands at a policy time: read-only, for answers to be built from.
public struct PolicyView: Sendable {
    public let policy: PolicyReadout
    public let now: Instant

    public init(policy: PolicyReadout, now: Instant) {
        self.policy = policy
        self.now = now
    }

    public var calendar: DayCalendar { policy.settings.calendar }
}

/// What an action gave, and the person's policy just after it.
public struct Performed<Result: Sendable>: Sendable {
    public let result: Result
    public let view: PolicyView

    public init(result: Result, view: PolicyView) {
        self.result = result
        self.view = view
    }
}

extension Performed where Result == ActionOutcome {
    /// The part of the outcome that `part` names (`\.change`, `\.window`, ...): the kind of
    /// outcome an action gives is fixed by its case (see `PolicyEngine.apply`), so a caller names the
    /// kind its action gives, and any other is a fault of the engine's, not of the request.
    public func expecting<Part: Sendable>(_ part: KeyPath<ActionOutcome, Part?>) -> Performed<Part> {
        guard let value = result[keyPath: part] else {
            preconditionFailure("\(result) answered an action of another kind")
        }
        return Performed<Part>(result: value, view: view)
    }
}

/// What the control API needs from the daemon: commands to each person's policy and views of it,
/// the household's people, devices and backends, and the event log.
public protocol PolicyAccess: Sendable {
    /// How much faster than real time policy time runs (`--time-scale`).
    var timeScale: Double { get }

    /// The household's people, the default person first.
    func peopleNames() -> [String]

    /// The person whose device `caller` is, if any but the default person.
    func person(ofCaller caller: SocketAddress) -> String?

    /// Takes `step` on `person`'s policy at the current policy time and saves what it changed
    /// (also when it is refused, as a refusal may count, like a wrong sentence) before returning
    /// its result and the person's policy just after. Actions go through `perform(_:_:for:)`; a
    /// step of its own is for what the daemon does on a person's behalf (a PIN entry checked, a
    /// device handed over).
    func perform<Result: Sendable>(
        for person: String, _ step: (inout PolicyEngine, Instant) throws(PolicyRefusal) -> Result
    ) throws(ControlFailure) -> Performed<Result>

    /// `person`'s policy (one `person(named:caller:)` or `peopleNames()` gave) at the current policy
    /// time.
    func view(of person: String) -> PolicyView

    /// Logged events of `person` (everyone's when nil) at or after `since`, oldest first, at most
    /// the `limit` newest.
    func events(since: Instant, limit: Int, person: String?) throws(ControlFailure) -> [LoggedEvent]

    /// The backends lockr drives and how each is doing.
    func backends() -> [Components.Schemas.BackendBody]

    /// What lockr took from resolvers' dnstap, when `[dnstap]` is configured.
    func dnstap() -> Components.Schemas.DnstapBody?

    /// A warning when policy time and the wall clock disagree by more than a minute, else nil.
    func clockDrift() -> String?

    /// Each app's group ("social", "video", ...), by id.
    func appGroups() -> [String: String]

    /// The devices that asked lately, everyone's.
    func devices() -> [Components.Schemas.DeviceBody]

    /// Logged queries that match `request`, newest last.
    func queries(_ request: QueryLogRequest) throws(ControlFailure) -> Components.Schemas.QueriesResponse

    /// `person`'s day records from `first` to `last` (day keys), oldest first, today's as it stands.
    func days(of person: String, from first: String, to last: String) throws(ControlFailure) -> [DayRecord]

    /// What lockr would answer now for `name` (`type`, a mnemonic) asked by `person`'s device, or
    /// by the device at `client` when given, and why; asks no upstream and changes nothing.
    /// Bad input throws an `ErrorBody` (400).
    func explain(name: String, type: String, person: String, client: String?) throws -> Components.Schemas.ExplainBody

    /// The lists given by URL and how their fetches go.
    func lists() async -> Components.Schemas.ListsResponse

    /// Fetches the list `name` (as `lists()` names it, or its URL), or every list when nil, now;
    /// answers once done. An unknown name is refused (404).
    func updateLists(named name: String?) async throws(ControlFailure) -> Components.Schemas.ListsResponse

    /// The home's own names: the config file's and those added while lockr runs.
    func localRecords() -> Components.Schemas.LocalRecordsResponse

    /// Adds `record` (or gives it `comment` instead), or removes it with `remove`, at once; the
    /// caller has checked the PIN. Bad or conflicting records are refused, and nothing changes.
    func changeLocalRecords(
        _ record: String, comment: String, remove: Bool
    ) throws(ControlFailure) -> Components.Schemas.LocalRecordsResponse

    /// The daemon's own checks for `lockr doctor` (each upstream asked, so it may take seconds).
    func doctor() async -> Components.Schemas.DoctorResponse

    /// Every metric, in Prometheus's text format.
    func metricsText() async -> String

    /// Everyone's live events as they happen.
    var liveEvents: LiveEventHub { get }

    /// Everyone's run-time settings, the default person first.
    func configuration() -> Components.Schemas.ConfigurationDocument

    /// Asks for `document`'s settings for everyone it names, all or nothing: checks every person's
    /// first (a problem throws an `ErrorBody` naming its place; a loosening change without the PIN
    /// throws `pinRequired`), then applies them together, unless `checkOnly`.
    func importConfiguration(
        _ document: Components.Schemas.ConfigurationDocument, pin: PinCheck, checkOnly: Bool
    ) throws
        -> Components.Schemas.ConfigurationImportResponse

    /// The query log summed up for the dashboard (see `QuerySummaryBody`).
    func querySummary() throws(ControlFailure) -> Components.Schemas.QuerySummaryBody

    /// Queries of `person` answered per outcome in `day` (the query log's hourly counts; empty
    /// when the log is off).
    func queryCounts(of person: String, in day: PolicyDay) -> [String: Int]

    /// Makes `device` (a MAC or IP address) `person`'s from its next query on, kept across
    /// restarts; the default person takes it back from whoever it was assigned to. A move that
    /// would loosen the device's protection (the person it leaves has protection in force that
    /// `person`'s lacks) is a loosening change of the person it leaves: it passes their gate with
    /// `phrase` and waits as theirs do, and is returned; nil when it moved at once. A device the
    /// config file gives someone stays theirs (`nothingToDo`); what is no MAC or IP address of one
    /// device is refused (`invalidSettings`).
    func assignDevice(_ device: String, to person: String, phrase: String?) throws(ControlFailure) -> PendingChange?
}

extension PolicyAccess {
    /// Carries `action` out on `person`'s policy with `credentials` (see `perform(for:_:)`).
    public func perform(
        _ action: PolicyAction, _ credentials: Credentials = .none, for person: String
    ) throws(ControlFailure) -> Performed<ActionOutcome> {
        try perform(for: person) { engine, now throws(PolicyRefusal) in
            try engine.apply(action, credentials: credentials, at: now)
        }
    }

    /// Whom a call is about: `name` when given; else the person of the caller's device; else the
    /// default person when there is no other.
    public func person(named name: String?, caller: SocketAddress?) throws(ControlFailure) -> String {
        let names = peopleNames()
        if let name {
            guard names.contains(name) else { throw .unknownPerson(name, people: names) }
            return name
        }
        if let caller, let person = person(ofCaller: caller) { return person }
        if names.count == 1 { return names[0] }
        throw .personNeeded(people: names)
    }

    /// Checks the PIN a request carries (`X-Lockr-PIN`, or the admin view's form) against the
    /// household's (kept with the default person): `.verified` when it is right, `.missing` when none
    /// was given while one is set, `.none` when none is set. A wrong one is counted against the
    /// address it came from and the household (see `PinLockouts`) and refused. The slow hash runs
    /// outside the engine's lock.
    public func verifyPIN(_ entry: PinEntry) throws(ControlFailure) -> PinCheck {
        let keeper = People.defaultName
        guard let record = view(of: keeper).policy.pin else { return .none }
        guard let presented = entry.presented else { return .missing }
        _ = try perform(for: keeper) { engine, now throws(PolicyRefusal) in
            try engine.beginPinEntry(by: entry.entrant, at: now)
        }
        let correct = (try? PinHash.matches(presented, record)) ?? false
        _ = try perform(for: keeper) { engine, now throws(PolicyRefusal) in
            let lockout = engine.notePinEntry(correct: correct, by: entry.entrant, at: now)
            guard correct else {
                throw .wrongPin(
                    failures: engine.readout.pin?.lockouts.failures(of: entry.entrant) ?? 0, lockout: lockout)
            }
        }
        return .verified
    }
}

/// A PIN as a request presents it (nil: none), and whom its entry counts against: the address it
/// comes from, so that a device guessing locks out only itself.
public struct PinEntry: Sendable {
    public let presented: String?
    public let entrant: String

    public init(presented: String?, from caller: SocketAddress?) {
        self.presented = presented
        entrant = caller?.ipAddress ?? "unknown"
    }
}
