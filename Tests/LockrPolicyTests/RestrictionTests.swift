import Testing

@testable import LockrPolicy

/// Profiles and the restriction table on their own, with an injected clock.
@Suite struct RestrictionTests {
    let start = at("2026-06-01T10:00:00Z")
    let configured = [Profile(name: "homework", block: ["social"]), Profile(name: "night", block: ["guarded"])]

    @Test func madeProfilesReplaceConfiguredOnesOfTheirNameAndSwitchesKeepTheLaterEnd() {
        var profiles = Profiles()
        profiles.define(Profile(name: "homework", block: ["social", "video"]))
        profiles.define(Profile(name: "focus", block: ["tiktok"]))
        #expect(profiles.defined(configured: configured).map(\.name) == ["homework", "night", "focus"])
        #expect(profiles.defined(configured: configured)[0].block == ["social", "video"])

        let hour = start + .seconds(3600)
        #expect(profiles.switchOn("focus", until: hour, at: start)?.until == hour)
        #expect(
            profiles.switchOn("focus", until: start + .seconds(60), at: start) == nil, "an earlier end is no change")
        #expect(profiles.switchOn("focus", until: nil, at: start)?.until == nil, "until switched off outlasts any end")
        #expect(profiles.switchOn("focus", until: hour, at: start) == nil)
        _ = profiles.switchOn("night", until: start + .seconds(60), at: start)
        #expect(
            profiles.isActive("night", at: start + .seconds(59))
                && !profiles.isActive("night", at: start + .seconds(60)))
        #expect(profiles.endExpired(at: start + .seconds(60)).map(\.name) == ["night"])
        #expect(profiles.active.map(\.name) == ["focus"])
        #expect(
            profiles.status(configured: configured, at: start).map {
                "\($0.profile.name) \($0.active != nil) \($0.fromConfig)"
            }
                == ["homework false true", "night false true", "focus true false"])
        profiles.replaceMade(with: [Profile(name: "homework", block: ["social"])])
        #expect(profiles.active.isEmpty, "a profile no longer made is off")
    }

    @Test func aProfileOnBlocksLessOnlyWithThePinAndTheFilesProfilesStay() throws {
        var profiles = Profiles()
        var journal = PolicyJournal()
        let focus = Profile(name: "focus", block: ["tiktok", "youtube"])
        try profiles.define(
            focus, selectionProblem: nil, configured: configured, pinMissing: true, journal: &journal, at: start)
        #expect(throws: PolicyRefusal.nothingToDo("profile focus already blocks tiktok, youtube")) {
            try profiles.define(
                focus, selectionProblem: nil, configured: configured, pinMissing: false, journal: &journal, at: start)
        }
        #expect(throws: PolicyRefusal.invalidSettings("no app or group games")) {
            try profiles.define(
                Profile(name: "games", block: ["games"]), selectionProblem: "no app or group games",
                configured: configured, pinMissing: false, journal: &journal, at: start)
        }
        _ = try profiles.activate(
            "focus", for: .seconds(1800), configured: configured, calendar: utc, journal: &journal, at: start)
        let less = Profile(name: "focus", block: ["tiktok"])
        #expect(throws: PolicyRefusal.pinRequired, "on, blocking less needs the PIN") {
            try profiles.define(
                less, selectionProblem: nil, configured: configured, pinMissing: true, journal: &journal, at: start)
        }
        #expect(throws: PolicyRefusal.pinRequired) {
            try profiles.deactivate("focus", configured: configured, pinMissing: true, journal: &journal, at: start)
        }
        #expect(throws: PolicyRefusal.nothingToDo("profile night is defined in the config file: remove it there")) {
            try profiles.remove("night", configured: configured, pinMissing: false, journal: &journal, at: start)
        }
        #expect(throws: PolicyRefusal.invalidSettings("--for must be 1 min to 7 days")) {
            try profiles.activate(
                "night", for: .seconds(8 * 86_400), configured: configured, calendar: utc, journal: &journal, at: start)
        }
        #expect(
            try profiles.remove("focus", configured: configured, pinMissing: false, journal: &journal, at: start)
                == focus)
        #expect(profiles.made.isEmpty && profiles.active.isEmpty, "removed, and switched off first")
        #expect(
            journal.drain().map(\.detail) == [
                "profile focus blocks tiktok, youtube", "profile focus on until 10:30", "profile focus off",
                "profile focus removed",
            ])
        #expect(throws: PolicyRefusal.notFound("no profile focus; profiles: homework, night")) {
            try profiles.deactivate("focus", configured: configured, pinMissing: false, journal: &journal, at: start)
        }
    }

    @Test func aProfileActionSaysWhetherWhatProfilesBlockMayHaveChanged() throws {
        let configuration = PolicyConfiguration(
            settings: PolicySettings(calendar: utc), apps: testApps, names: NameRules(), guarded: ["tiktok"],
            schedules: [], profiles: configured, groups: ["instagram": "social"])
        var profiles = Profiles()
        var journal = PolicyJournal()
        func apply(_ action: PolicyAction) throws(PolicyRefusal) -> (outcome: ActionOutcome, blocksChanged: Bool) {
            try profiles.apply(
                action, configuration: configuration, known: testApps, calendar: utc, pinMissing: false,
                journal: &journal, at: start)
        }
        let focus = Profile(name: "focus", block: ["youtube"])
        #expect(try apply(.defineProfile(focus)) == (.profile(focus), true))
        #expect(try apply(.removeProfile(name: "focus")) == (.profile(focus), false), "it was off")
        #expect(try apply(.switchProfile(name: "homework", .toggle)) == (.switched(on: true), true))
        #expect(throws: PolicyRefusal.invalidSettings("block: no app or group 'chess' (groups: social; or guarded)")) {
            try apply(.defineProfile(Profile(name: "games", block: ["chess"])))
        }
    }

    @Test func theTableKeepsTheRestrictionThatLastsLongestAndHoldsToTheMinuteOrAProfilesEnd() throws {
        let school = schedule("school", "daily", "09:00", "12:00", block: ["tiktok", "youtube"])
        let profiles = [Profile(name: "focus", block: ["tiktok", "instagram"])]
        let now = start + .seconds(30)
        let focusEnds = start + .seconds(45)
        let expand: ([String]) -> [String] = { $0 }
        let table = RestrictionTable(
            at: now, schedules: [school], profiles: profiles,
            active: [ActiveProfile(name: "focus", since: start, until: focusEnds)], calendar: utc, apps: expand)
        #expect(table.byApp["youtube"]?.source == .schedule("school"))
        #expect(table.byApp["tiktok"]?.source == .schedule("school"), "the schedule lasts longer than the profile")
        #expect(table.byApp["instagram"] == Restriction(source: .profile("focus"), until: focusEnds))
        #expect(table.validUntil == focusEnds && table.holds(at: now) && !table.holds(at: focusEnds))
        #expect(table.profileBlocks == ["instagram"], "tiktok is the schedule's")
        #expect(table.unguardedApps(["tiktok"]) == ["instagram", "youtube"])

        let endless = RestrictionTable(
            at: now, schedules: [school], profiles: profiles,
            active: [ActiveProfile(name: "focus", since: start, until: nil)], calendar: utc, apps: expand)
        #expect(endless.byApp["tiktok"]?.source == .profile("focus"), "on until switched off outlasts the schedule")
        #expect(endless.validUntil == start + .seconds(60), "worked out again at the next minute")
    }
}
