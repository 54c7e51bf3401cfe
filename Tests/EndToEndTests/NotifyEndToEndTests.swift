import BackendFakes
import DNSTestSupport
import Foundation
import Testing

/// `lockr notify` against the real binary, on a private session bus (`dbus-run-session`) whose
/// notification server is Tests/Scripts/notification_server.py (which starts the session): a window's countdown and its lock
/// arrive as notifications, each replacing the last, the lock with what to do and a suggestion.
@Suite struct NotifyEndToEndTests {
    static let server = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/notification_server.py").path

    /// The notifications the server logged, once there are `count`.
    private func notifications(in log: String, count: Int, seconds: Double = 20) async throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(seconds)
        var shown: [[String: Any]] = []
        while Date() < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            shown = text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            if shown.count >= count { return shown }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw LockrProcess.Failure("\(shown.count) notifications of \(count): \(shown)")
    }

    @Test func aWindowsCountdownAndItsLockReachTheDesktop() async throws {
        let sections = WatchEndToEndTests.hourly + "[notify]\nsuggestions = [\"Water the plants.\"]\n"
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: sections, timeScale: 30) { lockr, _ in
            let log = NSTemporaryDirectory() + "lockr-notify-\(UUID()).jsonl"
            defer { try? FileManager.default.removeItem(atPath: log) }
            let session = Process()
            session.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            session.arguments = [
                "python3", Self.server, log, "--", LockrProcess.binary, "notify", "--state-dir", lockr.stateDirectory,
            ]
            session.standardError = FileHandle.nullDevice
            try session.run()
            // Ctrl-C ends lockr notify; then the server, dbus-run-session and its bus end.
            let notifyCommand = "^\(LockrProcess.binary) notify --state-dir \(lockr.stateDirectory)"
            defer {
                _ = try? run("pkill", ["-INT", "-f", notifyCommand])
                session.waitUntilExit()
            }
            // The server owns its name, then starts lockr notify, which has until the first warning
            // (6 s after the unlock) to follow the events.
            try await Task.sleep(for: .seconds(1))
            #expect(try await lockr.cli("unlock", "tiktok").status == 0)
            let shown = try await notifications(in: log, count: 3)
            #expect(
                shown.map { $0["summary"] as? String } == [
                    "TikTok: 2 minutes left", "TikTok: 1 minute left", "TikTok locked",
                ])
            #expect(shown.allSatisfy { $0["app"] as? String == "lockr" && $0["urgency"] as? Int == 1 })
            // Each replaces the one before it.
            let first = shown[0]["replaces_id"] as? Int
            #expect(first == 0)
            #expect(shown[1]["replaces_id"] as? Int == 1 && shown[2]["replaces_id"] as? Int == 1)
            let lock = shown[2]["body"] as? String ?? ""
            #expect(lock.hasPrefix("Hourly window used, next at 11:00."), "\(lock)")
            #expect(lock.hasSuffix("Meanwhile: Water the plants."), "\(lock)")
            #expect(try await runAwaited("pkill", ["-INT", "-f", notifyCommand]).status == 0)
            session.waitUntilExit()
            #expect(session.terminationStatus == 0, "lockr notify ends cleanly on Ctrl-C")
        }
    }

    @Test func theWebhookPushesTheSameNotificationsAsNtfyTakesThem() async throws {
        let hook = FakeWebhook()
        let hookServer = FakeServer(hook)
        try await hookServer.start()
        let ntfy = FakeNtfy()
        let ntfyServer = FakeServer(ntfy)
        try await ntfyServer.start()
        let upstream = try await ScriptedUpstream(records: PolicyEndToEndTests.records)
        let configPath = NSTemporaryDirectory() + "lockr-e2e-ntfy-\(UUID()).toml"
        defer { try? FileManager.default.removeItem(atPath: configPath) }
        try """
        guard = ["tiktok", "youtube"]
        backends = ["dns", "webhook"]
        [policy]
        mode = "hourly"
        time-zone = "UTC"
        [hourly]
        window-minutes = 5
        [webhook]
        url = "\(hookServer.url)/automation"
        events = "text"
        events-url = "\(ntfyServer.url)/lockr-alerts"
        """.write(toFile: configPath, atomically: true, encoding: .utf8)
        let lockr = try await LockrProcess([
            "--config", configPath, "--upstream", "127.0.0.1:\(upstream.port)", "--time-scale", "30",
            "--start-at", "2026-06-01T10:00:00Z",
        ])
        try await stoppingAfterwards(lockr, upstream) {
            #expect(try await lockr.cli("unlock", "tiktok").status == 0)
            let deadline = Date().addingTimeInterval(30)
            // A push whose answer came after the timeout is sent again (at least once): on a loaded
            // machine the service may see one twice in a row, which it shows once.
            func delivered() -> [FakeNtfy.Message] {
                ntfy.messages.reduce(into: []) { kept, message in
                    if kept.last?.title != message.title { kept.append(message) }
                }
            }
            while delivered().count < 3, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            let messages = delivered()
            #expect(messages.map(\.title) == ["TikTok: 2 minutes left", "TikTok: 1 minute left", "TikTok locked"])
            #expect(messages.allSatisfy { $0.topic == "lockr-alerts" && $0.priority == "default" })
            #expect(messages.map(\.tags) == ["hourglass", "hourglass", "lock"])
            #expect(messages.last?.message.contains("Meanwhile: ") == true)
            // The block set still goes to the webhook's own URL, and no live event does.
            #expect(hook.bodies.contains { $0["event"] as? String == "sync" })
            #expect(!hook.bodies.contains { $0["event"] as? String == "live" })
        }
        await hookServer.stop()
        await ntfyServer.stop()
    }

    @Test func withoutADesktopSessionItSaysSo() throws {
        let notify = Process()
        notify.executableURL = URL(fileURLWithPath: LockrProcess.binary)
        notify.arguments = ["notify"]
        notify.environment = ProcessInfo.processInfo.environment.merging(
            ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"]) { $1 }
        let output = Pipe()
        notify.standardError = output
        try notify.run()
        notify.waitUntilExit()
        #expect(notify.terminationStatus == 1)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(text.contains("cannot reach the desktop session's bus"), "\(text)")
        #expect(text.contains("run lockr notify in a desktop session"))
    }
}
