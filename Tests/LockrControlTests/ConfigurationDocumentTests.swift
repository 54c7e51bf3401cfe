import Foundation
import LockrAPI
import LockrControl
import LockrPolicy
import Testing

/// Reading `lockr config import`'s document: strict, every problem named by its place, and no
/// number used before it is checked.
@Suite struct ConfigurationDocumentTests {
    let settings = RunTimeSettings(
        mode: .hourly, budget: .seconds(30 * 60), perApp: false, hourlyWindow: .seconds(600),
        extremeWindow: .seconds(900), guarded: ["tiktok"],
        schedules: [Schedule(name: "bedtime", days: .everyDay, from: 22 * 60, to: 7 * 60, block: ["social"])],
        profiles: [Profile(name: "work", block: ["video"])], gate: GateSettings())

    var written: [String: Any] {
        let document = Components.Schemas.ConfigurationDocument(
            people: [
                Components.Schemas.PersonConfiguration(name: "alice", devices: ["192.168.1.20"], settings: settings)
            ])
        let data = try! ControlJSON.encoder().encode(document)
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    func read(_ edit: (inout [String: Any]) -> Void) -> Result<RunTimeSettings, ConfigurationProblem> {
        var tree = written
        edit(&tree)
        let data = try! JSONSerialization.data(withJSONObject: tree)
        do throws(ConfigurationProblem) {
            return .success(try Components.Schemas.ConfigurationDocument.read(data).people[0].settings())
        } catch {
            return .failure(error)
        }
    }

    func alice(_ edit: @escaping (inout [String: Any]) -> Void) -> (inout [String: Any]) -> Void {
        { tree in
            var people = tree["people"] as! [[String: Any]]
            edit(&people[0])
            tree["people"] = people
        }
    }

    @Test func whatIsWrittenReadsBackAsItWas() throws {
        #expect(try read { _ in }.get() == settings)
    }

    @Test func eachProblemIsNamedByItsPlace() {
        let cases: [(String, (inout [String: Any]) -> Void)] = [
            (
                "people.alice.time.budget_minutes: must be 5 to 180, not 9000000000000000000",
                alice { $0["time"] = ["budget_minutes": 9_000_000_000_000_000_000, "per_app": false] }
            ),
            (
                "people.alice.time.budget_minutes: must be 5 to 180, not -30",
                alice { $0["time"] = ["budget_minutes": -30, "per_app": false] }
            ),
            (
                "people.alice.time.budget_minutes: must be a whole number",
                alice { $0["time"] = ["budget_minutes": "30", "per_app": false] }
            ),
            (
                "people.alice.gate.puzzles.time_limit_seconds: must be 10 to 3600, not 1000000000",
                alice { alice in
                    var gate = alice["gate"] as! [String: Any]
                    gate["puzzles"] = [
                        "kinds": ["chess"], "difficulty": "easy", "count": 1, "time_limit_seconds": 1_000_000_000,
                    ]
                    alice["gate"] = gate
                }
            ),
            (
                "people.alice.gate.puzzles.kinds.0: 'sudoku' is not one of arithmetic, chess",
                alice { alice in
                    var gate = alice["gate"] as! [String: Any]
                    gate["puzzles"] = ["kinds": ["sudoku"], "difficulty": "easy", "count": 1, "time_limit_seconds": 60]
                    alice["gate"] = gate
                }
            ),
            (
                "people.alice.gate.puzzles.level: unknown key",
                alice { alice in
                    var gate = alice["gate"] as! [String: Any]
                    gate["puzzles"] = [
                        "kinds": ["chess"], "difficulty": "easy", "count": 1, "time_limit_seconds": 60, "level": 2,
                    ]
                    alice["gate"] = gate
                }
            ),
            (
                "people.alice.schedules.0.name: required",
                alice { $0["schedules"] = [["days": "daily", "from": "22:00", "to": "07:00", "block": ["social"]]] }
            ),
            (
                "people.alice.schedules.0.days: 'someday' is no days",
                alice {
                    $0["schedules"] = [
                        ["name": "b", "days": "someday", "from": "22:00", "to": "07:00", "block": ["social"]]
                    ]
                }
            ),
            ("people.alice.mode: 'strict' is not one of time, hourly, extreme", alice { $0["mode"] = "strict" }),
            (
                "people.alice.hourly.window_minutes: must be 5, 10 or 15, not 7",
                alice { $0["hourly"] = ["window_minutes": 7] }
            ),
            ("comment: unknown key", { $0["comment"] = "mine" }),
            ("people.alice: named twice", { $0["people"] = ($0["people"] as! [Any]) + ($0["people"] as! [Any]) }),
            ("version: this lockr reads version 1, not 7", { $0["version"] = 7 }),
            ("version: required", { $0.removeValue(forKey: "version") }),
        ]
        for (said, edit) in cases {
            switch read(edit) {
            case .success: Issue.record("taken: \(said)")
            case .failure(let problem): #expect(problem.description.hasPrefix(said), "\(problem)")
            }
        }
    }

    @Test func whatIsNoJSONIsSaidSo() {
        #expect(throws: ConfigurationProblem.self) {
            try Components.Schemas.ConfigurationDocument.read(Data("{\"version\": 1,".utf8))
        }
        #expect(throws: ConfigurationProblem.self) {
            try Components.Schemas.ConfigurationDocument.read(Data("[]".utf8))
        }
    }
}
