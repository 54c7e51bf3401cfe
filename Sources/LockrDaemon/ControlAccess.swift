import DNSProxy
import DNSWire
import Foundation
import LockrAPI
import LockrControl
import LockrPolicy
import LockrStore
import NIOCore
import PlainText

/// The control API's way into the household: commands run on the named person's engine and are
/// saved and carried out before they answer; views, the event log, devices and backends are read.
struct ControlAccess: PolicyAccess {
    /// What it reads and runs: the household, policy time, the store, the query log.
    let parts: PolicyParts

    func doctor() async -> Components.Schemas.DoctorResponse {
        await parts.doctor.examine(devices: devices(), clockDrift: clockDrift(), lists: await parts.lists.checks())
    }

    func lists() async -> Components.Schemas.ListsResponse { await parts.lists.lists() }

    func updateLists(named name: String?) async throws(ControlFailure) -> Components.Schemas.ListsResponse {
        try await parts.lists.update(named: name)
    }

    func localRecords() -> Components.Schemas.LocalRecordsResponse { parts.homeRecords.response() }

    func changeLocalRecords(
        _ record: String, comment: String, remove: Bool
    ) throws(ControlFailure) -> Components.Schemas.LocalRecordsResponse {
        try parts.homeRecords.change(record, comment: comment, remove: remove)
    }

    func metricsText() async -> String { await parts.metrics.scrape() }

    var timeScale: Double { parts.clock.scale }

    var liveEvents: LiveEventHub { parts.liveEvents }

    func peopleNames() -> [String] { parts.household.peopleNames() }

    func person(ofCaller caller: SocketAddress) -> String? {
        guard let address = IPAddressBytes.number(of: caller) else { return nil }
        let number = parts.household.deviceDirectory().person(ofAddress: address)
        return number == 0 ? nil : parts.household.policy(number: number).name
    }

    func perform<Result: Sendable>(
        for name: String, _ step: (inout PolicyEngine, Instant) throws(PolicyRefusal) -> Result
    ) throws(ControlFailure) -> Performed<Result> {
        guard let person = parts.household.policy(of: name) else {
            throw .unknownPerson(name, people: parts.household.peopleNames())
        }
        let now = parts.clock.now()
        // Stored before it is made (a refusal too: it may count an attempt): on a full disk
        // nothing changes, and the caller hears why.
        let (outcome, after): (Swift.Result<Result, PolicyRefusal>, [PolicyEngine])
        do {
            (outcome, after) = try parts.propagation.saver.commit([person], in: parts.household, at: now) { engines in
                do throws(PolicyRefusal) { return .success(try step(&engines[0], now)) } catch {
                    return .failure(error)
                }
            }
        } catch { throw .storage("cannot store the change, so nothing changed: \(error)") }
        // Stored: what is left is carrying it out (names, the DNS pipeline, the backends).
        try? parts.propagation.propagate(savingAll: false)
        switch outcome {
        case .success(let result):
            return Performed(result: result, view: PolicyView(policy: after[0].readout, now: now))
        case .failure(let refusal): throw .refused(refusal)
        }
    }

    func view(of name: String) -> PolicyView {
        let now = parts.clock.now()
        return PolicyView(
            policy: (parts.household.policy(of: name) ?? parts.household.policy(number: 0)).read { $0 }, now: now)
    }

    func events(since: Instant, limit: Int, person: String?) throws(ControlFailure) -> [LoggedEvent] {
        do { return try parts.store.events(since: since, limit: limit, person: person) } catch {
            throw .storage("\(error)")
        }
    }

    func appGroups() -> [String: String] { parts.household.policy(number: 0).naming.groups }

