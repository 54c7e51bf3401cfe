import CivilTime
import Foundation
import LockrAPI
import NIOCore
import Synchronization

@testable import LockrControl
@testable import LockrPolicy

/// Each person's engine in memory, on a clock the test moves.
public final class MemoryPolicy: PolicyAccess {
    /// By person, the default person first.
    public let engines: Mutex<[(name: String, engine: PolicyEngine)]>
    public let clock: Mutex<Instant>
    public let logged = Mutex<[LoggedEvent]>([])
    public let timeScale = 1.0
    public let liveEvents = LiveEventHub(epoch: "1")

    public func metricsText() async -> String { "lockr_test_metric 1\n" }

    public func doctor() async -> Components.Schemas.DoctorResponse {
        Components.Schemas.DoctorResponse(dnsServed: true, dnsAddresses: [], checks: [])
    }

    public func lists() async -> Components.Schemas.ListsResponse {
        Components.Schemas.ListsResponse(refreshSeconds: 86_400, lists: [])
    }

    public func updateLists(named name: String?) async throws(ControlFailure) -> Components.Schemas.ListsResponse {
        guard let name else { throw .refused(.notFound("no list is given by URL")) }
        throw .refused(.notFound("no list \(name) (`lockr lists` shows them)"))
    }

    public func localRecords() -> Components.Schemas.LocalRecordsResponse {
        Components.Schemas.LocalRecordsResponse(records: [], hostsFiles: [], ttlSeconds: 300)
    }

    public func changeLocalRecords(
        _ record: String, comment: String, remove: Bool
    ) throws(ControlFailure) -> Components.Schemas.LocalRecordsResponse {
        throw .refused(.nothingToDo("this fake answers no DNS"))
    }

    public func configuration() -> Components.Schemas.ConfigurationDocument {
        Components.Schemas.ConfigurationDocument(
            people: engines.withLock { engines in
                engines.map {
                    Components.Schemas.PersonConfiguration(
                        name: $0.name, devices: [], settings: $0.engine.readout.runTimeSettings)
                }
            })
    }

    /// Everyone's import on copies, kept only when all succeed.
    public func importConfiguration(
        _ document: Components.Schemas.ConfigurationDocument, pin: PinCheck, checkOnly: Bool
    ) throws
        -> Components.Schemas.ConfigurationImportResponse
    {
        let now = clock.withLock { $0 }
        return try engines.withLock { engines in
            var copies = engines
            var changes: [Components.Schemas.ConfigurationImportResponse.PeoplePayloadPayload] = []
            for person in document.people {
                guard let index = copies.firstIndex(where: { $0.name == person.name }) else {
                    throw Components.Schemas.ErrorBody(
                        error: "people.\(person.name): no such person", code: .invalidConfiguration)
                }
                let outcome = try copies[index].engine.apply(
                    .importSettings(try person.settings()), credentials: Credentials(pin: pin), at: now
                ).change!
                changes.append(
                    Components.Schemas.ConfigurationImportResponse.PeoplePayloadPayload(
                        person: person.name, outcome: outcome, now: now,
                        calendar: copies[index].engine.settings.calendar))
            }
            if !checkOnly { engines = copies }
            return Components.Schemas.ConfigurationImportResponse(checked: checkOnly, people: changes)
        }
    }
    /// The person whose device calls, as the caller's address would say.
    public let callerPerson = Mutex<String?>(nil)
    /// The callers' addresses asked about.
    public let callers = Mutex<[String]>([])

    public init(mode: Mode, now: Instant, people: [String] = []) {
        let settings = PolicySettings(mode: mode, calendar: DayCalendar(zone: try! ZoneDatabase().zone("UTC")))
        engines = Mutex(
            ([People.defaultName] + people).map { name in
                (
                    name,
                    PolicyEngine(
                        settings: settings, guarded: ["tiktok", "youtube"],
                        apps: ["tiktok": "TikTok", "youtube": "YouTube", "reddit": "Reddit"], state: nil, now: now)
                )
            })
        clock = Mutex(now)
    }

    public var engine: PolicyEngine { engines.withLock { $0[0].engine } }

    public func advance(by duration: Duration) { clock.withLock { $0 = $0 + duration } }

    public func peopleNames() -> [String] { engines.withLock { $0.map(\.name) } }

