import DNSTestSupport
import Foundation
import Synchronization
import Testing

/// The event stream and `lockr watch` against the real binary, at --time-scale 30 (a 5-minute
/// window lasts 10 s): events arrive in order, the window's end within a second of it, on a pipe
/// as lines and on a terminal as a screen that Ctrl-C leaves cleanly.
@Suite struct WatchEndToEndTests {
    static let scale = 30.0
    static let hourly = "[hourly]\nwindow-minutes = 5\n"

    /// `lockr watch ARGUMENTS` with its output read line by line as it comes, each with when it came.
    final class Watcher {
        /// The lines read so far, each with when it came.
        final class Lines: Sendable {
            private let lines = Mutex<[(at: Date, text: String)]>([])
            func append(_ line: (at: Date, text: String)) { lines.withLock { $0.append(line) } }
            func withLock<T>(_ body: ([(at: Date, text: String)]) throws -> T) rethrows -> T {
                try lines.withLock { try body($0) }
            }
        }

        let process = Process()
        let lines = Lines()
        private let pipe = Pipe()

        init(_ lockr: LockrProcess, _ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: LockrProcess.binary)
            process.arguments = ["watch", "--state-dir", lockr.stateDirectory] + arguments
            process.standardOutput = pipe
            process.standardError = pipe
            let pending = Mutex("")
            pipe.fileHandleForReading.readabilityHandler = { [lines] handle in
                let chunk = String(decoding: handle.availableData, as: UTF8.self)
                let now = Date()
                pending.withLock { pending in
                    pending += chunk
                    while let end = pending.firstIndex(of: "\n") {
                        let line = String(pending[..<end])
                        pending.removeSubrange(...end)
                        lines.append((now, line))
                    }
                }
            }
            try process.run()
        }

