import DNSTestSupport
import Foundation
import Testing

/// The web pages through the real daemon: what a device of each person gets, with curl and in a
/// real headless Chromium (phone and desktop, light and dark), checked with axe-core.
@Suite struct WebEndToEndTests {
    static let household = """
        [people.alice]
        devices = ["127.0.0.1"]

        """
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts").path
    /// Where the run leaves its screenshots, to be looked at: .build/screenshots in the package.
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/screenshots").path

    /// curl from `source` (a loopback address): status, headers and body.
    func fetch(_ url: String, from source: String = "127.0.0.1") throws -> (status: Int, headers: String, body: String)
    {
        let headersPath = NSTemporaryDirectory() + "lockr-web-\(UUID()).headers"
        defer { try? FileManager.default.removeItem(atPath: headersPath) }
        let result = try run("curl", ["-s", "--interface", source, "-D", headersPath, "-w", "\n%{http_code}", url])
        var lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.removeLast()) ?? 0
        let headers = (try? String(contentsOfFile: headersPath, encoding: .utf8)) ?? ""
        return (status, headers, lines.joined(separator: "\n"))
    }

    @Test func eachDeviceSeesItsOwnPersonAndThePageHoldsNoInlineScriptOrStyle() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.household, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress, "the daemon says where its pages are: \(lockr.log)")
            let page = try fetch("http://\(address)/")
            #expect(page.status == 200)
            #expect(page.body.contains("<h1>alice</h1>"), "127.0.0.1 is alice's device: \(page.body)")
            #expect(page.body.contains("TikTok") && page.body.contains("badge-locked"))
            #expect(
                page.body.contains("locked; its page opens it") && !page.body.contains("lockr unlock"), "a page's words"
            )
            let policy = try #require(
                page.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-security-policy:") })
            #expect(
                policy.contains("script-src 'self'") && policy.contains("style-src 'self'")
                    && !policy.contains("unsafe-inline"))
            #expect(!page.body.contains("style=") && !page.body.contains("<style"), "no inline style")
            let scripts = page.body.matches(of: /<script[^>]*>/).map { String($0.0) }
            #expect(scripts == ["<script src=\"/static/lockr.js\" defer>"], "no inline script: \(scripts)")
            #expect(!page.body.contains("http://") && !page.body.contains("https://"), "nothing from elsewhere")

            // The pages' name, answered by lockr with their address (A), no data for AAAA, no EDE.
            let named = try await dig(lockr.port, "LoCkR.lan", "A")
            #expect(
                named.contains("status: NOERROR") && named.contains("127.0.0.1") && !named.contains("EDE"), "\(named)")
            let six = try await dig(lockr.port, "lockr.lan", "AAAA")
            #expect(six.contains("status: NOERROR") && six.contains("ANSWER: 0"), "\(six)")
            #expect(try await lockr.cli("explain", "lockr.lan").output.contains("the name of lockr's web pages"))

            let other = try fetch("http://\(address)/", from: "127.0.0.2")
            #expect(
                other.body.contains("<h1>Your apps</h1>"), "any other device is the default person's: \(other.body)")
            let style = try fetch("http://\(address)/static/lockr.css")
            #expect(style.status == 200 && style.headers.lowercased().contains("content-type: text/css"))
            #expect(style.body.contains("prefers-color-scheme: dark"))
            let missing = try fetch("http://\(address)/no/such/page")
            #expect(missing.status == 404 && missing.body.contains("Not here"))

            #expect(try await lockr.cli("unlock", "tiktok", "--person", "alice").status == 0)
            let open = try fetch("http://\(address)/")
            #expect(open.body.contains("badge-open") && open.body.contains(" left</span>"), "\(open.body)")
            #expect(
                !(try fetch("http://\(address)/", from: "127.0.0.2").body.contains("badge-open")), "only alice's opened"
            )
        }
    }

    @Test func inChromiumEveryViewShowsTheAppsFitsAPhoneAndHasNoSeriousAccessibilityProblem() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "time", sections: Self.household, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            let result = try await runAwaited(
                "python3", [Self.scripts + "/web_pages.py", "http://\(address)/", Self.screenshots, "status"])
            #expect(result.status == 0, "\(result.output)")
            let line = try #require(result.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(result.output)")
            let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let views = report["views"] as? [[String: Any]] ?? []
            #expect(views.count == 4)
            for view in views {
                let name = "\(view["size"] ?? "") \(view["scheme"] ?? "")"
                #expect(view["heading"] as? String == "alice", "\(name)")
                let apps = view["apps"] as? [[String: Any]] ?? []
                #expect(apps.map { $0["name"] as? String } == ["TikTok", "YouTube", "Instagram"], "\(name): \(apps)")
                #expect(apps.allSatisfy { $0["badge"] as? String == "open" }, "time mode, budget left: \(apps)")
                #expect((view["scrollWidth"] as? Int ?? .max) <= (view["width"] as? Int ?? 0), "\(name) fits its width")
                #expect(FileManager.default.fileExists(atPath: view["screenshot"] as? String ?? ""), "\(name)")
            }
            let backgrounds = Set(views.compactMap { $0["background"] as? String })
            #expect(backgrounds.count == 2, "light and dark differ: \(backgrounds)")
            #expect((report["violations"] as? [Any])?.isEmpty == true, "axe: \(report["violations"] ?? [])")
        }
    }

    /// A browser's form token for `address`, got by `source` opening `page`: the cookie jar's path
    /// and the token.
    func formToken(
        _ address: String, page: String = "/apps/tiktok", from source: String = "127.0.0.1"
    ) throws
        -> (jar: String, token: String)
    {
        let jar = NSTemporaryDirectory() + "lockr-web-\(UUID()).cookies"
        _ = try run("curl", ["-s", "-o", "/dev/null", "--interface", source, "-c", jar, "http://\(address)\(page)"])
        let token =
            try String(contentsOfFile: jar, encoding: .utf8).split(separator: "\n")
            .first { $0.contains("lockr_form") }.map { String($0.split(separator: "\t").last!) } ?? ""
        return (jar, token)
    }

    /// A form posted by `source` with the cookies in `jar` (which keeps those the answer sets):
    /// the status and the page.
    func post(
        _ url: String, _ fields: [String: String], jar: String?, from source: String = "127.0.0.1"
    ) throws
        -> (status: Int, body: String)
    {
        var arguments = ["-s", "-w", "\n%{http_code}", "--interface", source]
        if let jar { arguments += ["-b", jar, "-c", jar] }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            arguments += ["--data-urlencode", "\(name)=\(value)"]
        }
        var lines = try run("curl", arguments + [url]).output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.removeLast()) ?? 0
        return (status, lines.joined(separator: "\n"))
    }

    /// The JSON object a test script printed last.
    func report(_ output: String) throws -> [String: Any] {
        let line = try #require(output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(output)")
        return try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func aPhoneTypesTheSentenceAndTheAppsDNSAnswerChangesWhileAFormWithoutItsTokenIsRefused() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "extreme", sections: Self.household, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            #expect(try await dig(lockr.port, "tiktok.com", "A", "+short").contains("0.0.0.0"), "locked before")

            // Another site's form, without the browser's token: refused, nothing opens.
            let forged = try post(
                "http://\(address)/apps/tiktok/open", ["action": "unlock", "phrase": "x", "csrf": "guess"], jar: nil)
            #expect(forged.status == 403 && forged.body.contains("no valid token"))
            // Another device (the default person's) passes the sentence: it opens nothing of alice's.
            let other = try formToken(address, from: "127.0.0.2")
            defer { try? FileManager.default.removeItem(atPath: other.jar) }
            let sentence = "I am stupid enough to waste more time. Please give me another 15 minutes."
            let unlocked = try post(
                "http://\(address)/apps/tiktok/open", ["action": "unlock", "phrase": sentence, "csrf": other.token],
                jar: other.jar, from: "127.0.0.2")
            #expect(unlocked.status == 303, "the default person's own unlock")
            #expect(
                try await dig(lockr.port, "tiktok.com", "A", "+short").contains("0.0.0.0"),
                "alice's tiktok still locked")

            // The app's page with its sentence form, in every view, through axe-core too.
            let views = try await runAwaited(
                "python3",
                [Self.scripts + "/web_pages.py", "http://\(address)/apps/tiktok", Self.screenshots, "app-gate"])
            #expect((try report(views.output)["violations"] as? [Any])?.isEmpty == true, "axe: \(views.output)")

            let result = try await runAwaited(
                "python3", [Self.scripts + "/web_gate.py", "http://\(address)/apps/tiktok", Self.screenshots])
            #expect(result.status == 0, "\(result.output)")
            let gate = try report(result.output)
            #expect(gate["sentence"] as? String == sentence)
            #expect(gate["after_paste"] as? String == "", "a pasted sentence is not taken")
            #expect(gate["before"] as? String == "locked")
            #expect(gate["after"] as? String == "open", "\(gate)")
            #expect((gate["chip"] as? String ?? "").hasSuffix("left"))
            #expect(
                try await dig(lockr.port, "tiktok.com", "A", "+short").contains("192.0.2.21"), "open now, for dig too")
        }
    }

    @Test func withTheBudgetSpentTheAppsPageSnoozesAndExtends() async throws {
        let ends = PolicyEndToEndTests()
        try await ends.withLockr(mode: "time", sections: "[time]\nbudget-minutes = 5\n" + Self.household) { lockr, _ in
            let address = try #require(lockr.webAddress)
            #expect(try await ends.useUntilBlocked("tiktok.com.", lockr) != nil, "alice spends her budget")
            let page = try fetch("http://\(address)/apps/tiktok")
            #expect(page.body.contains("daily budget spent (5/5 min)"), "why: \(page.body)")
            #expect(page.body.contains("value=\"snooze\"") && page.body.contains("value=\"extend\""), "the ways out")
            let browser = try formToken(address)
            defer { try? FileManager.default.removeItem(atPath: browser.jar) }
            let incomplete = try post("http://\(address)/apps/tiktok/open", ["csrf": browser.token], jar: browser.jar)
            #expect(incomplete.status == 400 && incomplete.body.contains("incomplete"), "no action: \(incomplete.body)")
            let snoozed = try post(
                "http://\(address)/apps/tiktok/open", ["action": "snooze", "csrf": browser.token], jar: browser.jar)
            #expect(snoozed.status == 303)
            #expect(try await ends.address("tiktok.com.", lockr) == "192.0.2.21", "open for the snooze")
            let extended = try post(
                "http://\(address)/apps/tiktok/open", ["action": "extend", "csrf": browser.token], jar: browser.jar)
            #expect(extended.status == 303)
            #expect(try await lockr.cli("status", "--person", "alice").output.contains("extended"), "the budget grew")
            let again = try post(
                "http://\(address)/apps/tiktok/open", ["action": "extend", "csrf": browser.token], jar: browser.jar)
            #expect(again.status == 429 && again.body.contains("today&#39;s extension is used"), "\(again.body)")
        }
    }

    @Test func wrongSentencesShutTheGateAndTheCoolDownPageSaysWhyUntilWhenAndTheWayOut() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "extreme", sections: Self.household, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            let browser = try formToken(address)
            defer { try? FileManager.default.removeItem(atPath: browser.jar) }
            let locked = try fetch("http://\(address)/apps/instagram")
            #expect(locked.status == 200 && locked.body.contains("Meanwhile"), "a suggestion: \(locked.body)")
            let suggestions = ["Read a few pages of a book.", "Go for a short walk.", "Stand up and stretch."]
            #expect(suggestions.contains { locked.body.contains($0) }, "one of the default suggestions")
            #expect(locked.body.contains("Type this sentence") && locked.body.contains("Press and hold for 8 s"))
            for attempt in 1...3 {
                let wrong = try post(
                    "http://\(address)/apps/instagram/open",
                    ["action": "unlock", "phrase": "let me in please", "csrf": browser.token], jar: browser.jar)
                #expect(wrong.status == 403, "attempt \(attempt)")
                #expect(wrong.body.contains("role=\"alert\""), "the refusal is shown: \(wrong.body)")
            }
            let shut = try fetch("http://\(address)/apps/instagram")
            #expect(
                shut.body.contains("Wrong answers shut the gate for 15 s more (until 10:00)"),
                "why and until when: \(shut.body)")
            #expect(!shut.body.contains("Type this sentence"), "no form the gate would refuse")
            #expect(shut.body.contains("Press and hold for 8 s"), "the way out that stays: the emergency")
            #expect(try fetch("http://\(address)/apps/nosuchapp").status == 404)
            #expect(
                try fetch("http://\(address)/apps/tiktok", from: "127.0.0.2").body.contains("Type this sentence"),
                "the default person's gate is not alice's")
        }
    }
}