    public func person(ofCaller caller: SocketAddress) -> String? {
        callers.withLock { $0.append(caller.ipAddress ?? "?") }
        return callerPerson.withLock { $0 }
    }

    public func perform<Result: Sendable>(
        for person: String, _ step: (inout PolicyEngine, Instant) throws(PolicyRefusal) -> Result
    ) throws(ControlFailure) -> Performed<Result> {
        let now = clock.withLock { $0 }
        let (outcome, after) = engines.withLock { engines in
            let index = engines.firstIndex { $0.name == person }!
            defer {
                let events = engines[index].engine.drainEvents().map { LoggedEvent(person: person, event: $0) }
                logged.withLock { $0 += events }
            }
            do throws(PolicyRefusal) {
                return (
                    Swift.Result<Result, PolicyRefusal>.success(try step(&engines[index].engine, now)),
                    engines[index].engine
                )
            } catch {
                return (.failure(error), engines[index].engine)
            }
        }
        switch outcome {
        case .success(let result): return Performed(result: result, view: PolicyView(policy: after.readout, now: now))
        case .failure(let refusal): throw .refused(refusal)
        }
    }

    public func view(of person: String) -> PolicyView {
        let now = clock.withLock { $0 }
        return PolicyView(
            policy: engines.withLock { engines in engines.first { $0.name == person }!.engine.readout }, now: now)
    }

    public func events(since: Instant, limit: Int, person: String?) throws(ControlFailure) -> [LoggedEvent] {
        logged.withLock {
            Array($0.filter { $0.event.at >= since && (person == nil || $0.person == person) }.suffix(limit))
        }
    }

    public let backendList = Mutex<[Components.Schemas.BackendBody]>([])

    public func backends() -> [Components.Schemas.BackendBody] { backendList.withLock { $0 } }

    public func clockDrift() -> String? { nil }

    public let dnstapBody = Mutex<Components.Schemas.DnstapBody?>(nil)

    public func dnstap() -> Components.Schemas.DnstapBody? { dnstapBody.withLock { $0 } }

    public func devices() -> [Components.Schemas.DeviceBody] { [] }
    /// What `queries` was last asked.
    public let queryRequests = Mutex<[QueryLogRequest]>([])
    public func queries(_ request: QueryLogRequest) throws(ControlFailure) -> Components.Schemas.QueriesResponse {
        queryRequests.withLock { $0.append(request) }
        return Components.Schemas.QueriesResponse(
            enabled: true, retentionDays: 7, dropped: 0, people: peopleNames(), entries: [])
    }
    /// Days that ended, as a store would hold them, by person.
    public let closedDays = Mutex<[String: [DayRecord]]>([:])
    public func days(of person: String, from first: String, to last: String) throws(ControlFailure) -> [DayRecord] {
        let view = view(of: person)
        let today = view.policy.snapshot(at: view.now).today
        return (closedDays.withLock { $0[person] ?? [] } + [today]).filter { $0.day.key >= first && $0.day.key <= last }
    }
    public func queryCounts(of person: String, in day: PolicyDay) -> [String: Int] { ["blocked": 2, "cached": 5] }
    /// What `querySummary` answers: set by a test.
    public let summary = Mutex(
        Components.Schemas.QuerySummaryBody(
            enabled: false, hours: [], days: [], people: [], topAsked: [], topBlocked: [], topClients: [], scanned: 0,
            complete: true))
    public func querySummary() throws(ControlFailure) -> Components.Schemas.QuerySummaryBody { summary.withLock { $0 } }
    public func assignDevice(
        _ device: String, to person: String, phrase: String?
    ) throws(ControlFailure) -> PendingChange? {
        if person != People.defaultName {
            _ = try perform(for: person) { engine, now throws(PolicyRefusal) in engine.claimDevice(device, at: now) }
        }
        return nil
    }
    public func explain(
        name: String, type: String, person: String, client: String?
    ) throws -> Components.Schemas.ExplainBody {
        Components.Schemas.ExplainBody(
            name: name, _type: type, person: person, client: client, mode: "hourly", verdict: .allowed,
            answer: "the upstream's answer", reason: "no rule blocks it")
    }
    public func appGroups() -> [String: String] { ["tiktok": "video", "youtube": "video", "reddit": "social"] }
}
