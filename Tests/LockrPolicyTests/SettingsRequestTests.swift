import Testing

@testable import LockrPolicy

/// What each settings action asks for, as overlays, and what it refuses before anything is
/// committed: the pure part of `lockr mode`, `guard`, `settings reset` and `schedule`.
@Suite struct SettingsRequestTests {
    let bedtime = Schedule(name: "bedtime", days: .everyDay, from: 22 * 60, to: 7 * 60, block: ["social"])

    /// The configuration guards instagram and tiktok and has the bedtime schedule; `overlay` is on top.
    func request(
        overlay: SettingsOverlay = SettingsOverlay(), pending: [PendingChange] = []
    ) -> SettingsRequest {
        let configuration = PolicyConfiguration(
            settings: PolicySettings(mode: .hourly, calendar: utc), apps: testApps, names: NameRules(),
            guarded: ["instagram", "tiktok"], schedules: [bedtime], profiles: [], groups: ["instagram": "social"])
        return SettingsRequest(
            desired: configuration.protection(with: overlay, known: testApps), configuration: configuration,
            apps: testApps, pending: pending)
    }

    func pending(_ key: String, _ element: String) -> PendingChange {
        let protection = Protection(settings: PolicySettings(mode: .hourly, calendar: utc), guarded: [])
        return PendingChange(
            id: 1, change: SettingChange(key: key, element: element, from: "", to: "", loosens: true),
            source: "lockr", requested: at("2026-06-01T10:00:00Z"), appliesAt: at("2026-06-02T00:00:00Z"),
            awaitingSentence: false, target: protection)
    }

