import Testing

@testable import LockrPolicy

/// The settings in force and what holds them there, with no engine around them: tightening
/// applies at once, loosening waits for the mode's reset (and the commitment delay), a reload keeps
/// what the control API set on top, and a waiting change can be taken back.
@Suite struct CommitmentsTests {
    let start = at("2026-06-01T12:10:00Z")

    func configuration(_ mode: Mode, _ change: (inout PolicySettings) -> Void = { _ in }) -> PolicyConfiguration {
        PolicyConfiguration(
            settings: settings(mode, change), apps: testApps, names: NameRules(), guarded: ["tiktok"], schedules: [],
            profiles: [], groups: [:])
    }

    func fresh(_ mode: Mode) -> (Commitments, PolicyState) {
        var state = PolicyState(today: DayRecord(day: utc.day(containing: start)), lastSeen: start)
        let commitments = Commitments(configuration: configuration(mode), state: &state)
        return (commitments, state)
    }

    @Test func aFirstStartTakesTheConfigurationAsItIs() {
        let (commitments, state) = fresh(.hourly)
        #expect(state.inForce?.settings.mode == .hourly)
        #expect(commitments.settings.mode == .hourly && commitments.guarded == ["tiktok"])
        #expect(commitments.guardedSet == ["tiktok"])
    }

    @Test func anActionReachesTheGuardedAppItNamesOrEveryOne() throws {
        let (commitments, _) = fresh(.hourly)
        #expect(try commitments.targets("TikTok") == ("tiktok", ["tiktok"]))
        #expect(try commitments.targets(nil) == (nil, ["tiktok"]))
        #expect(throws: PolicyRefusal.notGuarded("youtube")) { try commitments.targets("youtube") }
        #expect(throws: PolicyRefusal.unknownApp("tiktk", suggestion: "tiktok")) { try commitments.targets("tiktk") }
        #expect(try commitments.appID("YouTube") == "youtube" && commitments.appID(nil) == nil)
    }

    @Test func tighteningAppliesAtOnceAndLooseningWaitsForTheModesReset() throws {
        var (commitments, state) = fresh(.time)
        var journal = PolicyJournal()
        var overlay = SettingsOverlay()
        overlay.mode = .extreme
        let tighter = commitments.commit(
            overlay, &state, source: "lockr mode", gated: false, journal: &journal, at: start)
        #expect(tighter.applied.map(\.key) == ["policy.mode"] && tighter.pending.isEmpty)
        #expect(commitments.settings.mode == .extreme)

        overlay.mode = .time
        #expect(throws: PolicyRefusal.pinRequired) { try commitments.asksToLoosen(overlay, state, pinMissing: true) }
        #expect(try commitments.asksToLoosen(overlay, state, pinMissing: false))
        let looser = commitments.commit(
            overlay, &state, source: "lockr mode", gated: true, journal: &journal, at: start)
        let waiting = try #require(looser.pending.first)
        // Extreme mode resets at the next clock hour.
        #expect(waiting.appliesAt == at("2026-06-01T13:00:00Z") && !waiting.awaitingSentence)
        #expect(commitments.settings.mode == .extreme, "still in force until then")
        #expect(!commitments.applyDue(&state, journal: &journal, at: at("2026-06-01T12:59:59Z")))
        #expect(commitments.applyDue(&state, journal: &journal, at: at("2026-06-01T13:00:00Z")))
        #expect(commitments.settings.mode == .time)
    }

    @Test func theGatesTimeIsTheModesResetAndNoSoonerThanTheDelay() {
        let (hourly, state) = fresh(.hourly)
        #expect(hourly.gateTime(state.today, at: start) == at("2026-06-01T13:00:00Z"))
        let (time, _) = fresh(.time)
        #expect(time.gateTime(state.today, at: start) == at("2026-06-02T00:00:00Z"))
        var delayed = PolicyState(today: state.today, lastSeen: start)
        let slow = Commitments(
            configuration: configuration(.hourly) { $0.commitmentDelay = .seconds(2 * 86_400) }, state: &delayed)
        #expect(slow.gateTime(state.today, at: start) == start + .seconds(2 * 86_400))
    }

