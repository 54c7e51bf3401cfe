import DNSTestSupport
import Foundation
import Testing

/// The files in deploy/ as their tools read them: the systemd unit verified and its hardening
/// scored by systemd-analyze (offline: systemd is not PID 1 here).
@Suite struct DeployEndToEndTests {
    static let deploy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy").path

    /// The unit with its ExecStart pointing at the lockr this run built (verify wants the binary).
    func unitHere() throws -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "lockr-unit-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = try String(contentsOfFile: Self.deploy + "/systemd/lockr.service", encoding: .utf8)
            .replacingOccurrences(of: "/usr/local/bin/lockr", with: LockrProcess.binary)
        let path = directory + "/lockr.service"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return (directory, path)
    }

    @Test func theUnitVerifiesAndItsHardeningScoresOK() throws {
        let unit = try unitHere()
        defer { try? FileManager.default.removeItem(atPath: unit.directory) }
        let verified = try run("systemd-analyze", ["verify", unit.path])
        #expect(verified.status == 0 && verified.output.isEmpty, "systemd-analyze verify: \(verified.output)")
        let scored = try run("systemd-analyze", ["security", "--offline=true", unit.path])
        let line = try #require(scored.output.split(separator: "\n").last { $0.contains("Overall exposure level") })
        let score = try #require(line.firstMatch(of: /level for lockr\.service: (\d+\.\d+) (\w+)/))
        #expect(Double(score.1)! <= 2.0 && score.2 == "OK", "exposure: \(line)")
        let text = try String(contentsOfFile: Self.deploy + "/systemd/lockr.service", encoding: .utf8)
        for setting in ["Type=notify", "WatchdogSec=", "StateDirectory=lockr", "AmbientCapabilities=CAP_NET_BIND_SERVICE",
            "After=network-online.target time-sync.target", "ProtectSystem=strict", "NoNewPrivileges=yes",
            "SystemCallFilter=@system-service", "RestrictAddressFamilies=", "Restart=on-failure"]
        {
            #expect(text.contains(setting), "\(setting)")
        }
    }
}
