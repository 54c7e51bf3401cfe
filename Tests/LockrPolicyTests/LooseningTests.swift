import CivilTime
import Foundation
import LockrPuzzles
import Testing

@testable import LockrPolicy

/// `Loosening.changes` is the one place that decides what loosens: a table over every setting.
@Suite struct LooseningTests {
    typealias Change = @Sendable (inout PolicySettings) -> Void

    /// For every setting: a change that loosens it, and one that does not (nil: every change loosens).
    static let table: [(key: String, looser: Change, tighter: Change?)] = [
        ("policy.mode", { $0.mode = .time }, { $0.mode = .extreme }),
        (
            "policy.time-zone",
            { $0.calendar = DayCalendar(zone: try! ZoneDatabase().zone("Asia/Tokyo"), dayStartMinutes: 240) }, nil
        ),
        ("policy.day-start", { $0.calendar = DayCalendar(zone: $0.calendar.zone, dayStartMinutes: 300) }, nil),
        ("policy.max-ttl", { $0.maximumTTL = .seconds(60) }, { $0.maximumTTL = .seconds(10) }),
        (
            "policy.commitment-delay", { $0.commitmentDelay = .seconds(3600) },
            { $0.commitmentDelay = .seconds(3 * 86_400) }
        ),
        ("time.budget-minutes", { $0.time.budget = .seconds(45 * 60) }, { $0.time.budget = .seconds(20 * 60) }),
        ("time.per-app", { $0.time.perApp = true }, nil),
        ("time.slice-seconds", { $0.time.metering.slice = .seconds(20) }, nil),
        ("time.min-queries", { $0.time.metering.minimumQueries = 5 }, { $0.time.metering.minimumQueries = 2 }),
        ("time.neighbourhood", { $0.time.metering.neighbourhood = 1 }, { $0.time.metering.neighbourhood = 4 }),
        ("time.grace-seconds", { $0.time.metering.grace = .seconds(10) }, { $0.time.metering.grace = .seconds(60) }),
        ("hourly.window-minutes", { $0.hourly.window = .seconds(900) }, { $0.hourly.window = .seconds(300) }),
        ("hourly.open-on-first-query", { $0.hourly.openOnFirstQuery = true }, nil),
        ("extreme.phrase", { $0.extreme.phrase = "ok" }, { $0.extreme.phrase += " Really, truly, I want it." }),
        ("extreme.strictness", { $0.extreme.strictness = .lenient }, { $0.extreme.strictness = .strict }),
        ("extreme.window-minutes", { $0.extreme.window = .seconds(900) }, { $0.extreme.window = .seconds(300) }),
        ("snooze.minutes", { $0.snooze.length = .seconds(600) }, { $0.snooze.length = .seconds(60) }),
        ("snooze.per-day", { $0.snooze.perDay = 5 }, { $0.snooze.perDay = 1 }),
        ("extend.minutes", { $0.extend.length = .seconds(1200) }, { $0.extend.length = .seconds(300) }),
        ("extend.per-day", { $0.extend.perDay = 2 }, { $0.extend.perDay = 0 }),
        ("emergency.minutes", { $0.emergency.length = .seconds(600) }, { $0.emergency.length = .seconds(120) }),
        ("emergency.per-day", { $0.emergency.perDay = 3 }, { $0.emergency.perDay = 1 }),
        ("emergency.hold-seconds", { $0.emergencyHold = .seconds(3) }, { $0.emergencyHold = .seconds(15) }),
        ("time.gate", { $0.gate.time = [] }, { $0.gate.time = [.puzzle, .phrase] }),
        ("hourly.gate", { $0.gate.hourly = [.phrase] }, { $0.gate.hourly = [.voice, .puzzle] }),
        ("extreme.gate", { $0.gate.extreme = [.puzzle] }, { $0.gate.extreme = [.voice, .puzzle] }),
        ("extreme.input", { $0.gate.input = .typed }, nil),
        ("extreme.typed-fallback-steps", { $0.gate.typedFallbackSteps = 0 }, { $0.gate.typedFallbackSteps = 3 }),
        ("puzzles.kinds", { $0.gate.puzzles.kinds = [.arithmetic] }, nil),
        ("puzzles.difficulty", { $0.gate.puzzles.difficulty = .easy }, { $0.gate.puzzles.difficulty = .hard }),
        ("puzzles.count", { $0.gate.puzzles.count = 1 }, { $0.gate.puzzles.count = 3 }),
        (
            "puzzles.time-limit", { $0.gate.puzzles.timeLimit = .seconds(600) },
            { $0.gate.puzzles.timeLimit = .seconds(30) }
        ),
    ]

