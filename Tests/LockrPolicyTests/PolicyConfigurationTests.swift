import Testing

@testable import LockrPolicy

/// The configuration file's side of a person's policy, and an import turned into an overlay on it.
@Suite struct PolicyConfigurationTests {
    let bedtime = Schedule(name: "bedtime", days: .everyDay, from: 22 * 60, to: 7 * 60, block: ["social"])
    let work = Profile(name: "work", block: ["video"])

    var configuration: PolicyConfiguration {
        PolicyConfiguration(
            settings: settings(.hourly), apps: testApps, names: NameRules(),
            guarded: ["tiktok", "snapchat", "youtube"],
            schedules: [bedtime], profiles: [work], groups: testGroups)
    }

    /// What the configuration says, as an import would ask for it.
    var unchanged: RunTimeSettings {
        let settings = configuration.settings
        return RunTimeSettings(
            mode: settings.mode, budget: settings.time.budget, perApp: settings.time.perApp,
            hourlyWindow: settings.hourly.window, extremeWindow: settings.extreme.window,
            guarded: configuration.guarded, schedules: [bedtime], profiles: [work], gate: settings.gate)
    }

    @Test func onlyKnownAppsAreGuarded() {
        #expect(configuration.guarded == ["tiktok", "youtube"])
    }

    @Test func anImportSetsOnlyWhatDiffersFromTheFile() throws {
        #expect(try configuration.overlay(for: unchanged, known: testApps) == SettingsOverlay())
        var wanted = unchanged
        wanted.mode = .extreme
        wanted.guarded = ["YouTube", "whatsapp", "youtube"]
        wanted.schedules = []
        let overlay = try configuration.overlay(for: wanted, known: testApps)
        var expected = SettingsOverlay()
        expected.mode = .extreme
        expected.guardAdded = ["whatsapp"]
        expected.guardRemoved = ["tiktok"]
        expected.schedulesRemoved = ["bedtime"]
        #expect(overlay == expected, "display names and ids name the same app once")
        let protection = configuration.protection(with: overlay, known: testApps)
        #expect(protection.settings.mode == .extreme && protection.guarded == ["youtube", "whatsapp"])
        #expect(protection.schedules == [])
    }

    @Test func whatAnImportMayNotAskIsRefusedNamingIt() {
        var unknownApp = unchanged
        unknownApp.guarded.append("snapchat")
        var twice = unchanged
        twice.schedules.append(bedtime)
        var unknownGroup = unchanged
        unknownGroup.schedules = [Schedule(name: "late", days: .everyDay, from: 0, to: 60, block: ["games"])]
        for (wanted, words) in [(unknownApp, "snapchat"), (twice, "bedtime is named twice"), (unknownGroup, "games")] {
            #expect {
                try configuration.overlay(for: wanted, known: testApps)
            } throws: { error in
                "\(error)".contains(words)
            }
        }
    }

    @Test func theFilesProfilesStayAndOnlyOthersAreKeptAsMade() throws {
        let homework = Profile(name: "homework", block: ["messaging"])
        #expect(try configuration.profilesMade(for: [work, homework], known: testApps) == [homework])
        #expect(
            throws: PolicyRefusal.invalidSettings(
                "profile work is defined in the config file: it cannot be removed by an import")
        ) {
            try configuration.profilesMade(for: [homework], known: testApps)
        }
        #expect(throws: PolicyRefusal.invalidSettings("profile homework is named twice")) {
            try configuration.profilesMade(for: [work, homework, homework], known: testApps)
        }
    }
}
