import DNSTestSupport
import Foundation
import Testing

/// The admin view through the real daemon: behind the household's PIN, with curl and in a real
/// headless Chromium.
extension WebEndToEndTests {
    static let adminHousehold =
        household + """
            [people.alice.profiles.work]
            block = ["social"]
            [people.alice.schedules.bedtime]
            days = "daily"
            from = "22:00"
            to = "07:00"
            block = ["tiktok"]

            """

    @Test func theAdminViewIsBehindThePINAndItsPagesWorkInChromium() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "time", sections: Self.adminHousehold, timeScale: 1) {
            lockr, _ in
            let address = try #require(lockr.webAddress)
            // No PIN set: no admin view, and the way to one.
            #expect(try fetch("http://\(address)/admin").body.contains("lockr pin set"))
            let set = try await PolicyEndToEndTests().atATerminal(
                ["pin", "set"], answering: [("New PIN", "2468\r"), ("Again", "2468\r")], lockr)
            #expect(set.status == 0, "\(set.output)")

            // Without a session: every admin page sends to the sign-in form, and changes are not made.
            let page = try fetch("http://\(address)/admin/people/alice")
            #expect(page.status == 303 && page.headers.lowercased().contains("location: /admin\r"), "\(page.headers)")
            let browser = try formToken(address, page: "/admin")
            defer { try? FileManager.default.removeItem(atPath: browser.jar) }
            let unsigned = try post(
                "http://\(address)/admin/people/alice/profiles/work", ["action": "activate", "csrf": browser.token],
                jar: browser.jar)
            #expect(unsigned.status == 303)
            // A sign-in without the form token: 403, and it does not count as a wrong PIN.
            let forged = try post("http://\(address)/admin/login", ["pin": "2468", "csrf": "guess"], jar: nil)
            #expect(forged.status == 403)
            // A device of nobody's asks lockr, so the overview lists it with its assign form; Alice's,
            // which the config file names, is listed without one.
            _ = try await runAwaited(
                "dig", ["-b", "127.0.0.2", "@127.0.0.1", "-p", "\(lockr.port)", "news.example", "+short"])
            _ = try await runAwaited(
                "dig", ["-b", "127.0.0.1", "@127.0.0.1", "-p", "\(lockr.port)", "news.example", "+short"])
            let lists = try ListServer()
            let listURL = lists.url("/hosts.txt")
            let walked = try report(
                try await runAwaited(
                    "python3",
                    [
                        Self.scripts + "/web_admin.py", "http://\(address)", Self.screenshots, "2468", "alice", "work",
                        listURL,
                    ]
                ).output)
            #expect(walked["error"] == nil, "\(walked)")
            #expect((walked["wrong_pin"] as? String ?? "").contains("wrong PIN (1 in a row)"), "\(walked)")
            #expect(walked["signed_in_heading"] as? String == "Household")
            let pages = walked["pages"] as? [[String: Any]] ?? []
            #expect(pages.count == 28, "7 pages, phone and desktop, light and dark")
            for shown in pages {
                #expect((shown["scrollWidth"] as? Int ?? .max) <= (shown["width"] as? Int ?? 0), "fits: \(shown)")
                if shown["size"] as? String == "phone" {
                    #expect(shown["tableOverflow"] as? Int == 0, "no table runs off a phone's screen: \(shown)")
                }
            }
            #expect(walked["assignable_devices"] as? [String] == ["127.0.0.2"], "\(walked["assignable_devices"] ?? "")")
            #expect((walked["violations"] as? [Any])?.isEmpty == true, "axe: \(walked["violations"] ?? [])")
            #expect(walked["charts"] as? Int ?? 0 >= 1, "use drawn as SVG")
            #expect(walked["profile_switched_on"] as? Bool == true)
            // The list added on the lists page for Alice is fetched and blocks for her device only;
            // so does the deny entry added on her page.
            let rows = walked["list_rows"] as? [[String]] ?? []
            #expect(
                rows.contains { $0.count > 2 && $0[0] == listURL && $0[1] == "block for alice" && $0[2] == "2" },
                "\(rows)")
            let entries = walked["entries"] as? [[String]] ?? []
            #expect(
                entries == [["blocklist", listURL, "trackers"], ["deny", "|games.example^", "homework first"]],
                "\(entries)")
            #expect(try await dig(lockr.port, "-b", "127.0.0.1", "v1.tracker.test", "A", "+short").contains("0.0.0.0"))
            #expect(try await !dig(lockr.port, "-b", "127.0.0.2", "v1.tracker.test", "A", "+short").contains("0.0.0.0"))
            #expect(try await dig(lockr.port, "-b", "127.0.0.1", "games.example", "A", "+short").contains("0.0.0.0"))
            #expect(
                try await !dig(lockr.port, "-b", "127.0.0.1", "www.games.example", "A", "+short").contains("0.0.0.0"))
            #expect(walked["records"] as? [[String]] == [["nas.home.arpa A 192.168.1.5", "the NAS"]], "\(walked)")
            #expect(try await dig(lockr.port, "nas.home.arpa", "A", "+short") == "192.168.1.5\n")
            // The dashboard counts the two queries of news.example: drawn (24 hours and 7 days of
            // bars) and in its tables.
            let dashboard = walked["dashboard"] as? [String: Any] ?? [:]
            let summary = dashboard["summary"] as? String ?? ""
            let counted = summary.split(separator: " ").dropFirst(3).first.flatMap { Int($0) } ?? 0
            #expect(summary.hasPrefix("Last 24 hours: ") && counted >= 2, "\(dashboard)")
            #expect(dashboard["charts"] as? Int == 31, "24 hourly and 7 daily bars: \(dashboard)")
            let asked = dashboard["asked"] as? [[String]] ?? []
            #expect(asked.contains { $0.first == "news.example" && Int($0.last ?? "") ?? 0 >= 2 }, "\(dashboard)")
            #expect((dashboard["people"] as? [[String]] ?? []).contains { $0.first == "default" }, "\(dashboard)")
            #expect((walked["query_url"] as? String ?? "").contains("blocked=on"))
            #expect(walked["after_sign_out"] as? Bool == true, "signed out, the PIN is asked again")
            // The profile the admin switched on is in force for alice's DNS.
            #expect(try await dig(lockr.port, "instagram.com", "A", "+short").contains("0.0.0.0"))
            #expect(try await lockr.cli("log").output.contains("work"))
        }
    }

    @Test func aNewlySeenDeviceAssignedInTheAdminViewIsItsPersonsFromThenOn() async throws {
        let state = NSTemporaryDirectory() + "lockr-e2e-web-devices-\(UUID())"
        defer { try? FileManager.default.removeItem(atPath: state) }
        let ends = PolicyEndToEndTests()
        try await ends.withLockr(mode: "time", sections: Self.adminHousehold, stateDirectory: state, timeScale: 1) {
            lockr, _ in
            let address = try #require(lockr.webAddress)
            let set = try await PolicyEndToEndTests().atATerminal(
                ["pin", "set"], answering: [("New PIN", "2468\r"), ("Again", "2468\r")], lockr)
            #expect(set.status == 0, "\(set.output)")
            // A new device asks lockr: it is the default person's.
            _ = try await runAwaited(
                "dig", ["-b", "127.0.0.2", "@127.0.0.1", "-p", "\(lockr.port)", "news.example", "+short"])
            #expect(try fetch("http://\(address)/", from: "127.0.0.2").body.contains("<h1>Your apps</h1>"))
            let admin = try formToken(address, page: "/admin")
            defer { try? FileManager.default.removeItem(atPath: admin.jar) }
            let signedIn = try post(
                "http://\(address)/admin/login", ["pin": "2468", "csrf": admin.token], jar: admin.jar)
            #expect(signedIn.status == 303)
            let overview = try await runAwaited("curl", ["-s", "-b", admin.jar, "http://\(address)/admin"]).output
            #expect(overview.contains("value=\"127.0.0.2\""), "the new device is listed to be assigned: \(overview)")

            let assigned = try post(
                "http://\(address)/admin/devices", ["device": "127.0.0.2", "person": "alice", "csrf": admin.token],
                jar: admin.jar)
            #expect(assigned.status == 303, "\(assigned.body)")
            #expect(try fetch("http://\(address)/", from: "127.0.0.2").body.contains("<h1>alice</h1>"), "alice's now")
            #expect(try await lockr.cli("log", "--person", "alice").output.contains("device 127.0.0.2 assigned"))
            // Back to the default person, who has no bedtime: that loosens, so it waits as Alice's
            // changes wait (her day's end in time mode), and the device stays hers meanwhile.
            let back = try post(
                "http://\(address)/admin/devices", ["device": "127.0.0.2", "person": "default", "csrf": admin.token],
                jar: admin.jar)
            #expect(back.status == 303, "\(back.body)")
            #expect(try fetch("http://\(address)/", from: "127.0.0.2").body.contains("<h1>alice</h1>"), "still hers")
            let waiting = try await lockr.cli("pending", "list", "--person", "alice").output
            #expect(waiting.contains("device 127.0.0.2: alice → default"), "\(waiting)")
            let herPage = try await runAwaited("curl", ["-s", "-b", admin.jar, "http://\(address)/admin/people/alice"])
                .output
            #expect(herPage.contains("device 127.0.0.2: alice → default"), "her page lists it: \(herPage)")
            // A schedule added from alice's page; one with a time that is none is refused, saying why.
            let school = try post(
                "http://\(address)/admin/people/alice/schedules",
                [
                    "name": "school", "days": "mon-fri", "from": "08:00", "to": "15:00", "block": "youtube, social",
                    "csrf": admin.token,
                ],
                jar: admin.jar)
            #expect(school.status == 303, "\(school.body)")
            #expect(try await lockr.cli("schedule", "list", "--person", "alice").output.contains("school"))
            let late = try post(
                "http://\(address)/admin/people/alice/schedules",
                ["name": "late", "from": "25:00", "to": "07:00", "block": "tiktok", "csrf": admin.token], jar: admin.jar
            )
            #expect(late.status == 400 && late.body.contains("expected times HH:MM"), "\(late.body)")
            // The config file's devices are changed there; what is no device is refused.
            let configured = try post(
                "http://\(address)/admin/devices", ["device": "127.0.0.1", "person": "default", "csrf": admin.token],
                jar: admin.jar)
            #expect(configured.status == 409 && configured.body.contains("in the config file"), "\(configured.body)")
            let network = try post(
                "http://\(address)/admin/devices", ["device": "10.0.0.0/8", "person": "alice", "csrf": admin.token],
                jar: admin.jar)
            #expect(network.status == 400 && network.body.contains("no MAC or IP address of one device"))
        }
        // Kept across a restart.
        try await ends.withLockr(mode: "time", sections: Self.adminHousehold, stateDirectory: state, timeScale: 1) {
            lockr, _ in
            let address = try #require(lockr.webAddress)
            #expect(try fetch("http://\(address)/", from: "127.0.0.2").body.contains("<h1>alice</h1>"), "still alice's")
        }
    }
}