    func backends() -> [Components.Schemas.BackendBody] {
        guard let publisher = parts.propagation.publisher else { return [] }
        let now = Date()
        return publisher.hub.health().map { health in
            Components.Schemas.BackendBody(
                name: health.name, state: health.state.rawValue, pending: health.pending,
                lagSeconds: health.oldestPending.map { Int64(max(0, now.timeIntervalSince($0))) } ?? 0,
                lastSuccess: health.lastSuccess.map { $0.formatted(.iso8601) },
                lastError: health.lastError,
                retryInSeconds: health.state == .failing
                    ? health.nextRetry.map { Int64(max(0, $0.timeIntervalSince(now)).rounded(.up)) } : nil,
                repairs: health.repairs, notes: health.notes, notEnforcing: health.notEnforcing,
                metering: health.metering,
                logError: health.logError)
        }
    }

    func dnstap() -> Components.Schemas.DnstapBody? { parts.dnstap?.body() }

    func clockDrift() -> String? {
        let drift = parts.clock.drift()
        guard abs(drift.milliseconds) > 60_000 else { return nil }
        let size = drift < .zero ? .zero - drift : drift
        let view = view(of: People.defaultName)
        let now = view.calendar.dateTimeText(view.now)
        if drift > .zero {
            return "policy time (\(now)) is \(size.spoken) ahead of this machine's clock: a --time-scale or "
                + "--start-at run on this state directory left it there, or the clock was set back; lockr never "
                + "moves policy time back (that could grant spent budget again), so days and hours run early "
                + "until the clock catches up. Start afresh with a new --state-dir to drop it."
        }
        return "policy time (\(now)) is \(size.spoken) behind this machine's clock: the clock jumped forward "
            + "while lockr ran (see `lockr log`); a restart takes the clock's time up"
    }

    func assignDevice(_ device: String, to name: String, phrase: String?) throws(ControlFailure) -> PendingChange? {
        guard let spec = DeviceSpec(device.trimmed), spec.isOneDevice else {
            throw .refused(.invalidSettings("'\(device)' is no MAC or IP address of one device"))
        }
        guard let target = parts.household.policy(of: name) else {
            throw .unknownPerson(name, people: parts.household.peopleNames())
        }
        if let owner = parts.household.configuredOwner(of: spec) {
            throw .refused(.nothingToDo("\(spec.clientName) is \(owner)'s in the config file: change it there"))
        }
        let key = spec.clientName
        let owner =
            parts.household.everyone.first { $0.read { $0.state.claimedDevices.contains(key) } }?.name
            ?? People.defaultName
        let theirs = target.read { $0.enforcement(at: parts.clock.now()) }
        let moving = try perform(for: owner) { engine, now throws(PolicyRefusal) in
            try engine.handOverDevice(
                key, from: owner, to: name, theirs: theirs, phrase: phrase, pin: .verified, at: now)
        }
        if let pending = moving.result { return pending }
        guard owner != name else { return nil }
        if name != People.defaultName {
            _ = try perform(for: name) { engine, now throws(PolicyRefusal) in engine.claimDevice(key, at: now) }
        }
        parts.household.devicesChanged()
        return nil
    }

    func devices() -> [Components.Schemas.DeviceBody] {
        let now = parts.clock.now()
        let bodies = parts.watch.bodies(after: parts.household.protectionOffAfter, scale: parts.clock.scale, now: now) {
            number in
            let person = parts.household.policy(number: number)
            return (person.name, person.read { $0.settings.calendar })
        }
        // A person's device that no one claimed at run time is theirs by the config file.
        let claimed = Set(parts.household.everyone.flatMap { $0.read { $0.state.claimedDevices } })
        return bodies.map { device in
            var device = device
            device.fromConfig =
                device.person != People.defaultName && !claimed.contains(device.mac ?? "")
                && !claimed.contains(device.address)
            return device
        }
    }

