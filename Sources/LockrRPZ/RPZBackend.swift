import DNSProxy
import DNSWire
import Foundation
import LockrAdapters
import LockrStore
import Logging
import NIOCore

/// lockr as the primary of a Response Policy Zone per person (`alice.rpz.lockr.`, and
/// `default.rpz.lockr.` for every device no person claims): each snapshot becomes the zones'
/// records; a zone whose records changed gets the next serial (kept in the state database, so it
/// rises across restarts) and a NOTIFY to every secondary, which then transfers it. Listening starts
/// with the first snapshot; a port it cannot take is reported, and tried again, as an unreachable
/// backend is. With `zone-files`, each zone is also written there as a file (Knot Resolver).
public actor RPZBackend: Backend {
    public nonisolated let name: String
    private let settings: RPZSettings
    private let endpoints: Result<RPZEndpoints, RPZAddressProblems>
    private let action: RPZAction
    private let memory: OutboxStore?
    private let group: any EventLoopGroup
    private let logger: Logger
    private let zones = ServedZones()
    private let files: ZoneFiles?
    private var serving: (server: ZoneServer, notifier: NotifySender)?

    public init(
        name: String, settings: RPZSettings, action: RPZAction, memory: OutboxStore?, group: any EventLoopGroup,
        logger: Logger
    ) {
        self.logger = logger
        self.name = name
        self.settings = settings
        endpoints = Result { () throws(RPZAddressProblems) in try RPZEndpoints(settings) }
        self.action = action
        self.memory = memory
        self.group = group
        files = settings.zoneFiles.map { ZoneFiles(directory: $0, zoneSuffix: settings.zoneSuffix) }
    }

    /// The zone of `person` ("default" for every device no person claims), in wire form.
    private func origin(of person: String) -> [UInt8]? {
        WireName.wire(fromPresentation: "\(person).\(settings.zoneSuffix)")
    }

    public func reconcile(_ snapshot: BlockSnapshot) async throws(BackendError) -> SyncReport {
        let notifier = try await start()
        var report = SyncReport()
        var origins: Set<[UInt8]> = []
        for (person, apps) in [("default", snapshot.apps)] + snapshot.people.map({ ($0.person, $0.apps) }) {
            guard let origin = origin(of: person) else { continue }
            origins.insert(origin)
            let content = PolicyZoneContent(origin: origin, apps: apps, action: action, ttl: UInt32(settings.ttl))
            for (app, count) in content.leftOut.sorted(by: { $0.key < $1.key }) {
                report.notes.append(
                    "\(person): \(count) rule(s) of \(app) cannot be said in RPZ (regular expressions, or names too long)"
                )
            }
            if zones.zone(origin)?.records == content.records { continue }
            let zone = ServedZone(
                origin: origin, soa: try startOfAuthority(origin), soaTTL: UInt32(settings.ttl),
                records: content.records)
            if let files {
                do throws(ZoneFileError) { try files.write(zone) } catch { throw .failed(error.description) }
            }
            zones.serve(zone)
            notifier?.notify(zone)
            report.writes += 1
        }
        zones.keepOnly(origins)
        files?.removeAllBut(origins)
        for standing in notifier?.standings ?? [] where standing.unanswered {
            report.notes.append(
                "secondary \(AddressText.format(standing.secondary)) did not answer the NOTIFY of \(standing.zone) serial \(standing.serial)"
            )
        }
        return report
    }

    public func close() async throws(BackendError) {
        guard let serving else { return }
        await serving.server.stop()
        await serving.notifier.stop()
        self.serving = nil
    }

    /// Listens and opens the NOTIFY socket, once; nil when lockr only writes zone files.
    private func start() async throws(BackendError) -> NotifySender? {
        if let serving { return serving.notifier }
        let endpoints: RPZEndpoints
        switch self.endpoints {
        case .success(let read): endpoints = read
        case .failure(let wrong):
            throw .misconfigured(wrong.problems.map { "\($0.key): \($0.text)" }.joined(separator: "; "))
        }
        guard !endpoints.listen.isEmpty else { return nil }
        let signing = try zoneSigning()
        let server: ZoneServer
        do {
            server = try await ZoneServer.start(
                on: endpoints.listen, zones: zones, access: endpoints.access, signing: signing, group: group,
                logger: logger)
        } catch {
            throw .unreachable(
                "cannot listen on \(settings.listen.joined(separator: ", ")): \(ListenError.reason(error))")
        }
        do {
            let notifier = try await NotifySender.start(secondaries: endpoints.secondaries, group: group)
            serving = (server, notifier)
            return notifier
        } catch {
            await server.stop()
            throw .unreachable("cannot open a socket to notify the secondaries: \(ListenError.reason(error))")
        }
    }

    /// The TSIG key, its secret read now, and whether unsigned requests are refused.
    private func zoneSigning() throws(BackendError) -> ZoneSigning {
        guard let name = settings.tsigKey, let source = settings.tsigSecret else { return .none }
        guard let key = TSIGKey(name: name, secret: try source.read()) else {
            throw .misconfigured("the TSIG secret in \(source) is not base64 of 16 bytes or more")
        }
        return ZoneSigning(key: key, required: settings.tsigRequired)
    }

    /// The SOA of `origin`'s next version: the serial after the last one used, or the time now
    /// for a zone never served.
    private func startOfAuthority(_ origin: [UInt8]) throws(BackendError) -> StartOfAuthority {
        let key = "serial " + WireName.presentation(of: origin)
        do {
            let last = try memory?.value(key, for: name).flatMap { UInt32($0) }
            let serial = last.map { $0 &+ 1 } ?? UInt32(truncatingIfNeeded: Int(Date().timeIntervalSince1970))
            try memory?.setValue(String(serial), key, for: name)
            return StartOfAuthority(
                primary: PolicyZoneContent.localhost, mailbox: [10] + Array("hostmaster".utf8) + origin, serial: serial,
                refresh: UInt32(settings.refresh), retry: UInt32(settings.retry), expire: UInt32(settings.expire),
                minimum: UInt32(settings.ttl))
        } catch {
            throw .failed("cannot read or keep the serial of \(WireName.presentation(of: origin)): \(error)")
        }
    }

}
