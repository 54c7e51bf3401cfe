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
    func fetch(_ url: String, from source: String = "127.0.0.1") throws -> (status: Int, headers: String, body: String) {
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
            let policy = try #require(page.headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-security-policy:") })
            #expect(policy.contains("script-src 'self'") && policy.contains("style-src 'self'") && !policy.contains("unsafe-inline"))
            #expect(!page.body.contains("style=") && !page.body.contains("<style"), "no inline style")
            let scripts = page.body.matches(of: /<script[^>]*>/).map { String($0.0) }
            #expect(scripts == ["<script src=\"/static/lockr.js\" defer>"], "no inline script: \(scripts)")
            #expect(!page.body.contains("http://") && !page.body.contains("https://"), "nothing from elsewhere")

            let other = try fetch("http://\(address)/", from: "127.0.0.2")
            #expect(other.body.contains("<h1>default</h1>"), "any other device is the default person's: \(other.body)")
            let style = try fetch("http://\(address)/static/lockr.css")
            #expect(style.status == 200 && style.headers.lowercased().contains("content-type: text/css"))
            #expect(style.body.contains("prefers-color-scheme: dark"))
            let missing = try fetch("http://\(address)/no/such/page")
            #expect(missing.status == 404 && missing.body.contains("Not here"))

            #expect(try lockr.cli("unlock", "tiktok", "--person", "alice").status == 0)
            let open = try fetch("http://\(address)/")
            #expect(open.body.contains("badge-open") && open.body.contains(" left</span>"), "\(open.body)")
            #expect(!(try fetch("http://\(address)/", from: "127.0.0.2").body.contains("badge-open")), "only alice's opened")
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

    @Test func aPhoneTypesTheSentenceAndTheAppsDNSAnswerChangesWhileAFormWithoutItsTokenIsRefused() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "extreme", sections: Self.household, timeScale: 1) { lockr, _ in
            let address = try #require(lockr.webAddress)
            #expect(try dig(lockr.port, "tiktok.com", "A", "+short").contains("0.0.0.0"), "locked before")

            // Another site's form, without the browser's token: refused, nothing opens.
            let forged = try run(
                "curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-d", "app=tiktok&phrase=x&csrf=guess", "http://\(address)/unlock"])
            #expect(forged.output == "403")
            // Another device (the default person's) passes the sentence: it opens nothing of alice's.
            let jar = NSTemporaryDirectory() + "lockr-web-\(UUID()).cookies"
            defer { try? FileManager.default.removeItem(atPath: jar) }
            _ = try run("curl", ["-s", "-o", "/dev/null", "--interface", "127.0.0.2", "-c", jar, "http://\(address)/"])
            let token = try String(contentsOfFile: jar, encoding: .utf8).split(separator: "\n")
                .first { $0.contains("lockr_form") }.map { String($0.split(separator: "\t").last!) } ?? ""
            let sentence = "I am stupid enough to waste more time. Please give me another 15 minutes."
            let other = try run(
                "curl", [
                    "-s", "-o", "/dev/null", "-w", "%{http_code}", "--interface", "127.0.0.2", "-b", jar,
                    "--data-urlencode", "app=tiktok", "--data-urlencode", "phrase=\(sentence)", "--data-urlencode",
                    "csrf=\(token)", "http://\(address)/unlock",
                ])
            #expect(other.output == "303", "the default person's own unlock")
            #expect(try dig(lockr.port, "tiktok.com", "A", "+short").contains("0.0.0.0"), "alice's tiktok still locked")

            // The page with its sentence forms, in every view, through axe-core too.
            let views = try await runAwaited(
                "python3", [Self.scripts + "/web_pages.py", "http://\(address)/", Self.screenshots, "gate"])
            let viewsLine = try #require(views.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(views.output)")
            let viewsReport = try #require(JSONSerialization.jsonObject(with: Data(viewsLine.utf8)) as? [String: Any])
            #expect((viewsReport["violations"] as? [Any])?.isEmpty == true, "axe: \(viewsReport["violations"] ?? [])")

            let result = try await runAwaited(
                "python3", [Self.scripts + "/web_gate.py", "http://\(address)/", "tiktok", Self.screenshots])
            #expect(result.status == 0, "\(result.output)")
            let line = try #require(result.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(result.output)")
            let report = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(report["sentence"] as? String == sentence)
            #expect(report["after_paste"] as? String == "", "a pasted sentence is not taken")
            #expect((report["before"] as? [String])?.first == "locked")
            #expect((report["after"] as? [String])?.first == "open", "\(report)")
            #expect((report["chip"] as? String ?? "").hasSuffix("left"))
            #expect(try dig(lockr.port, "tiktok.com", "A", "+short").contains("192.0.2.21"), "open now, for dig too")
        }
    }
}