    /// The base everything is compared with: hourly mode, 10-minute windows, a one-day delay.
    static let base: PolicySettings = {
        var settings = PolicySettings(
            mode: .hourly, calendar: DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin"), dayStartMinutes: 240)
        )
        settings.commitmentDelay = .seconds(86_400)
        settings.extreme.window = .seconds(600)
        settings.gate = GateSettings(
            time: [.puzzle], hourly: [.phrase, .puzzle], extreme: [.phrase, .puzzle], input: .voice,
            puzzles: PuzzleSettings(difficulty: .medium, count: 2))
        return settings
    }()

    func changes(_ change: Change, guarded: [String] = ["tiktok"]) -> [SettingChange] {
        var settings = Self.base
        change(&settings)
        return Loosening.changes(
            from: Protection(settings: Self.base, guarded: ["tiktok"]),
            to: Protection(settings: settings, guarded: guarded))
    }

    @Test func everySettingIsInTheTable() {
        #expect(Set(Self.table.map(\.key)) == Set(Loosening.settings.map(\.key)))
        // Every field of the settings is one of the compared settings (a new field must be added).
        #expect(Self.leaves(of: Self.base) == Loosening.settings.count)
    }

    @Test(arguments: LooseningTests.table.indices)
    func eachSettingLoosensOneWayOnly(_ index: Int) {
        let row = Self.table[index]
        let looser = changes(row.looser)
        #expect(looser.count == 1 && looser[0].key == row.key && looser[0].loosens, "\(row.key): \(looser)")
        if let tighter = row.tighter {
            let result = changes(tighter)
            #expect(result.count == 1 && result[0].key == row.key && !result[0].loosens, "\(row.key): \(result)")
        }
    }

    @Test func modesLooseningAndTightening() {
        func loosens(_ from: Mode, _ to: Mode) -> Bool { Loosening.modeLoosens(from, to) }
        #expect(loosens(.extreme, .hourly) && loosens(.extreme, .time))
        #expect(loosens(.hourly, .time) && loosens(.time, .hourly))
        #expect(!loosens(.time, .extreme) && !loosens(.hourly, .extreme) && !loosens(.hourly, .hourly))
    }

    @Test func fewerGuardedAppsLoosenAndMoreTighten() {
        let fewer = changes({ _ in }, guarded: [])
        #expect(fewer.map(\.description) == ["guard tiktok: guarded → not guarded"] && fewer[0].loosens)
        let more = changes({ _ in }, guarded: ["tiktok", "reddit"])
        #expect(more.map(\.description) == ["guard reddit: not guarded → guarded"] && !more[0].loosens)
    }

    @Test func applyingAChangeCopiesOnlyThatSetting() {
        var target = Self.base
        target.time.budget = .seconds(3600)
        target.hourly.window = .seconds(900)
        let old = Protection(settings: Self.base, guarded: ["tiktok", "youtube"])
        let new = Protection(settings: target, guarded: ["tiktok"])
        let changes = Loosening.changes(from: old, to: new)
        #expect(changes.map(\.key) == ["time.budget-minutes", "hourly.window-minutes", "guard"])
        let budgetOnly = Loosening.applying(changes[0], to: old, from: new)
        #expect(budgetOnly.settings.time.budget == .seconds(3600))
        #expect(budgetOnly.settings.hourly.window == Self.base.hourly.window)
        #expect(budgetOnly.guarded == ["tiktok", "youtube"])
        #expect(Loosening.applying(changes[2], to: old, from: new).guarded == ["tiktok"])
    }

