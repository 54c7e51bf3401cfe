import Testing

@testable import LockrPolicy

/// `lockr config import` on the engine: a whole person's run-time settings asked for at once.
@Suite struct ImportSettingsTests {
    let start = at("2026-06-01T10:20:00Z")
    let bedtime = Schedule(name: "bedtime", days: .everyDay, from: 22 * 60, to: 7 * 60, block: ["social"])
    let work = Profile(name: "work", block: ["video"])

    func policy(_ mode: Mode = .hourly) -> PolicyEngine {
        engine(settings(mode), schedules: [bedtime], profiles: [work], now: start)
    }

    @Test func whatIsExportedImportsAsNoChange() throws {
        var policy = policy()
        _ = try policy.guardApp("whatsapp", at: start)
        // Safe search and own entries are not exported: an import leaves them as they are.
        _ = try policy.apply(.changeFilters(.add(FilterEntry(.deny, "games.example"))), at: start)
        _ = try policy.apply(.changeFilters(.safeSearch(SafeSearch(searchEngines: true))), at: start)
        try policy.defineProfile(Profile(name: "homework", block: ["messaging", "tiktok"]), at: start)
        let exported = policy.readout.runTimeSettings
        let before = policy.state
        let outcome = try policy.importSettings(exported, pin: .none, at: start)
        #expect(outcome == ChangeOutcome(applied: [], pending: []))
        #expect(policy.readout.runTimeSettings == exported)
        #expect(policy.state.overlay == before.overlay && policy.state.profiles == before.profiles)
        #expect(policy.readout.inForceNames.filters == [FilterEntry(.deny, "games.example")])
        #expect(policy.readout.inForceNames.safeSearch.searchEngines)
    }

    @Test func whatTightensAppliesAtOnce() throws {
        var policy = policy()
        var wanted = policy.readout.runTimeSettings
        wanted.mode = .extreme
        wanted.guarded.append("whatsapp")
        wanted.schedules.append(
            Schedule(name: "school", days: Weekdays("mon-fri")!, from: 8 * 60, to: 15 * 60, block: ["guarded"]))
        wanted.gate.hourly = [.puzzle]
        wanted.profiles.append(Profile(name: "homework", block: ["messaging"]))
        let outcome = try policy.importSettings(wanted, pin: .missing, at: start)
        #expect(outcome.pending.isEmpty, "tightening needs no PIN and waits for nothing")
        #expect(Set(outcome.applied.map(\.key)) == ["policy.mode", "guard", "schedule", "hourly.gate"])
        #expect(policy.settings.mode == .extreme && policy.readout.guarded.contains("whatsapp"))
        #expect(policy.settings.gate.hourly == [.puzzle])
        #expect(policy.readout.runTimeSettings == wanted)
        #expect(
            policy.state.profiles.made == [Profile(name: "homework", block: ["messaging"])],
            "the file's profile is not copied")
    }

    @Test func whatLoosensWaitsAndAppliesOnTime() throws {
        var policy = policy()
        var wanted = policy.readout.runTimeSettings
        wanted.guarded.removeAll { $0 == "tiktok" }
        wanted.hourlyWindow = .seconds(15 * 60)
        wanted.schedules = []
        let outcome = try policy.importSettings(wanted, pin: .none, at: start)
        #expect(outcome.applied.isEmpty)
        #expect(
            outcome.pending.map(\.change.description).sorted() == [
                "guard tiktok: guarded → not guarded", "hourly.window-minutes: 10 min → 15 min",
                "schedule bedtime: daily 22:00-07:00 blocks social → none",
            ])
        #expect(outcome.pending.allSatisfy { $0.appliesAt == at("2026-06-01T11:00:00Z") && !$0.awaitingSentence })
        #expect(outcome.pending.allSatisfy { $0.source == "config import" })
        #expect(policy.readout.guarded.contains("tiktok"), "still guarded until the hour is over")
        #expect(policy.readout.runTimeSettings == wanted, "what was asked for exports again")
        policy.tick(at: at("2026-06-01T11:00:00Z"))
        #expect(!policy.readout.guarded.contains("tiktok") && policy.settings.hourly.window == .seconds(15 * 60))
        #expect(policy.state.changes.pending.isEmpty)
    }

    @Test func inExtremeModeALooseningImportWaitsForTheGateAndAPinIsAsked() throws {
        var policy = policy(.extreme)
        var wanted = policy.readout.runTimeSettings
        wanted.mode = .hourly
        #expect(throws: PolicyRefusal.pinRequired) { try policy.importSettings(wanted, pin: .missing, at: start) }
        let outcome = try policy.importSettings(wanted, pin: .verified, at: start)
        #expect(outcome.pending.count == 1 && outcome.pending[0].awaitingSentence)
        policy.tick(at: start + .seconds(3 * 3600))
        #expect(policy.settings.mode == .extreme, "no sentence, no change")
    }

    @Test func aGateChangeCancelledGoesBackToTheFile() throws {
        var policy = policy()
        var wanted = policy.readout.runTimeSettings
        wanted.gate.extreme = [.phrase, .puzzle]
        wanted.gate.hourly = [.phrase]
        _ = try policy.importSettings(wanted, pin: .none, at: start)
        #expect(policy.settings.gate == wanted.gate)
        wanted.gate.hourly = []
        let loosening = try policy.importSettings(wanted, pin: .none, at: start)
        #expect(loosening.pending.map(\.change.key) == ["hourly.gate"])
        _ = try policy.apply(.cancelPending(id: loosening.pending[0].id), at: start)
        #expect(policy.settings.gate.hourly == [.phrase], "the setting stays as it is in force")
        #expect(policy.state.changes.pending.isEmpty)
        #expect(policy.state.overlay.gate?.hourly == [], "the cancelled setting is the file's again")
        #expect(policy.state.overlay.gate?.extreme == [.phrase, .puzzle], "the others stay")
        #expect(policy.state.overlay.overriddenKeys.contains("extreme.gate"))
    }

    @Test func aBadImportChangesNothingAndSaysWhatIsWrong() {
        let spoiled: [(what: String, spoil: (inout RunTimeSettings) -> Void, said: String)] = [
            ("an unknown app", { $0.guarded.append("snapface") }, "snapface"),
            ("a bad window", { $0.hourlyWindow = .seconds(7 * 60) }, "hourly window must be 5, 10 or 15 minutes"),
            ("a schedule blocking nothing", { $0.schedules[0].block = [] }, "schedule bedtime: say what it blocks"),
            ("an unknown group", { $0.profiles[0].block = ["gardening"] }, "profile work: "),
            ("a schedule twice", { $0.schedules.append($0.schedules[0]) }, "schedule bedtime is named twice"),
            ("the file's profile dropped", { $0.profiles = [] }, "profile work is defined in the config file"),
            ("a gate without steps", { $0.gate.extreme = [] }, "extreme gate must ask something"),
        ]
        for (what, spoil, said) in spoiled {
            var policy = policy()
            let before = (policy.state, policy.readout.runTimeSettings)
            var wanted = policy.readout.runTimeSettings
            wanted.mode = .extreme
            spoil(&wanted)
            do {
                _ = try policy.importSettings(wanted, pin: .none, at: start)
                Issue.record("\(what) was taken")
            } catch {
                #expect(error.description.contains(said), "\(what): \(error)")
            }
            #expect(policy.state == before.0 && policy.readout.runTimeSettings == before.1, "\(what) changed something")
        }
    }
}