    @Test func aWaitingChangeIsTakenBackAndAnUnknownOneSaysSo() throws {
        var (commitments, state) = fresh(.extreme)
        var journal = PolicyJournal()
        var overlay = SettingsOverlay()
        overlay.mode = .hourly
        let asked = commitments.commit(overlay, &state, source: "lockr mode", gated: true, journal: &journal, at: start)
        let id = try #require(asked.pending.first).id
        let cancelled = try commitments.cancel(id, &state, gated: true, journal: &journal, at: start)
        #expect(cancelled.id == id && state.changes.pending.isEmpty && state.overlay.mode == nil)
        #expect(throws: PolicyRefusal.nothingToDo("no pending change #\(id) (`lockr pending list` shows them)")) {
            try commitments.cancel(id, &state, gated: true, journal: &journal, at: start)
        }
    }

    @Test func aReloadKeepsWhatTheControlAPISetAndSaysSo() {
        var (commitments, state) = fresh(.hourly)
        var journal = PolicyJournal()
        var overlay = SettingsOverlay()
        overlay.mode = .extreme
        _ = commitments.commit(overlay, &state, source: "lockr mode", gated: false, journal: &journal, at: start)
        let notes = commitments.rebase(
            configuration(.time), guarded: ["tiktok", "youtube"], &state, gated: true, journal: &journal, at: start)
        #expect(
            notes.count == 1 && notes[0].hasPrefix("policy.mode changed in the config file, but `lockr mode` set it"))
        #expect(commitments.settings.mode == .extreme)
        #expect(commitments.guarded == ["tiktok", "youtube"], "guarding more applies at once")
        // Safe search set at run time stays on top of the file's, and the note names its command.
        overlay.safeSearch = SafeSearch(searchEngines: true)
        _ = commitments.commit(overlay, &state, source: "lockr filters", gated: false, journal: &journal, at: start)
        var safe = configuration(.time)
        safe.names.safeSearch = SafeSearch(searchEngines: false, youtube: .strict)
        let safeNotes = commitments.rebase(
            safe, guarded: ["tiktok", "youtube"], &state, gated: true, journal: &journal, at: start)
        #expect(
            safeNotes == [
                "youtube changed in the config file, but `lockr filters safe-search` set it and stays in force; "
                    + "`lockr settings reset` goes back to the file"
            ], "\(safeNotes)")
    }

    @Test func aLooseningRequestNeedsThePinAndTheGateBeforeAnythingChanges() throws {
        var state = PolicyState(today: DayRecord(day: utc.day(containing: start)), lastSeen: start)
        var commitments = Commitments(
            configuration: configuration(.extreme) { $0.gate.extreme = [.phrase] }, state: &state)
        state.pin = PinRecord(salt: [1], hash: [2], rounds: 1, blockSize: 1, parallelism: 1)
        var journal = PolicyJournal()
        let loosen = PolicyAction.setMode(.time)
        #expect(throws: PolicyRefusal.pinRequired) {
            try commitments.request(loosen, Credentials(pin: .missing), &state, journal: &journal, at: start)
        }
        #expect(throws: PolicyRefusal.self) {
            try commitments.request(
                loosen, Credentials(phrase: "wrong", pin: .verified), &state, journal: &journal, at: start)
        }
        #expect(state.overlay == SettingsOverlay() && state.changes.pending.isEmpty, "refused: nothing changed")
        let sentence = commitments.settings.extreme.sentence(opening: commitments.settings.windowLength)
        let asked = try commitments.request(
            loosen, Credentials(phrase: sentence, pin: .verified), &state, journal: &journal, at: start)
        #expect(asked.applied.isEmpty && asked.pending.map(\.change.key) == ["policy.mode"])
        // Tightening back needs neither.
        let back = try commitments.request(.setMode(.extreme), .none, &state, journal: &journal, at: start)
        #expect(back.cancelled.count == 1 && state.changes.pending.isEmpty)
    }

    @Test func aConfigFilesLooseningChangeIsConfirmedWithTheGate() throws {
        var state = PolicyState(today: DayRecord(day: utc.day(containing: start)), lastSeen: start)
        var commitments = Commitments(
            configuration: configuration(.extreme) { $0.gate.extreme = [.phrase] }, state: &state)
        var journal = PolicyJournal()
        _ = commitments.rebase(
            configuration(.time) { $0.gate.extreme = [.phrase] }, guarded: ["tiktok"], &state, gated: true,
            journal: &journal, at: start)
        let waiting = try #require(state.changes.pending.first)
        #expect(waiting.awaitingSentence)
        let sentence = commitments.settings.extreme.sentence(opening: commitments.settings.windowLength)
        #expect(throws: PolicyRefusal.self) {
            try commitments.confirm(waiting.id, Credentials(phrase: "no"), &state, journal: &journal, at: start)
        }
        let confirmed = try commitments.confirm(
            waiting.id, Credentials(phrase: sentence), &state, journal: &journal, at: start)
        #expect(!confirmed.awaitingSentence && confirmed.id == waiting.id)
        #expect(throws: PolicyRefusal.self) {
            try commitments.confirm(waiting.id, Credentials(phrase: sentence), &state, journal: &journal, at: start)
        }
    }

    /// A person's own entries: a deny entry applies at once, its removal waits for the mode's reset
    /// like an allow entry's addition, and a cancelled removal leaves it as it is in force, comment
    /// and all.
    @Test func ownEntriesThatBlockApplyAtOnceAndThoseThatFreeWait() throws {
        var (commitments, state) = fresh(.hourly)
        var journal = PolicyJournal()
        func entries(_ state: PolicyState) -> [FilterEntry] { commitments.inForce(state).names?.filters ?? [] }
        let deny = FilterEntry(.deny, "games.example", comment: "homework first")
        var overlay = SettingsOverlay()
        overlay.filters = [deny]
        let denied = commitments.commit(
            overlay, &state, source: "lockr filters", gated: false, journal: &journal, at: start)
        #expect(denied.applied.map(\.description) == ["deny games.example: not listed → listed (homework first)"])
        #expect(entries(state) == [deny])

        let allow = FilterEntry(.allow, "|school.example^", comment: "lessons")
        overlay.filters = [allow]
        let freeing = commitments.commit(
            overlay, &state, source: "lockr filters", gated: false, journal: &journal, at: start)
        #expect(freeing.applied.isEmpty && freeing.pending.count == 2)
        #expect(entries(state) == [deny], "nothing freed before the hour is over")
        let removal = try #require(freeing.pending.first { $0.change.key == "deny" })
        _ = try commitments.cancel(removal.id, &state, gated: false, journal: &journal, at: start)
        #expect(state.overlay.filters?.contains(deny) == true, "the cancelled removal takes the entry back")
        #expect(commitments.applyDue(&state, journal: &journal, at: at("2026-06-01T13:00:00Z")))
        #expect(entries(state) == [deny, allow])
    }
}