    /// The names in force: one custom app with two domains, one always-allowed app, anti-bypass on.
    static let names = NameRules(
        customApps: ["news": ["news.example", "*.news.example"]], alwaysAllow: ["whatsapp"], antiBypass: true,
        filters: [
            FilterEntry(.deny, "games.example", comment: "homework first"),
            FilterEntry(.allow, "|school.example^"),
            FilterEntry(.blocklist, "https://lists.example/ads.txt"),
        ])

    func nameChanges(_ change: (inout NameRules) -> Void) -> [SettingChange] {
        var names = Self.names
        change(&names)
        return Loosening.changes(
            from: Protection(settings: Self.base, guarded: ["news"], names: Self.names),
            to: Protection(settings: Self.base, guarded: ["news"], names: names))
    }

    /// Every field of `NameRules`, each way: what frees a name loosens, what claims one tightens.
    @Test func namesLoosenWhenTheyFreeANameAndTightenWhenTheyClaimOne() {
        #expect(Mirror(reflecting: Self.names).children.count == 5, "a new field needs a row here")
        let cases: [(change: (inout NameRules) -> Void, description: String, loosens: Bool)] = [
            ({ $0.alwaysAllow.append("cdn.example") }, "always-allow cdn.example: not allowed → always allowed", true),
            ({ $0.alwaysAllow = [] }, "always-allow whatsapp: always allowed → not allowed", false),
            ({ $0.customApps["news"] = ["news.example"] }, "apps.news *.news.example: listed → not listed", true),
            ({ $0.customApps["news"]!.append("news.test") }, "apps.news news.test: not listed → listed", false),
            ({ $0.customApps["blog"] = ["blog.example"] }, "apps.blog blog.example: not listed → listed", false),
            ({ $0.antiBypass = false }, "blocking.anti-bypass: on → off", true),
            ({ $0.safeSearch.youtube = .strict }, "youtube: off → strict", false),
            ({ $0.filters.removeFirst() }, "deny games.example: listed (homework first) → not listed", true),
            (
                { $0.filters.append(FilterEntry(.deny, "*.chat.example")) }, "deny *.chat.example: not listed → listed",
                false
            ),
            ({ $0.filters.remove(at: 1) }, "allow |school.example^: listed → not listed", false),
            (
                { $0.filters.append(FilterEntry(.allow, "/^video[0-9]+\\./", comment: "lessons")) },
                "allow /^video[0-9]+\\./: not listed → listed (lessons)", true
            ),
            ({ $0.filters.remove(at: 2) }, "blocklist https://lists.example/ads.txt: listed → not listed", true),
            (
                { $0.filters.append(FilterEntry(.allowlist, "https://lists.example/ok.txt")) },
                "allowlist https://lists.example/ok.txt: not listed → listed", true
            ),
            ({ $0.filters[0].comment = "" }, "deny games.example: listed (homework first) → listed", false),
        ]
        for (change, description, loosens) in cases {
            let changes = nameChanges(change)
            #expect(changes.map(\.description) == [description])
            #expect(changes.first?.loosens == loosens, "\(description)")
        }
        var on = Self.names
        on.antiBypass = false
        let switchedOn = Loosening.changes(
            from: Protection(settings: Self.base, guarded: [], names: on),
            to: Protection(settings: Self.base, guarded: [], names: Self.names))
        #expect(switchedOn.map(\.loosens) == [false])
        // An app dropped from [apps]: each of its domains is a loosening change of its own.
        let dropped = nameChanges { $0.customApps = [:] }
        #expect(dropped.count == 2 && dropped.allSatisfy(\.loosens) && dropped.allSatisfy { $0.app == "news" })
    }

