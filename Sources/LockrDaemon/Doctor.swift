import CivilTime
import DNSProxy
import DNSWire
import Foundation
import LockrAPI
import LockrControl
import LockrStore
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's side of `lockr doctor`: each upstream and `[[forward]]` server asked a question of
/// its own, the clock's
/// synchronisation, the state database's quick check, each person's devices, each backend. The
/// CLI adds what only it can see (whether this machine's resolver reaches lockr).
final class Doctor: Sendable {
    private let household: Household
    private let store: PolicyStore
    private let propagation: PolicyPropagation
    private let running = Mutex(Running())
    /// How recently a person's device must have asked for their devices to count as seen.
    static let seenWithin: Duration = .seconds(24 * 3600)

    /// What the daemon serves, as it is now.
    struct Running: Sendable {
        var dnsAddresses: [SocketAddress] = []
        var upstreams: [Upstream] = []
        var unresolvedUpstreams: [UnresolvedUpstream] = []
        var upstreamTLS: UpstreamTLS?
        var forwards: [ForwardRule] = []
        var answersDNS = true
        var installation = Installation()
    }

    /// What an installed lockr needs beside its program, as the daemon found it.
    struct Installation: Sendable {
        /// The app catalogue's directory and its apps; nil when none was found.
        var catalogue: (directory: String, apps: Int)?
        /// Why spoken sentences cannot be heard; nil when the speech model is there.
        var speechProblem: String?
        /// Whether someone's gate asks for the spoken sentence.
        var voiceAsked = false
        /// The time zones the policies keep days and hours in, each once.
        var policyZones: [String] = []
    }

    init(household: Household, store: PolicyStore, propagation: PolicyPropagation) {
        self.household = household
        self.store = store
        self.propagation = propagation
    }

    /// Takes what the daemon serves (at start and on each reload).
    func serve(
        dnsAddresses: [SocketAddress]? = nil, upstreams: [Upstream], unresolvedUpstreams: [UnresolvedUpstream],
        upstreamTLS: UpstreamTLS?, forwards: [ForwardRule], answersDNS: Bool,
        installation: Installation
    ) {
        running.withLock { running in
            if let dnsAddresses { running.dnsAddresses = dnsAddresses }
            running.upstreams = upstreams
            running.unresolvedUpstreams = unresolvedUpstreams
            running.upstreamTLS = upstreamTLS
            running.forwards = forwards
            running.answersDNS = answersDNS
            running.installation = installation
        }
    }

    /// Every check; `clockDrift` is the control API's warning that policy time left the clock.
    func examine(
        devices: [Components.Schemas.DeviceBody], clockDrift: String?, lists: [Components.Schemas.DoctorCheckBody] = []
    ) async -> Components.Schemas.DoctorResponse {
        let running = running.withLock { $0 }
        var checks: [Components.Schemas.DoctorCheckBody] = []
        if running.answersDNS {
            checks += await upstreamChecks(running.upstreams, tls: running.upstreamTLS, forwards: running.forwards)
            checks += running.unresolvedUpstreams.map(Self.leftOutCheck)
        }
        checks += installationChecks(running.installation)
        checks.append(clockCheck(drift: clockDrift))
        checks.append(Self.timeZoneCheck(policyZones: running.installation.policyZones, machine: ZoneDatabase.machineZone))
        checks.append(storeCheck())
        checks += deviceChecks(devices)
        checks += backendChecks()
        checks += lists
        return Components.Schemas.DoctorResponse(
            dnsServed: running.answersDNS, dnsAddresses: running.dnsAddresses.map(AddressText.format), checks: checks)
    }