    @Test func eachSettingsActionIsItsEditAskedForByItsCommand() throws {
        let none = SettingsOverlay()
        let mode = try request().edit(.setMode(.extreme, window: .seconds(300)), from: none)
        #expect(mode.source == "lockr mode" && mode.overlay.extremeWindow == .seconds(300))
        let guarded = try request().edit(.guardApp("YouTube"), from: none)
        #expect(guarded.source == "lockr guard add" && guarded.overlay.guardAdded == ["youtube"])
        let removed = try request().edit(.removeSchedule(name: "bedtime"), from: none)
        #expect(removed.source == "lockr schedule remove" && removed.overlay.schedulesRemoved == ["bedtime"])
        #expect(throws: PolicyRefusal.nothingToDo("no setting was changed from the config file")) {
            try request().edit(.resetSettings, from: none)
        }
    }

    @Test func aModesWindowGoesToThatModesSetting() {
        let none = SettingsOverlay()
        let extreme = request().mode(.extreme, budget: nil, perApp: nil, window: .seconds(300), from: none)
        #expect(extreme.mode == .extreme && extreme.extremeWindow == .seconds(300) && extreme.hourlyWindow == nil)
        let time = request().mode(.time, budget: .seconds(1800), perApp: true, window: nil, from: none)
        #expect(time.budget == .seconds(1800) && time.perApp == true && time.hourlyWindow == nil)
    }

    @Test func guardingNamesTheAppByAnyCaseOrNameAndOnlyAddsWhatTheFileLacks() throws {
        #expect(try request().guarding("YouTube", from: SettingsOverlay()).guardAdded == ["youtube"])
        #expect(throws: PolicyRefusal.nothingToDo("tiktok is already guarded")) {
            try request().guarding("TIKTOK", from: SettingsOverlay())
        }
        // Guarding again what was unguarded takes the removal back instead of adding it.
        var unguarded = SettingsOverlay()
        unguarded.guardRemoved = ["tiktok"]
        let again = try request(overlay: unguarded).guarding("tiktok", from: unguarded)
        #expect(again.guardRemoved.isEmpty && again.guardAdded.isEmpty)
        #expect(throws: PolicyRefusal.self) { try request().guarding("snapface", from: SettingsOverlay()) }
    }

    @Test func unguardingSaysWhenItIsWaitingAlready() throws {
        #expect(try request().unguarding("tiktok", from: SettingsOverlay()).guardRemoved == ["tiktok"])
        #expect(throws: PolicyRefusal.notGuarded("youtube")) {
            try request().unguarding("youtube", from: SettingsOverlay())
        }
        var unguarded = SettingsOverlay()
        unguarded.guardRemoved = ["tiktok"]
        let waiting = request(overlay: unguarded, pending: [pending(Loosening.guardKey, "tiktok")])
        #expect(throws: PolicyRefusal.nothingToDo("tiktok is already to stop being guarded (`lockr pending list`)")) {
            try waiting.unguarding("tiktok", from: unguarded)
        }
    }

    @Test func aResetOfNothingIsRefused() throws {
        #expect(throws: PolicyRefusal.nothingToDo("no setting was changed from the config file")) {
            try request().reset(from: SettingsOverlay())
        }
        var changed = SettingsOverlay()
        changed.mode = .time
        #expect(try request(overlay: changed).reset(from: changed) == SettingsOverlay())
    }

    @Test func schedulesAreCheckedAddedAndRemoved() throws {
        #expect(throws: PolicyRefusal.nothingToDo("schedule bedtime is already \(bedtime.timesText)")) {
            try request().adding(bedtime, from: SettingsOverlay())
        }
        let unknownGroup = Schedule(name: "b", days: .everyDay, from: 60, to: 120, block: ["gambling"])
        #expect(throws: PolicyRefusal.self) { try request().adding(unknownGroup, from: SettingsOverlay()) }
        let later = Schedule(name: "bedtime", days: .everyDay, from: 23 * 60, to: 7 * 60, block: ["social"])
        #expect(try request().adding(later, from: SettingsOverlay()).schedulesAdded == [later])
        #expect(try request().removing(schedule: "bedtime", from: SettingsOverlay()).schedulesRemoved == ["bedtime"])
        #expect(throws: PolicyRefusal.notFound("no schedule lunch (`lockr schedule list` shows them)")) {
            try request().removing(schedule: "lunch", from: SettingsOverlay())
        }
        var removed = SettingsOverlay()
        removed.schedulesRemoved = ["bedtime"]
        let waiting = request(overlay: removed, pending: [pending(Loosening.scheduleKey, "bedtime")])
        #expect(throws: PolicyRefusal.nothingToDo("schedule bedtime is already to be removed (`lockr pending list`)")) {
            try waiting.removing(schedule: "bedtime", from: removed)
        }
    }

    /// Own entries: added (again, with another comment: the comment changes), removed, and refused
    /// when there is nothing to do; safe search set as a whole.
    @Test func filterEntriesAreAddedRecommentedAndRemoved() throws {
        let none = SettingsOverlay()
        let deny = FilterEntry(.deny, "games.example", comment: "homework first")
        let added = try request().edit(.changeFilters(.add(deny)), from: none)
        #expect(added.source == "lockr filters" && added.overlay.filters == [deny])
        #expect(throws: PolicyRefusal.nothingToDo("deny games.example is already there")) {
            try request(overlay: added.overlay).changing(.add(deny), from: added.overlay)
        }
        let recommented = try request(overlay: added.overlay).changing(
            .add(FilterEntry(.deny, "games.example", comment: "weekdays")), from: added.overlay)
        #expect(recommented.filters?.map(\.comment) == ["weekdays"])
        let removed = try request(overlay: added.overlay).changing(
            .remove(.deny, value: "games.example"), from: added.overlay)
        #expect(removed.filters == [])
        #expect(throws: PolicyRefusal.notFound("no allow entry games.example (`lockr filters` shows them)")) {
            try request(overlay: added.overlay).changing(.remove(.allow, value: "games.example"), from: added.overlay)
        }
        let waiting = request(overlay: removed, pending: [pending("deny", "games.example")])
        #expect(throws: PolicyRefusal.nothingToDo("deny games.example is already to be removed (`lockr pending list`)"))
        {
            try waiting.changing(.remove(.deny, value: "games.example"), from: removed)
        }
        let strict = SafeSearch(searchEngines: true, youtube: .strict)
        #expect(try request().changing(.safeSearch(strict), from: none).safeSearch == strict)
        #expect(throws: PolicyRefusal.nothingToDo("safe search is already off")) {
            try request().changing(.safeSearch(SafeSearch()), from: none)
        }
    }
}