    /// Safe search: off or milder loosens, on or stricter tightens; YouTube left unset follows the
    /// search engines, so switching them off is two changes that wait.
    @Test func safeSearchOffOrMilderLoosens() {
        func changes(_ from: SafeSearch, _ to: SafeSearch) -> [SettingChange] {
            Loosening.changes(
                from: Protection(settings: Self.base, guarded: [], names: NameRules(safeSearch: from)),
                to: Protection(settings: Self.base, guarded: [], names: NameRules(safeSearch: to)))
        }
        let on = SafeSearch(searchEngines: true)
        let off = changes(on, SafeSearch())
        #expect(off.map(\.description) == ["safe-search: on → off", "youtube: moderate → off"])
        #expect(off.allSatisfy { $0.loosens })
        #expect(changes(SafeSearch(), on).map(\.loosens) == [false, false])
        let milder = changes(SafeSearch(searchEngines: true, youtube: .strict), on)
        #expect(milder.map(\.description) == ["youtube: strict → moderate"] && milder[0].loosens)
        #expect(changes(on, SafeSearch(searchEngines: true, youtube: .moderate)).isEmpty, "the same level in force")
        // Applied one at a time, each copies only its own part.
        let old = Protection(settings: Self.base, guarded: [], names: NameRules(safeSearch: on))
        let new = Protection(settings: Self.base, guarded: [], names: NameRules())
        let first = Loosening.applying(off[0], to: old, from: new)
        #expect(first.names?.safeSearch.searchEngines == false && first.names?.safeSearch.youtubeLevel == .moderate)
        let both = Loosening.applying(off[1], to: first, from: new)
        #expect(both.names?.safeSearch.isOn == false)
    }

    @Test func aStoreWithoutSafeSearchReadsItAsOff() throws {
        let older = #"{"customApps":{},"alwaysAllow":["x.example"],"antiBypass":false}"#
        let names = try JSONDecoder().decode(NameRules.self, from: Data(older.utf8))
        #expect(names == NameRules(alwaysAllow: ["x.example"], antiBypass: false, safeSearch: SafeSearch()))
    }

    @Test func applyingANameChangeCopiesOnlyThatEntry() {
        var target = Self.names
        target.customApps["news"] = ["news.test"]
        target.alwaysAllow = []
        let old = Protection(settings: Self.base, guarded: ["news"], names: Self.names)
        let new = Protection(settings: Self.base, guarded: ["news"], names: target)
        let changes = Loosening.changes(from: old, to: new)
        #expect(
            changes.map(\.description) == [
                "always-allow whatsapp: always allowed → not allowed", "apps.news news.example: listed → not listed",
                "apps.news *.news.example: listed → not listed", "apps.news news.test: not listed → listed",
            ])
        var step = old
        for change in changes.filter({ !$0.loosens }) { step = Loosening.applying(change, to: step, from: new) }
        #expect(
            step.names
                == NameRules(
                    customApps: ["news": ["news.example", "*.news.example", "news.test"]], alwaysAllow: [],
                    filters: Self.names.filters))
        for change in changes.filter(\.loosens) { step = Loosening.applying(change, to: step, from: new) }
        #expect(step.names == target)
        // The last domain of an app gone: the app is gone.
        let emptied = Loosening.changes(
            from: new, to: Protection(settings: Self.base, guarded: ["news"], names: NameRules()))
        var last = new
        for change in emptied {
            last = Loosening.applying(change, to: last, from: Protection(settings: Self.base, guarded: []))
        }
        #expect(last.names?.customApps.isEmpty == true)
    }

    /// Fields of `value`, counted to the leaves (a calendar is its time zone and day start).
    static func leaves(of value: Any) -> Int {
        switch value {
        case is Duration, is Int, is Bool, is String, is Mode, is Strictness, is [GateStep], is SentenceInput,
            is [PuzzleKind], is Difficulty:
            return 1
        case is DayCalendar: return 2
        default: return Mirror(reflecting: value).children.reduce(0) { $0 + leaves(of: $1.value) }
        }
    }
}

@Suite struct SettingsPinTests {
    let start = at("2026-06-01T10:00:00Z")
    let record = PinRecord(salt: [1, 2], hash: [3, 4], rounds: 2, blockSize: 1, parallelism: 1)