    /// Each upstream asked the root's NS records, and each `[[forward]]` server its first domain's SOA.
    private func upstreamChecks(
        _ upstreams: [Upstream], tls: UpstreamTLS?, forwards: [ForwardRule]
    ) async -> [Components.Schemas.DoctorCheckBody] {
        guard !upstreams.isEmpty else {
            return [
                Components.Schemas.DoctorCheckBody(
                    name: "upstreams", ok: false, detail: "no upstream to forward to",
                    fix: "set upstreams in the config or pass --upstream")
            ]
        }
        typealias Probe = (name: String, server: Upstream, question: String, type: UInt16, fix: String)
        let probes: [Probe] =
            upstreams.map {
                (
                    "upstream \($0)", $0, "", RecordType.ns,
                    $0.isEncrypted
                        ? "check that it is reachable from here, its certificate (ca-file in [upstream]) and its pin, or set other upstreams"
                        : "check that it is reachable from here, or set other upstreams"
                )
            }
            + forwards.flatMap { rule in
                rule.servers.map {
                    (
                        "forward \(rule.domains[0]) to \(AddressText.format($0))", Upstream.plain($0), rule.domains[0],
                        RecordType.soa,
                        "check that it is reachable from here and serves \(rule.domains[0]), or change its [[forward]] servers"
                    )
                }
            }
        let group = MultiThreadedEventLoopGroup.singleton
        var problems = [String?](repeating: nil, count: probes.count)
        await withTaskGroup(of: (Int, String?).self) { asking in
            for (index, probe) in probes.enumerated() {
                asking.addTask {
                    (
                        index,
                        probe.server.isEncrypted
                            ? await DNSProbe.upstreamProblem(with: probe.server, tls: tls, group: group)
                            : await DNSProbe.upstreamProblem(
                                with: probe.server.address, asking: probe.question, type: probe.type, group: group)
                    )
                }
            }
            for await (index, problem) in asking { problems[index] = problem }
        }
        return zip(probes, problems).map { probe, problem in
            guard let problem else {
                return Components.Schemas.DoctorCheckBody(name: probe.name, ok: true, detail: "answers", fix: nil)
            }
            return Components.Schemas.DoctorCheckBody(name: probe.name, ok: false, detail: problem, fix: probe.fix)
        }
    }

    /// An upstream written by name that lockr could not find, and so does not ask.
    private static func leftOutCheck(_ unresolved: UnresolvedUpstream) -> Components.Schemas.DoctorCheckBody {
        Components.Schemas.DoctorCheckBody(
            name: "upstream \(unresolved.upstream)", ok: false,
            detail: "left out, its address not found: \(unresolved.reason)",
            fix:
                "set [upstream] bootstrap to a server that answers, or write the address (https://ADDR@HOST/PATH, tls://ADDR@NAME); lockr looks it up again on reload"
        )
    }

    /// The app catalogue and the speech model, which an install puts beside the program.
    private func installationChecks(_ installation: Installation) -> [Components.Schemas.DoctorCheckBody] {
        var checks: [Components.Schemas.DoctorCheckBody] = []
        if let catalogue = installation.catalogue {
            checks.append(
                Components.Schemas.DoctorCheckBody(
                    name: "app catalogue", ok: true, detail: "\(catalogue.apps) apps from \(catalogue.directory)",
                    fix: nil))
        } else {
            checks.append(
                Components.Schemas.DoctorCheckBody(
                    name: "app catalogue", ok: false,
                    detail:
                        "none found beside the program, under its prefix, in /usr/local/share/lockr or /usr/share/lockr",
                    fix: "install lockr again (scripts/install or the .deb), or set catalogue = \"DIR\" in the config"))
        }
        if let problem = installation.speechProblem {
            checks.append(
                Components.Schemas.DoctorCheckBody(
                    name: "speech model", ok: !installation.voiceAsked,
                    detail: installation.voiceAsked
                        ? "a gate asks for the spoken sentence, but \(problem)"
                        : "not usable (only the spoken sentence needs it): \(problem)",
                    fix: "apt-get install pocketsphinx-en-us, or set speech-model to its directory"))
        } else {
            checks.append(
                Components.Schemas.DoctorCheckBody(name: "speech model", ok: true, detail: "installed", fix: nil))
        }
        return checks
    }

    /// Whether the kernel takes the clock for synchronised (NTP or another source), which
    /// windows, budgets and schedules rely on; and whether policy time follows it.
    private func clockCheck(drift: String?) -> Components.Schemas.DoctorCheckBody {
        if let drift {
            return Components.Schemas.DoctorCheckBody(
                name: "clock", ok: false, detail: drift, fix: "restart lockr once the clock is right")
        }
        guard let state = Self.kernelClockState(), state != Self.timeError else {
            return Components.Schemas.DoctorCheckBody(
                name: "clock", ok: false, detail: "this machine's clock is not synchronised",
                fix: "run an NTP client (systemd-timesyncd, chrony) so that windows and schedules keep time")
        }
        return Components.Schemas.DoctorCheckBody(name: "clock", ok: true, detail: "synchronised", fix: nil)
    }