    func queries(_ request: QueryLogRequest) throws(ControlFailure) -> Components.Schemas.QueriesResponse {
        guard let queryLog = parts.queryLog else {
            return Components.Schemas.QueriesResponse(
                enabled: false, retentionDays: 0, dropped: 0, people: peopleNames(), entries: [])
        }
        let since = request.sinceSeconds.map { PolicyClock.wallMilliseconds() - $0 * 1000 }
        let rows: [QueryLogRow]
        do {
            rows = try queryLog.store.rows(
                QueryLogFilter(
                    person: request.person, client: request.client, blockedOnly: request.blockedOnly, since: since,
                    afterID: request.afterID, limit: request.limit))
        } catch {
            throw .storage("\(error)")
        }
        return Components.Schemas.QueriesResponse(
            enabled: true, retentionDays: Double(queryLog.retention.milliseconds) / 86_400_000,
            dropped: queryLog.journal.dropped, people: peopleNames(),
            // A row of a word this lockr does not know (a newer one wrote it) is left out.
            entries: rows.compactMap { row in
                guard let outcome = AnswerOutcome(rawValue: row.outcome) else { return nil }
                return Components.Schemas.QueryEntryBody(
                    id: row.id, at: Date(timeIntervalSince1970: Double(row.at) / 1000),
                    client: row.client, mac: row.mac, person: row.person, name: row.name, _type: row.type,
                    outcome: outcome, reason: row.reason, app: row.app, upstream: row.upstream,
                    latencyMs: row.latencyMicroseconds.map { Double($0) / 1000 })
            })
    }

    func days(of name: String, from first: String, to last: String) throws(ControlFailure) -> [DayRecord] {
        guard let person = parts.household.policy(of: name) else { throw .unknownPerson(name, people: peopleNames()) }
        let today = person.read { $0.snapshot(at: parts.clock.now()).today }
        var days: [DayRecord]
        do { days = try parts.store.days(person: name, from: first, to: last) } catch { throw .storage("\(error)") }
        days.removeAll { $0.day.key == today.day.key }
        if first <= today.day.key, today.day.key <= last { days.append(today) }
        return days
    }

    func querySummary() throws(ControlFailure) -> Components.Schemas.QuerySummaryBody {
        guard let queryLog = parts.queryLog else { return QuerySummary.off }
        let calendar = parts.household.policy(number: 0).read { $0.settings.calendar }
        do {
            return try QuerySummary.body(
                queryLog.store, now: PolicyClock.wallMilliseconds(), today: calendar.day(containing: parts.clock.now()),
                calendar: calendar, wall: parts.clock.wallMilliseconds(at:))
        } catch {
            throw .storage("\(error)")
        }
    }

    func queryCounts(of person: String, in day: PolicyDay) -> [String: Int] {
        guard let queryLog = parts.queryLog else { return [:] }
        return
            (try? queryLog.store.counts(
                person: person, from: parts.clock.wallMilliseconds(at: day.start),
                to: parts.clock.wallMilliseconds(at: day.end)))
            ?? [:]
    }

    func explain(name: String, type: String, person: String, client: String?) throws -> Components.Schemas.ExplainBody {
        guard let number = RecordType.number(type) else {
            throw Components.Schemas.ErrorBody(
                error: "'\(type)' is not a record type (A, AAAA, HTTPS, MX, TYPE65, ...)", code: .badRequest)
        }
        guard let query = DNSQuery.asking(name, type: number) else {
            throw Components.Schemas.ErrorBody(error: "'\(name)' is not a domain name", code: .badRequest)
        }
        var asker = QueryClient(address: 0, person: parts.household.policy(of: person)?.number ?? 0)
        var name = person
        if let client {
            guard let bytes = IPAddressBytes.parse(client) else {
                throw Components.Schemas.ErrorBody(error: "'\(client)' is not an IP address", code: .badRequest)
            }
            let address = IPAddressBytes.number(bytes)
            let number = parts.household.deviceDirectory().person(ofAddress: address)
            asker = QueryClient(address: address, person: number)
            name = parts.household.policy(number: number).name
        }
        return try parts.explainer.explain(query, client: asker, person: name, clientText: client, view: view(of: name))
    }
}
