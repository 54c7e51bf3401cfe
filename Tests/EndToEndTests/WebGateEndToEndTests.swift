import DNSTestSupport
import Foundation
import Testing

/// The ways out of a lock on an app's page, in a real headless Chromium as a device of alice:
/// a chess puzzle solved by clicking, the emergency hold timed by the server, the sentence spoken
/// through the microphone and sent as a recording. Each opens the app for dig too.
extension WebEndToEndTests {
    /// The household with extreme mode's gate one easy puzzle of `kind` to begin with.
    static func puzzleGate(_ kind: String) -> String {
        household + """
            [extreme]
            gate = ["puzzle"]
            [puzzles]
            kinds = ["\(kind)"]
            difficulty = "easy"

            """
    }

    /// What `web_app.py FLOW` reported, run on `app`'s page (the status page for "live") with
    /// `extra` arguments.
    func webApp(_ flow: String, _ address: String, app: String, _ extra: [String] = []) async throws -> [String: Any] {
        let page = flow == "live" ? "http://\(address)/" : "http://\(address)/apps/\(app)"
        return try report(
            try await runAwaited("python3", [Self.scripts + "/web_app.py", flow, page, app, Self.screenshots] + extra)
                .output)
    }
    @Test func aPuzzleSolvedByClickingOpensTheAppAndTheHoldGrantsOnlyWhenHeldItsEightSeconds() async throws {
        let sections = Self.puzzleGate("chess")
        try await PolicyEndToEndTests().withLockr(mode: "extreme", sections: sections, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            // The puzzle out (as the page's button asks for it), then its page through axe-core.
            let browser = try formToken(address)
            defer { try? FileManager.default.removeItem(atPath: browser.jar) }
            let issued = try post("http://\(address)/apps/tiktok/puzzles", ["csrf": browser.token], jar: browser.jar)
            #expect(issued.status == 303)
            let views = try await runAwaited(
                "python3",
                [Self.scripts + "/web_pages.py", "http://\(address)/apps/tiktok", Self.screenshots, "app-puzzle"])
            let viewsReport = try report(views.output)
            #expect((viewsReport["violations"] as? [Any])?.isEmpty == true, "axe: \(viewsReport["violations"] ?? [])")
            for view in viewsReport["views"] as? [[String: Any]] ?? [] {
                #expect(
                    (view["scrollWidth"] as? Int ?? .max) <= (view["width"] as? Int ?? 0), "the board fits: \(view)")
            }

            let solved = try await webApp("puzzle", address, app: "tiktok")
            #expect(solved["error"] == nil, "\(solved)")
            #expect(solved["pressed"] as? String == "true", "the chosen piece shows as chosen")
            #expect(solved["typed_by_clicks"] as? String == solved["move"] as? String, "two clicks make the move")
            #expect(solved["before"] as? String == "locked" && solved["after"] as? String == "open", "\(solved)")
            #expect(try await dig(lockr.port, "tiktok.com", "A", "+short").contains("192.0.2.21"))

            let held = try await webApp("hold", address, app: "youtube")
            #expect(held["error"] == nil, "\(held)")
            // The server times from the press's arrival: on a loaded machine 3 s may read as 2.
            let letGo = held["after_3s"] as? String ?? ""
            #expect(letGo.wholeMatch(of: /let go after [23] s of 8 s: nothing granted/) != nil, "\(held)")
            #expect(held["badge_after_3s"] as? String == "locked")
            #expect(held["badge_after_8s"] as? String == "open")
            #expect(try await dig(lockr.port, "www.youtube.com", "A", "+short").contains("192.0.2.22"))
            let status = try await lockr.cli("status", "--person", "alice", "--json").output
            let people = try #require(
                (try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])?["people"]
                    as? [[String: Any]])
            #expect((people.first?["emergencies"] as? [String: Any])?["used"] as? Int == 1, "one granted: \(status)")
        }
    }

    @Test func sumsAnsweredByKeyboardOpenTheAppOneLevelHarderAfterAWrongAnswer() async throws {
        let sections = Self.puzzleGate("arithmetic")
        try await PolicyEndToEndTests().withLockr(mode: "extreme", sections: sections, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            let answered = try await webApp("arithmetic", address, app: "tiktok")
            #expect(answered["error"] == nil, "\(answered)")
            let first = answered["first"] as? [String: Any] ?? [:]
            let second = answered["second"] as? [String: Any] ?? [:]
            #expect(
                first["difficulty"] as? String == "easy" && second["difficulty"] as? String == "medium", "\(answered)")
            #expect((answered["after_wrong"] as? String)?.contains("wrong: ") == true, "\(answered)")
            #expect(answered["before"] as? String == "locked" && answered["after"] as? String == "open", "\(answered)")
            #expect(try await dig(lockr.port, "tiktok.com", "A", "+short").contains("192.0.2.21"))
            let log = try await lockr.cli("log", "--person", "alice").output
            #expect(log.contains("arithmetic easy failed") && log.contains("arithmetic medium solved"), "\(log)")
        }
    }

    @Test func withoutAMicrophoneTheSentenceIsTypedAfterTheFallbacksWait() async throws {
        let sections = Self.household + PolicyEndToEndTests.voiceGate
        try await PolicyEndToEndTests().withLockr(mode: "extreme", sections: sections, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            let asked = Date()
            let typed = try await webApp("fallback", address, app: "tiktok")
            #expect(typed["error"] == nil, "\(typed)")
            #expect(typed["field_before"] as? Bool == false, "with input = \"voice\" no field to type it in at first")
            #expect((typed["waiting"] as? String)?.hasPrefix("You may type it instead in ") == true, "\(typed)")
            #expect(Date().timeIntervalSince(asked) >= 15, "one cooldown step further along: 15 s")
            #expect(typed["before"] as? String == "locked" && typed["after"] as? String == "open", "\(typed)")
            #expect(try await dig(lockr.port, "tiktok.com", "A", "+short").contains("192.0.2.21"))
        }
    }

    @Test func aStatusPageLeftOpenShowsAnAppOpenedElsewhereByItself() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.household, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            let followed = try await webApp("live", address, app: "tiktok")
            #expect(followed["error"] == nil, "\(followed)")
            #expect(followed["status_before"] as? String == "locked" && followed["status_after"] as? String == "open")
            #expect(
                try await dig(lockr.port, "tiktok.com", "A", "+short").contains("192.0.2.21"),
                "opened from the page (hourly)"
            )
        }
    }

    @Test func theSentenceSpokenIntoTheMicrophoneOrSentAsARecordingOpensTheApp() async throws {
        let clip = NSTemporaryDirectory() + "lockr-e2e-web-voice-\(UUID().uuidString).wav"
        defer { try? FileManager.default.removeItem(atPath: clip) }
        let sentence = "I am stupid enough to waste more time. Please give me another 15 minutes."
        #expect(try await runAwaited("flite", ["-voice", "slt", "-t", sentence, "-o", clip]).status == 0)
        let seconds = try await runAwaited("soxi", ["-D", clip]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let sections = Self.household + PolicyEndToEndTests.voiceGate
        try await PolicyEndToEndTests().withLockr(mode: "extreme", sections: sections, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            let sent = try await webApp("voice", address, app: "tiktok", [clip, "file"])
            #expect(sent["error"] == nil && sent["after"] as? String == "open", "a recording: \(sent)")
            #expect(try await dig(lockr.port, "tiktok.com", "A", "+short").contains("192.0.2.21"))
            // Chromium's fake microphone plays the clip once.
            let recorded = try await webApp("voice", address, app: "youtube", [clip + "%noloop", "record", seconds])
            #expect(recorded["record_shown"] as? Bool == true, "127.0.0.1 is a secure context: the page records")
            #expect(recorded["error"] == nil && recorded["after"] as? String == "open", "the microphone: \(recorded)")
            #expect(try await dig(lockr.port, "www.youtube.com", "A", "+short").contains("192.0.2.22"))
            #expect(try await lockr.cli("log").output.contains("sentence spoken: heard"))
        }
    }
}
