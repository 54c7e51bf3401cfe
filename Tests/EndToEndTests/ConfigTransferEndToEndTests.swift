import DNSTestSupport
import Foundation
import Testing

/// `lockr config export` and `lockr config import` through the real binary and daemon.
@Suite struct ConfigTransferEndToEndTests {
    static let household = """
        [people.alice]
        devices = ["127.0.0.2", "aa:bb:cc:dd:ee:01"]
        guard = ["tiktok", "youtube"]
        [people.alice.hourly]
        window-minutes = 5
        [people.alice.schedules.bedtime]
        from = "22:00"
        to = "07:00"
        block = ["social"]
        [profiles.work]
        block = ["video"]

        """

    func export(_ lockr: LockrProcess) async throws -> String {
        let exported = try await lockr.cli("config", "export")
        #expect(exported.status == 0, "\(exported.output)")
        return exported.output
    }

    func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "lockr-e2e-settings-\(UUID()).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `text` with `edit` made to its JSON.
    func edited(_ text: String, _ edit: (inout [String: Any]) -> Void) throws -> String {
        var document = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        edit(&document)
        return String(
            decoding: try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Changes person `name`'s object in a document.
    func person(_ name: String, _ edit: @escaping (inout [String: Any]) -> Void) -> (inout [String: Any]) -> Void {
        { document in
            var people = document["people"] as! [[String: Any]]
            let index = people.firstIndex { $0["name"] as? String == name }!
            edit(&people[index])
            document["people"] = people
        }
    }

    @Test func exportThenImportIsTheSameAndSurvivesARestart() async throws {
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        var afterImport = ""
        try await PolicyEndToEndTests().withLockr(
            mode: "hourly", sections: Self.household, stateDirectory: state, timeScale: 1
        ) {
            lockr, _ in
            let first = try await export(lockr)
            let document = try #require(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
            #expect(document["version"] as? Int == 1)
            let people = document["people"] as? [[String: Any]] ?? []
            #expect(people.map { $0["name"] as? String } == ["default", "alice"])
            #expect(people[1]["devices"] as? [String] == ["127.0.0.2", "aa:bb:cc:dd:ee:01"])
            #expect((people[1]["hourly"] as? [String: Any])?["window_minutes"] as? Int == 5)
            #expect((people[1]["schedules"] as? [[String: Any]])?.first?["from"] as? String == "22:00")

            let same = try file(first)
            defer { try? FileManager.default.removeItem(atPath: same) }
            let unchanged = try await lockr.cli("config", "import", same)
            #expect(unchanged.status == 0 && unchanged.output.contains("alice:\n  No change."), "\(unchanged.output)")
            #expect(try await export(lockr) == first, "export, import, export gives the same document")

            // Everything tightens: it applies at once, DNS included.
            let tighter = try file(
                try edited(
                    first,
                    person("alice") { alice in
                        alice["mode"] = "extreme"
                        alice["guard"] = ["tiktok", "youtube", "instagram"]
                        var gate = alice["gate"] as! [String: Any]
                        gate["hourly"] = ["puzzle"]
                        alice["gate"] = gate
                        alice["profiles"] = [
                            ["name": "work", "block": ["video"]], ["name": "homework", "block": ["guarded"]],
                        ]
                    }))
            defer { try? FileManager.default.removeItem(atPath: tighter) }
            let checked = try await lockr.cli("config", "import", "--check", tighter)
            #expect(checked.status == 0 && checked.output.contains("Checked; nothing changed"), "\(checked.output)")
            #expect(try await export(lockr) == first, "--check changes nothing")
            let imported = try await lockr.cli("config", "import", tighter)
            #expect(imported.status == 0, "\(imported.output)")
            #expect(imported.output.contains("Now: policy.mode: hourly → extreme"), "\(imported.output)")
            #expect(imported.output.contains("Now: guard instagram: not guarded → guarded"), "\(imported.output)")
            afterImport = try await export(lockr)
            let alice = try await lockr.status(of: "alice")
            #expect(alice["mode"] as? String == "extreme", "\(alice)")
            let explained = try await lockr.cli("explain", "instagram.com", "--person", "alice")
            #expect(explained.output.contains("blocked"), "\(explained.output)")
            let defaults = try await lockr.status()
            #expect(defaults["mode"] as? String == "hourly", "the default person is left as they were")
        }
        // A restart keeps what was imported, the gate and the profiles included.
        try await PolicyEndToEndTests().withLockr(
            mode: "hourly", sections: Self.household, stateDirectory: state, timeScale: 1
        ) {
            lockr, _ in
            let restarted = try await export(lockr)
            #expect(restarted == afterImport)
        }
    }

    @Test func aBadImportChangesNothingAndNamesTheField() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.household, timeScale: 1) { lockr, _ in
            let first = try await export(lockr)
            let bad: [(String, (inout [String: Any]) -> Void, String)] = [
                (
                    "a window lockr does not take", person("alice") { $0["hourly"] = ["window_minutes": 7] },
                    "people.alice.hourly.window_minutes: must be 5, 10 or 15, not 7"
                ),
                (
                    "an unknown key", person("alice") { $0["hourly"] = ["window_minutes": 5, "windw": 1] },
                    "people.alice.hourly.windw: unknown key"
                ),
                ("a missing key", person("alice") { $0.removeValue(forKey: "gate") }, "people.alice.gate: required"),
                (
                    "an unknown mode", person("alice") { $0["mode"] = "strict" },
                    "people.alice.mode: 'strict' is not one of time, hourly, extreme"
                ),
                ("an unknown app", person("alice") { $0["guard"] = ["tiktok", "snapface"] }, "people.alice: "),
                (
                    "other devices", person("alice") { $0["devices"] = ["127.0.0.3"] },
                    "people.alice.devices: devices are changed in the config file"
                ),
                ("an unknown person", person("alice") { $0["name"] = "carol" }, "people.carol: no such person"),
                ("a later version", { $0["version"] = 2 }, "version: this lockr reads version 1, not 2"),
                (
                    "a bad schedule time",
                    person("alice") { alice in
                        var schedules = alice["schedules"] as! [[String: Any]]
                        schedules[0]["to"] = "25:00"
                        alice["schedules"] = schedules
                    }, "people.alice.schedules.0.to: '25:00' is no time"
                ),
            ]
            // The default person's part is good and would change something: it must not change either.
            let defaultTightens = person("default") { $0["mode"] = "extreme" }
            for (what, spoil, said) in bad {
                let path = try file(
                    try edited(first) {
                        defaultTightens(&$0); spoil(&$0)
                    })
                defer { try? FileManager.default.removeItem(atPath: path) }
                let refused = try await lockr.cli("config", "import", path)
                #expect(refused.status == 1, "\(what): \(refused.output)")
                #expect(refused.output.contains(said), "\(what): \(refused.output)")
                #expect(try await export(lockr) == first, "\(what) changed something")
            }
            // The daemon checks as strictly as the CLI does.
            let body = try edited(first) {
                defaultTightens(&$0); person("alice") { $0["mode"] = "strict" }(&$0)
            }
            let answer = try await PolicyEndToEndTests().api(lockr, "POST", "config", body)
            #expect(answer.status == 400 && answer.json["code"] as? String == "invalid_configuration", "\(answer)")
            #expect((answer.json["error"] as? String ?? "").hasPrefix("people.alice.mode: 'strict'"), "\(answer)")
            #expect(try await export(lockr) == first)
        }
    }
}
