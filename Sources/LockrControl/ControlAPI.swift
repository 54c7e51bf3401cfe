import Foundation
import LockrAPI
import LockrPolicy
import LockrSpeech
import NIOCore
import OpenAPIRuntime

/// The control API's operations as docs/openapi.yaml describes them (`APIProtocol`, generated),
/// answered from the policy. The generated server reads each request into its operation's input and
/// writes the output; a failure thrown here (`ControlFailure`, an `ErrorBody`, an `HTTPFailure`)
/// is answered as `ErrorBody` JSON by `ControlRequestMiddleware`.
struct ControlAPI<Policy: PolicyAccess>: APIProtocol {
    let policy: Policy
    /// Hears spoken sentences (nil: `gate/voice` answers 503).
    let speech: SpeechPool?

    /// How far back `log?since=` and `queries?since=` may reach: ten years, in seconds.
    static var longestLogSpan: Int { 10 * 366 * 86_400 }
    /// The longest range `GET stats` gives at once, in days.
    static var longestStatsRange: Int { 366 }

    /// The person a call is about: `named` (`?person=`), else the caller's.
    func person(_ named: String?) throws(ControlFailure) -> String {
        try policy.person(named: named, caller: ControlCaller.address)
    }

    /// The person `named`, or everyone when none is named.
    func people(_ named: String?) throws(ControlFailure) -> [String] {
        guard let named else { return policy.peopleNames() }
        return [try policy.person(named: named, caller: nil)]
    }

    /// The settings PIN the call presents (`X-Lockr-PIN`), checked against the household's.
    func pin(_ presented: String?) throws(ControlFailure) -> PinCheck {
        try policy.verifyPIN(PinEntry(presented: presented, from: ControlCaller.address))
    }

    /// A query parameter that must be a whole number from 0 to `limit`.
    func checked(_ value: Int?, _ name: String, upTo limit: Int) throws -> Int? {
        guard let value else { return nil }
        guard (0...limit).contains(value) else {
            throw Components.Schemas.ErrorBody(
                error: "'\(name)' must be a whole number from 0 to \(limit)", code: .badRequest)
        }
        return value
    }

    func getStatus(_ input: Operations.GetStatus.Input) async throws -> Operations.GetStatus.Output {
        let devices = policy.devices()
        let people = try people(input.query.person).map { person in
            Components.Schemas.StatusBody(
                person: person, view: policy.view(of: person), devices: devices.filter { $0.person == person })
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        people: people, backends: policy.backends(), clockWarning: policy.clockDrift(),
                        dnstap: policy.dnstap()))))
    }

    func getApps(_ input: Operations.GetApps.Input) async throws -> Operations.GetApps.Output {
        let groups = policy.appGroups()
        let person = policy.view(of: try person(input.query.person)).policy
        let apps = person.apps.sorted { $0.key < $1.key }.map { id, name in
            Components.Schemas.CatalogueAppBody(
                id: id, name: name, group: groups[id] ?? "custom", guarded: person.guarded.contains(id))
        }
        return .ok(.init(body: .json(.init(apps: apps))))
    }

    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        let person = try input.query.person.map { name throws(ControlFailure) in
            try policy.person(named: name, caller: nil)
        }
        return .ok(.init(body: .json(.init(devices: policy.devices().filter { person == nil || $0.person == person }))))
    }

    func getLog(_ input: Operations.GetLog.Input) async throws -> Operations.GetLog.Output {
        let since = try checked(input.query.since, "since", upTo: Self.longestLogSpan) ?? 86_400
        let limit = try checked(input.query.limit, "limit", upTo: 10_000) ?? 1000
        let person = try input.query.person.map { name throws(ControlFailure) in
            try policy.person(named: name, caller: nil)
        }
        let view = policy.view(of: person ?? People.defaultName)
        let events = try policy.events(since: view.now - .seconds(since), limit: limit, person: person)
        return .ok(.init(body: .json(.init(events: events.map { .init($0, calendar: view.calendar) }))))
    }

    func getQueries(_ input: Operations.GetQueries.Input) async throws -> Operations.GetQueries.Output {
        let query = input.query
        let request = QueryLogRequest(
            person: try query.person.map { name throws(ControlFailure) in try policy.person(named: name, caller: nil) },
            client: query.client, blockedOnly: query.blocked == ._true,
            sinceSeconds: try checked(query.since, "since", upTo: Self.longestLogSpan).map(Int64.init),
            afterID: try checked(query.after, "after", upTo: .max).map(Int64.init),
            limit: try checked(query.limit, "limit", upTo: 10_000) ?? 100)
        return .ok(.init(body: .json(try policy.queries(request))))
    }

    func getQuerySummary(_ input: Operations.GetQuerySummary.Input) async throws -> Operations.GetQuerySummary.Output {
        .ok(.init(body: .json(try policy.querySummary())))
    }

    func doctor(_ input: Operations.Doctor.Input) async throws -> Operations.Doctor.Output {
        .ok(.init(body: .json(await policy.doctor())))
    }

    func lists(_ input: Operations.Lists.Input) async throws -> Operations.Lists.Output {
        .ok(.init(body: .json(await policy.lists())))
    }

    func updateLists(_ input: Operations.UpdateLists.Input) async throws -> Operations.UpdateLists.Output {
        var name: String?
        if case .json(let body) = input.body { name = body.name }
        return .ok(.init(body: .json(try await policy.updateLists(named: name))))
    }

    func getLocalRecords(_ input: Operations.GetLocalRecords.Input) async throws -> Operations.GetLocalRecords.Output {
        .ok(.init(body: .json(policy.localRecords())))
    }

    func changeLocalRecords(
        _ input: Operations.ChangeLocalRecords.Input
    ) async throws -> Operations.ChangeLocalRecords.Output {
        guard case .json(let body) = input.body else { preconditionFailure("one content type") }
        let (record, comment) = try ControlRouter.localRecordChange(body)
        if try pin(input.headers.xLockrPIN) == .missing { throw ControlFailure.refused(.pinRequired) }
        return .ok(
            .init(body: .json(try policy.changeLocalRecords(record, comment: comment, remove: body.change == .remove))))
    }

    func followEvents(_ input: Operations.FollowEvents.Input) async throws -> Operations.FollowEvents.Output {
        let person = try input.query.person.map { name throws(ControlFailure) in
            try policy.person(named: name, caller: nil)
        }
        let events = try LiveEventStream.events(
            of: person, after: input.headers.lastEventID, from: ControlCaller.address,
            until: ControlCaller.connectionClosed, policy: policy)
        return .ok(
            .init(
                headers: .init(cacheControl: "no-cache"),
                body: .textEventStream(
                    HTTPBody(events.asEncodedServerSentEvents(), length: .unknown, iterationBehavior: .single))))
    }

    func metrics(_ input: Operations.Metrics.Input) async throws -> Operations.Metrics.Output {
        // Prometheus's text format, version 0.0.4, as its content type says.
        .ok(.init(body: .textPlainCharsetUtf8Version_0_0_4(.init(await policy.metricsText()))))
    }
}

/// Who is calling: the address of the request being answered and when its connection closes, for
/// the operations' task (the generated handlers see only the request's HTTP parts). Set by
/// `ControlRequestMiddleware`.
enum ControlCaller {
    @TaskLocal static var address: SocketAddress?
    @TaskLocal static var connectionClosed: EventLoopFuture<Void>?
}

extension Components.RequestBodies.OptionalPhrase {
    /// The sentence typed, if any.
    var phrase: String? {
        switch self {
        case .json(let body): body.phrase
        }
    }
}