        /// Waits until a line contains `text`; the first such line and when it came.
        func wait(for text: String, seconds: Double = 20) async throws -> (at: Date, text: String) {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let line = lines.withLock({ $0.first { $0.text.contains(text) } }) { return line }
                try await Task.sleep(for: .milliseconds(20))
            }
            throw LockrProcess.Failure("no line with '\(text)' in: \(lines.withLock { $0.map(\.text) })")
        }

        /// Waits until it follows the daemon's events: reloads the daemon (each reload is an event)
        /// until a reload's event reaches it. A loaded machine may take long to start `lockr watch`
        /// and connect it; a reload every half second leaves the daemon time for it.
        func waitUntilFollowing(_ lockr: LockrProcess) async throws {
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                lockr.signal(SIGHUP)
                try await Task.sleep(for: .milliseconds(500))
                if lines.withLock({ $0.contains { $0.text.contains("the configuration file was reloaded") } }) {
                    return
                }
            }
            throw LockrProcess.Failure("lockr watch never got an event: \(lines.withLock { $0.map(\.text) })")
        }

        func stop() -> Int32 {
            if process.isRunning { kill(process.processIdentifier, SIGINT) }
            process.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
            return process.terminationStatus
        }
    }

    private func event(_ line: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aWindowsEndReachesTheStreamWithinASecond() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.hourly, timeScale: Int(Self.scale)) {
            lockr, _ in
            let watcher = try Watcher(lockr, ["--json"])
            defer { _ = watcher.stop() }
            try await watcher.waitUntilFollowing(lockr)
            #expect(try await lockr.cli("unlock", "tiktok").status == 0)
            let opened = try await watcher.wait(for: "\"window_opened\"")
            let closed = try await watcher.wait(for: "\"window_closed\"")
            let openedBody = try event(opened.text)
            let until = try #require(apiInstant((openedBody["until"] as? [String: Any])?["at"]))
            let openedAt = try #require(apiInstant(openedBody["at"]))
            // When the window ended on this machine's clock, going by when its opening arrived.
            let endedHere = opened.at.addingTimeInterval(until.timeIntervalSince(openedAt) / Self.scale)
            let delay = closed.at.timeIntervalSince(endedHere)
            #expect(delay < 1.0, "window end arrived \(delay) s after it")
            #expect(delay > -0.5, "window end arrived \(-delay) s before it")

            // The lock that follows the window's end comes as an event of its own, just after it.
            let locked = try event(try await watcher.wait(for: "\"locked\"").text)
            let types = watcher.lines.withLock {
                $0.compactMap { try? event($0.text)["type"] as? String }.filter { $0 != "settings_changed" }
            }
            #expect(types == ["window_opened", "window_ending", "window_ending", "window_closed", "locked"])
            let lines = watcher.lines.withLock { $0.map(\.text) }
            let ending = try lines.filter { $0.contains("window_ending") }.map { try event($0)["minutes_left"] as? Int }
            #expect(ending == [2, 1])
            #expect((locked["state"] as? [String: Any])?["code"] as? String == "hour_used")
            #expect(locked["message"] as? String == "tiktok: hourly window used, next at 11:00")
            #expect(watcher.stop() == 0, "Ctrl-C ends watch cleanly")
        }
    }

    @Test func onAPipeEachEventIsALineAndAStoppedDaemonIsWaitedFor() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.hourly, timeScale: Int(Self.scale)) {
            lockr, _ in
            let watcher = try Watcher(lockr, [])
            defer { _ = watcher.stop() }
            try await watcher.waitUntilFollowing(lockr)
            #expect(try await lockr.cli("unlock", "youtube").status == 0)
            let opened = try await watcher.wait(for: "youtube: open until")
            // Policy time runs 30 times faster: the hour's first minutes, however long the start took.
            #expect(opened.text.contains(/\  default  youtube: open until 10:\d\d \(hourly window\)/), "\(opened.text)")
            #expect(try await lockr.cli("mode", "time").status == 0)
            _ = try await watcher.wait(for: "policy.mode: hourly → time")
            _ = try await watcher.wait(for: "youtube: 2 min left")
            lockr.signal(SIGTERM)
            _ = try await watcher.wait(for: "the daemon stopped; waiting for it to come back")
            #expect(watcher.process.isRunning)
            #expect(watcher.stop() == 0)
        }
    }

    @Test func onATerminalTheScreenCountsDownAndCtrlCLeavesItCleanly() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.hourly, timeScale: Int(Self.scale)) {
            lockr, _ in
            let terminal = try PseudoTerminal(LockrProcess.binary, ["watch", "--state-dir", lockr.stateDirectory])
            // Generous: on a loaded machine (the suite runs its tests side by side) the debug build
            // may take long to start.
            let first = await terminal.read(until: "YouTube", seconds: 45)
            #expect(first.contains("\u{1B}[?1049h"), "the alternate screen")
            #expect(first.contains("TikTok") && first.contains("blocked"), "\(first)")
            #expect(try await lockr.cli("unlock", "tiktok").status == 0)
            // The event and the status read every 5 s may come in either order.
            let opened = await terminal.read(until: "tiktok: open until", seconds: 10)
            #expect(opened.contains("tiktok: open until"), "the latest events: \(opened)")
            // The screen redraws its countdown with the status it reads every 5 s.
            let counting = await terminal.read(until: " left  ", seconds: 12)
            #expect(counting.contains(/open\s+\d:\d\d left/), "a countdown: \(counting)")
            terminal.signal(SIGINT)
            let end = await terminal.finish()
            #expect(end.status == 0)
            #expect(end.output.hasSuffix("\u{1B}[?25h\u{1B}[?1049l"), "the screen and cursor are given back")
        }
    }

    @Test func anUnknownPersonOrNoDaemonIsAClearError() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly") { lockr, _ in
            let unknown = try await lockr.cli("watch", "--person", "carol")
            #expect(unknown.status == 1)
            #expect(unknown.output.contains("no person 'carol'"), "\(unknown.output)")
        }
        let empty = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: LockrProcess.binary)
        watcher.arguments = ["watch", "--state-dir", empty]
        let output = Pipe()
        watcher.standardError = output
        watcher.standardOutput = output
        try watcher.run()
        watcher.waitUntilExit()
        #expect(watcher.terminationStatus == 1)
        #expect(
            String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains(
                "no lockr daemon found"))
    }
}
