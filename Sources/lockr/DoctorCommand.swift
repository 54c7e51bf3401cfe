import ArgumentParser
import DNSProxy
import Foundation
import LockrAPI
import LockrControl
import NIOCore
import NIOPosix

struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check that lockr runs and really protects this machine: one line per check, with the fix.",
        discussion: """
            Checks that the daemon answers and its DNS ports are bound and answer; that this machine's resolver \
            really goes through lockr (a probe name only lockr answers, asked through the system resolver); that \
            each upstream answers; that the clock is synchronised; that the state database passes SQLite's quick \
            check; that each person's devices asked lately; that backends are in sync; that each list given by URL \
            was fetched within a week. Exits 1 when a check fails.
            """
    )

    @OptionGroup var options: ClientOptions

    func run() async throws {
        var checks: [Components.Schemas.DoctorCheckBody] = []
        let answer: Components.Schemas.DoctorResponse
        do {
            answer = try await options.send { try await $0.doctor().ok.body.json }
            checks.append(Components.Schemas.DoctorCheckBody(name: "daemon", ok: true, detail: "answers", fix: nil))
        } catch {
            checks.append(
                Components.Schemas.DoctorCheckBody(
                    name: "daemon", ok: false, detail: "\(error)",
                    fix: "start it: lockr serve (or systemctl start lockr), with the state directory the CLI looks in"))
            report(checks)
        }
        let group = MultiThreadedEventLoopGroup.singleton
        for text in answer.dnsAddresses {
            let name = "DNS on \(text)"
            guard let address = Self.socketAddress(text) else { continue }
            if let problem = await DNSProbe.lockrProblem(at: address, group: group) {
                checks.append(
                    Components.Schemas.DoctorCheckBody(
                        name: name, ok: false, detail: problem, fix: "see lockr's log; is the port firewalled?"))
            } else {
                checks.append(Components.Schemas.DoctorCheckBody(name: name, ok: true, detail: "answers", fix: nil))
            }
        }
        if answer.dnsServed { checks.append(Self.systemResolverCheck()) }
        checks += answer.checks
        report(checks)
    }

    /// Prints one line per check (with its fix when it failed), or the checks as JSON; exits 1 when
    /// any failed.
    private func report(_ checks: [Components.Schemas.DoctorCheckBody]) -> Never {
        if options.json {
            print(ClientOptions.prettyJSON(checks))
        } else {
            for check in checks {
                print("\(check.ok ? "ok  " : "FAIL") \(check.name): \(check.detail)")
                if !check.ok, let fix = check.fix { print("     fix: \(fix)") }
            }
            if checks.contains(where: { !$0.ok }) && checks.count == 1 {
                print("     (the other checks need the daemon)")
            }
        }
        Foundation.exit(checks.allSatisfy(\.ok) ? 0 : 1)
    }

    /// Asks the system resolver (getaddrinfo, as every program does) for a name only lockr answers.
    private static func systemResolverCheck() -> Components.Schemas.DoctorCheckBody {
        let name = "p\(UInt64.random(in: 0 ... .max)).\(LocalAnswers.probeDomain)"
        var hints = addrinfo()
        hints.ai_family = AF_INET
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &result)
        defer { if let result { freeaddrinfo(result) } }
        let fix = "point this machine's resolver at lockr (docs/setup.md), or its router's DNS at lockr"
        guard status == 0, let first = result, let address = first.pointee.ai_addr else {
            let reason = String(cString: gai_strerror(status))
            return Components.Schemas.DoctorCheckBody(
                name: "system resolver", ok: false,
                detail: "does not go through lockr: \(LocalAnswers.probeDomain) was not answered (\(reason))", fix: fix)
        }
        let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
            withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) }
        }
        guard bytes == LocalAnswers.probeAddress else {
            return Components.Schemas.DoctorCheckBody(
                name: "system resolver", ok: false,
                detail:
                    "does not go through lockr: another resolver answered \(bytes.map(String.init).joined(separator: "."))",
                fix: fix)
        }
        return Components.Schemas.DoctorCheckBody(
            name: "system resolver", ok: true, detail: "goes through lockr", fix: nil)
    }

    /// "127.0.0.1:5335" or "[::1]:5335".
    static func socketAddress(_ text: String) -> SocketAddress? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else { return nil }
        let host = text[..<colon].trimming(while: { $0 == "[" || $0 == "]" })
        return try? SocketAddress(ipAddress: host, port: port)
    }
}