    /// The zones days, clock hours and schedules are kept in, and where each came from; a failure
    /// when a policy runs by UTC only because nothing on this machine names its zone (a container, a
    /// minimal image), which moves the day's start and every schedule by hours.
    static func timeZoneCheck(policyZones: [String], machine: MachineZone) -> Components.Schemas.DoctorCheckBody {
        let machineName = machine.rules.identifier
        guard machine.namedBy != nil || !policyZones.contains(machineName) else {
            return Components.Schemas.DoctorCheckBody(
                name: "time zone", ok: false,
                detail: "UTC, as nothing on this machine names its zone ($TZ, /etc/localtime, /etc/timezone, /etc/TZ)",
                fix: "set [policy] time-zone = \"Europe/Berlin\" (yours), or link /etc/localtime to your zone "
                    + "(ln -sf /usr/share/zoneinfo/Europe/Berlin /etc/localtime)")
        }
        let zones = policyZones.map { zone in
            guard zone == machineName, let source = machine.namedBy else { return "\(zone) (the config's)" }
            return "\(zone) (this machine's, from \(source))"
        }
        return Components.Schemas.DoctorCheckBody(
            name: "time zone", ok: true, detail: zones.joined(separator: ", "), fix: nil)
    }

    /// `adjtimex`'s TIME_ERROR: the kernel's clock is not synchronised.
    private static let timeError: Int32 = 5

    /// The kernel's clock state as `adjtimex(2)` reports it with nothing changed, or nil when it
    /// cannot be read. Glibc's module does not bring sys/timex.h, so the call is looked up by name
    /// and given a zeroed buffer larger than `struct timex`, whose first field (`modes` = 0) asks
    /// for nothing to change.
    private static func kernelClockState() -> Int32? {
        typealias AdjustTime = @convention(c) (UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "adjtimex") else { return nil }
        let adjtimex = unsafeBitCast(symbol, to: AdjustTime.self)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 1024)
        let state = adjtimex(buffer)
        return state < 0 ? nil : state
    }

    private func storeCheck() -> Components.Schemas.DoctorCheckBody {
        do throws(StoreError) {
            let problems = try store.integrityProblems()
            guard problems.isEmpty else {
                return Components.Schemas.DoctorCheckBody(
                    name: "state database", ok: false, detail: problems.prefix(3).joined(separator: "; "),
                    fix:
                        "stop lockr, keep a copy of state.sqlite, and restore a backup or remove it (state starts afresh)"
                )
            }
            return Components.Schemas.DoctorCheckBody(
                name: "state database", ok: true, detail: "passes SQLite's quick check", fix: nil)
        } catch {
            return Components.Schemas.DoctorCheckBody(
                name: "state database", ok: false, detail: "\(error)", fix: "check the state directory's disk")
        }
    }

    /// Each person with devices of their own: one of them asked lately, and none turned protection off.
    private func deviceChecks(_ devices: [Components.Schemas.DeviceBody]) -> [Components.Schemas.DoctorCheckBody] {
        let configured = household.clientNames()
        return household.peopleNames().dropFirst().compactMap { person in
            guard let clients = configured[person], !clients.isEmpty else { return nil }
            let theirs = devices.filter { $0.person == person }
            let name = "devices of \(person)"
            if let off = theirs.first(where: { $0.state == .protectionOff }) {
                return Components.Schemas.DoctorCheckBody(
                    name: name, ok: false, detail: "\(off.address) stopped asking lockr while still on the network",
                    fix: "set the device's DNS back to lockr (or the router's), and turn off private DNS or a VPN on it"
                )
            }
            let recent = theirs.filter { $0.lastSeen.inSeconds > -Self.seenWithin.components.seconds }
            guard recent.isEmpty else {
                return Components.Schemas.DoctorCheckBody(
                    name: name, ok: true, detail: "\(recent.count) asked in the last day", fix: nil)
            }
            return Components.Schemas.DoctorCheckBody(
                name: name, ok: false, detail: "none of \(clients.count) asked lockr in the last day",
                fix: "check that the device uses lockr for DNS (the router's DHCP, or the device's own settings)")
        }
    }

    private func backendChecks() -> [Components.Schemas.DoctorCheckBody] {
        guard let hub = propagation.publisher?.hub else { return [] }
        return hub.health().map { health in
            let name = "backend \(health.name)"
            guard health.state != .failing, health.pending == 0 else {
                return Components.Schemas.DoctorCheckBody(
                    name: name, ok: false,
                    detail: "\(health.pending) change(s) waiting" + (health.lastError.map { ": \($0)" } ?? ""),
                    fix: "check its URL and credentials (lockr status shows its state)")
            }
            return Components.Schemas.DoctorCheckBody(name: name, ok: true, detail: "in sync", fix: nil)
        }
    }
}