    /// Whether `entrant` may enter the PIN at `now` (an entry begun on a copy, never ended).
    func check(_ policy: PolicyEngine, by entrant: String, at now: Instant) throws(PolicyRefusal) {
        var copy = policy
        try copy.beginPinEntry(by: entrant, at: now)
    }

    /// Sixty-one entries from one device sent at once, each checked while the others are: five
    /// are checked, as the lockout allows, and the rest wait; another device is not held up.
    @Test func entriesSentAtOnceCheckNoMoreThanTheLockoutsAllow() throws {
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.apply(.setPin(record), at: start)
        var begun = 0
        for _ in 1...61 {
            do throws(PolicyRefusal) {
                try policy.beginPinEntry(by: "10.0.0.7", at: start)
                begun += 1
            } catch {
                #expect(error == .pinLocked(remaining: .seconds(1), failures: 0))
            }
        }
        #expect(begun == 5)
        try check(policy, by: "10.0.0.8", at: start)
        for _ in 1...begun { policy.notePinEntry(correct: false, by: "10.0.0.7", at: start) }
        #expect(throws: PolicyRefusal.pinLocked(remaining: .seconds(30), failures: 5)) {
            try check(policy, by: "10.0.0.7", at: start)
        }
        // Past its lockout, one at a time.
        let later = start + .seconds(30)
        try policy.beginPinEntry(by: "10.0.0.7", at: later)
        #expect(throws: PolicyRefusal.self) { try check(policy, by: "10.0.0.7", at: later) }
        policy.notePinEntry(correct: true, by: "10.0.0.7", at: later)
        try check(policy, by: "10.0.0.7", at: later)
    }

    @Test func lockoutsStartAtTheFifthWrongEntryAndGrow() {
        #expect((1...4).allSatisfy { PinLockouts.lockout(afterFailures: $0) == nil })
        #expect(PinLockouts.lockout(afterFailures: 5) == .seconds(30))
        #expect(PinLockouts.lockout(afterFailures: 6) == .seconds(60))
        #expect(PinLockouts.lockout(afterFailures: 8) == .seconds(240))
        #expect(PinLockouts.lockout(afterFailures: 40) == .seconds(3600))
        #expect((1...20).allSatisfy { PinLockouts.householdWait(afterFailures: $0) == nil })
        #expect(PinLockouts.householdWait(afterFailures: 21) == .seconds(60))
        #expect(PinLockouts.householdWait(afterFailures: 23) == .seconds(240))
        #expect(PinLockouts.householdWait(afterFailures: 500) == .seconds(600))
    }

    @Test func oneDeviceGuessingLocksOutOnlyItselfAndTheParentGetsInFromAnother() throws {
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.apply(.setPin(record), at: start)
        let child = "192.168.1.23"
        let parent = "192.168.1.10"
        // Again and again, as the child's device may: each lockout is its own.
        var now = start
        for round in 0..<6 {
            for _ in 1...(round == 0 ? 5 : 1) { policy.notePinEntry(correct: false, by: child, at: now) }
            #expect(throws: PolicyRefusal.self) { try check(policy, by: child, at: now) }
            try check(policy, by: parent, at: now)
            now = now + .seconds(3601)
        }
        #expect(policy.readout.pin?.lockouts.failures(of: child) == 10)
        #expect(policy.drainEvents().contains { $0.detail.hasPrefix("wrong PIN from 192.168.1.23 (#5 from it") })
        // The parent's right entry clears the household's row, not the child's count.
        policy.notePinEntry(correct: true, by: parent, at: now)
        #expect(policy.readout.pin?.lockouts.failures == 0 && policy.readout.pin?.lockouts.failures(of: child) == 10)
    }

    @Test func guessingFromManyDevicesStaysUnderTheHouseholdsCeiling() throws {
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.apply(.setPin(record), at: start)
        // Four wrong entries from each of five addresses: no device is locked, the home is at its ceiling.
        for device in 1...5 {
            for _ in 1...4 { policy.notePinEntry(correct: false, by: "10.0.0.\(device)", at: start) }
        }
        try check(policy, by: "10.0.0.99", at: start)
        // One more from a new address: everyone waits a minute, then two, ... at most ten.
        policy.notePinEntry(correct: false, by: "10.0.0.6", at: start)
        #expect(throws: PolicyRefusal.pinLocked(remaining: .seconds(60), failures: 21)) {
            try check(policy, by: "10.0.0.99", at: start)
        }
        var now = start + .seconds(60)
        try check(policy, by: "10.0.0.99", at: now)
        for device in 7...30 {
            policy.notePinEntry(correct: false, by: "10.0.0.\(device)", at: now)
            let wait = try #require(policy.readout.pin?.lockouts.wait(for: "10.0.0.99", at: now))
            #expect(wait.remaining <= .seconds(600))
            now = now + wait.remaining
        }
        #expect(throws: PolicyRefusal.pinLocked(remaining: .seconds(600), failures: 45)) {
            try check(policy, by: "10.0.0.99", at: now - .seconds(600))
        }
        // Twenty-five guesses took over three hours from twenty-five devices; a right one ends it.
        #expect(now - start > .seconds(3 * 3600))
        try check(policy, by: "10.0.0.99", at: now)
        policy.notePinEntry(correct: true, by: "10.0.0.99", at: now)
        try check(policy, by: "10.0.0.98", at: now)
    }

    @Test func aPinStoredWithAHouseholdCountOnlyKeepsIt() throws {
        let stored =
            #"{"salt":[1],"hash":[2],"rounds":2,"blockSize":1,"parallelism":1,"failures":7,"lockedUntil":{"milliseconds":5000}}"#
        let read = try JSONDecoder().decode(PinRecord.self, from: Data(stored.utf8))
        #expect(read.lockouts.failures == 7)
        #expect(read.lockouts.wait(for: "10.0.0.1", at: Instant(milliseconds: 4000))?.remaining == .seconds(1))
        let again = try JSONDecoder().decode(PinRecord.self, from: JSONEncoder().encode(read))
        #expect(again == read)
    }

    @Test func aSetPinGuardsLooseningOnlyAndCountsWrongEntries() throws {
        var policy = engine(settings(.hourly), now: start)
        _ = try policy.apply(.setPin(record), at: start)
        #expect(throws: PolicyRefusal.pinRequired) { _ = try policy.setMode(.time, at: start) }
        #expect(throws: PolicyRefusal.pinRequired) { _ = try policy.unguardApp("tiktok", at: start) }
        // Tightening, and the gates of their own, need no PIN.
        #expect(try policy.setMode(.extreme, at: start).applied.map(\.key) == ["policy.mode"])
        #expect(try policy.guardApp("whatsapp", at: start).pending.isEmpty)
        #expect(
            try policy.setMode(
                .time, phrase: ExtremeSettings().sentence(opening: .seconds(900)), pin: .verified, at: start
            ).pending.count == 1)
        for _ in 1...5 { policy.notePinEntry(correct: false, by: "127.0.0.1", at: start) }
        #expect(throws: PolicyRefusal.pinLocked(remaining: .seconds(30), failures: 5)) {
            try check(policy, by: "127.0.0.1", at: start)
        }
        // The count and the lockout survive a restart.
        let restarted = policy.restarted(at: start + .seconds(10))
        #expect(restarted.readout.pin?.lockouts.failures(of: "127.0.0.1") == 5)
        #expect(throws: PolicyRefusal.self) { try check(restarted, by: "127.0.0.1", at: start + .seconds(10)) }
        policy.notePinEntry(correct: true, by: "127.0.0.1", at: start + .seconds(31))
        #expect(policy.readout.pin?.lockouts == PinLockouts())
    }

    @Test func aDeviceLeavingForLooserLimitsCostsTheGateThePinAndTheWait() throws {
        var policy = engine(settings(.extreme), now: start)
        let looser = Enforcement(protection: Protection(settings: settings(.extreme), guarded: ["tiktok"]))
        let same = Enforcement(
            protection: Protection(
                settings: settings(.extreme), guarded: ["instagram", "tiktok", "youtube", "whatsapp"]))
        _ = policy.claimDevice("aa:bb:cc:dd:ee:01", at: start)
        // To a person whose limits are no looser: released at once, no gate.
        #expect(
            try policy.handOverDevice(
                "aa:bb:cc:dd:ee:01", from: "a", to: "b", theirs: same, phrase: nil, pin: .none, at: start) == nil)
        #expect(policy.state.claimedDevices.isEmpty)
        // Fewer guarded apps there: the sentence, the PIN where one is set, and the mode's reset.
        _ = try policy.apply(.setPin(record), at: start)
        #expect(throws: PolicyRefusal.pinRequired) {
            try policy.handOverDevice(
                "192.168.1.5", from: "a", to: "c", theirs: looser, phrase: nil, pin: .none, at: start)
        }
        #expect(throws: PolicyRefusal.self) {
            try policy.handOverDevice(
                "192.168.1.5", from: "a", to: "c", theirs: looser, phrase: "no", pin: .verified, at: start)
        }
        #expect(policy.state.today.gateMisses == 1, "a wrong sentence counts as for any loosening change")
        let sentence = ExtremeSettings().sentence(opening: .seconds(900))
        let pending = try #require(
            try policy.handOverDevice(
                "192.168.1.5", from: "a", to: "c", theirs: looser, phrase: sentence, pin: .verified, at: start))
        #expect(pending.appliesAt == at("2026-06-01T11:00:00Z") && pending.change.loosens)
        // Not the engine's own to apply, nor taken back when its settings settle.
        _ = try policy.guardApp("whatsapp", at: start + .seconds(60))
        _ = policy.admit("tiktok", at: at("2026-06-01T11:00:01Z"))
        #expect(policy.state.changes.pending.map(\.id) == [pending.id])
        #expect(policy.takeDueHandOvers(at: at("2026-06-01T10:59:59Z")).isEmpty)
        #expect(policy.takeDueHandOvers(at: at("2026-06-01T11:00:01Z")) == [.init(device: "192.168.1.5", person: "c")])
        #expect(policy.state.changes.pending.isEmpty)
        // Cancelled like any pending change.
        let again = try #require(
            try policy.handOverDevice(
                "192.168.1.5", from: "a", to: "c", theirs: looser, phrase: sentence, pin: .verified,
                at: at("2026-06-01T11:00:02Z")))
        _ = try policy.apply(.cancelPending(id: again.id), at: at("2026-06-01T11:00:03Z"))
        #expect(policy.takeDueHandOvers(at: at("2026-06-01T13:00:00Z")).isEmpty)
        // And by keeping the device where it is.
        _ = try policy.handOverDevice(
            "192.168.1.5", from: "a", to: "c", theirs: looser, phrase: sentence, pin: .verified,
            at: at("2026-06-01T13:00:01Z"))
        #expect(
            try policy.handOverDevice(
                "192.168.1.5", from: "a", to: "a", theirs: policy.readout.enforcement(at: at("2026-06-01T13:00:02Z")),
                phrase: nil, pin: .none,
                at: at("2026-06-01T13:00:02Z"))
                == nil)
        #expect(policy.state.changes.pending.isEmpty)
    }

    /// A move loosens only when the device ends up with less protection: schedules are compared by
    /// what they block, and a person who guards nothing has no mode settings to loosen.
    @Test func aMoveLoosensOnlyWhenTheDeviceEndsUpLessProtected() {
        let groups = ["instagram": "social", "tiktok": "video", "youtube": "video", "whatsapp": "messaging"]
        func schedule(_ name: String, _ days: String, _ from: String, _ to: String, _ block: [String]) -> Schedule {
            Schedule(
                name: name, days: Weekdays(days)!, from: Schedule.minutes(from)!, to: Schedule.minutes(to)!,
                block: block)
        }
        func person(
            _ mode: Mode, guarded: [String], _ schedules: [Schedule], profiles: Set<String> = []
        ) -> Enforcement {
            Enforcement(
                protection: Protection(settings: settings(mode), guarded: guarded, schedules: schedules),
                profileBlocks: profiles)
        }
        let everything = ["instagram", "tiktok", "youtube"]
        let defaultPerson = person(.time, guarded: [], [schedule("nights", "daily", "23:00", "06:00", ["social"])])
        let cases: [(String, from: Enforcement, to: Enforcement, loosens: Bool)] = [
            (
                "a first-seen device to a stricter child whose own schedule covers the default's",
                defaultPerson,
                person(
                    .hourly, guarded: everything, [schedule("bedtime", "daily", "21:00", "07:00", ["social", "video"])]),
                false
            ),
            (
                "to someone whose schedule blocks the same app for fewer hours",
                defaultPerson,
                person(.hourly, guarded: everything, [schedule("late", "daily", "00:00", "06:00", ["instagram"])]),
                true
            ),
            (
                "to someone whose schedule blocks other apps at those hours",
                defaultPerson,
                person(.hourly, guarded: everything, [schedule("nights", "daily", "23:00", "06:00", ["video"])]),
                true
            ),
            (
                "two schedules that together cover one",
                defaultPerson,
                person(
                    .time, guarded: [],
                    [
                        schedule("evening", "daily", "23:00", "24:00", ["instagram"]),
                        schedule("morning", "daily", "00:00", "06:00", ["social"]),
                    ]), false
            ),
            (
                "from a guarding person to one who guards less",
                person(.hourly, guarded: everything, []), person(.hourly, guarded: ["tiktok"], []), true
            ),
            (
                "from a guarding person in hourly mode to time mode, which limits differently",
                person(.hourly, guarded: everything, []), person(.time, guarded: everything, []), true
            ),
            (
                "between two people with the same limits", person(.extreme, guarded: everything, []),
                person(.extreme, guarded: everything, []), false
            ),
            (
                "away from a profile switched on, to someone without it",
                person(.extreme, guarded: everything, [], profiles: ["instagram"]),
                person(.extreme, guarded: everything, []), true
            ),
            (
                "to someone whose profile on blocks as much and more",
                person(.time, guarded: [], [], profiles: ["instagram"]),
                person(.time, guarded: [], [], profiles: ["instagram", "tiktok"]), false
            ),
        ]
        for (name, mine, theirs, loosens) in cases {
            #expect(Loosening.moveLoosens(from: mine, to: theirs, apps: testApps, groups: groups) == loosens, "\(name)")
        }
    }

    @Test func aChangeThatAsksForAnotherValueSaysWhichWaitingOneItCancelled() throws {
        let start = at("2026-06-01T10:00:00Z")
        var policy = engine(settings(.time), now: start)
        let bigger = try policy.setMode(.time, budget: .seconds(45 * 60), at: start)
        let waiting = try #require(bigger.pending.first)
        #expect(bigger.cancelled.isEmpty)
        let smaller = try policy.setMode(.time, budget: .seconds(5 * 60), at: start + .seconds(60))
        #expect(smaller.applied.map(\.key) == ["time.budget-minutes"])
        #expect(smaller.cancelled.map(\.id) == [waiting.id])
        #expect(policy.state.changes.pending.isEmpty)
    }

    @Test func anotherPersonsEngineNeedsTheHouseholdsPinToo() throws {
        // The PIN is kept with the default person; another person's engine has none of its own.
        var policy = engine(settings(.hourly), now: start)
        #expect(throws: PolicyRefusal.pinRequired) { _ = try policy.setMode(.time, pin: .missing, at: start) }
        #expect(throws: PolicyRefusal.pinRequired) { _ = try policy.unguardApp("tiktok", pin: .missing, at: start) }
        #expect(try policy.guardApp("whatsapp", at: start).pending.isEmpty)
        #expect(try policy.setMode(.time, pin: .verified, at: start).pending.count == 1)
    }
}
