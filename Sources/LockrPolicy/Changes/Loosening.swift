/// Everything that decides how much protection is in force: the policy settings, which apps are
/// guarded and which names are theirs. Compared by `Loosening` to tell a change that loosens from
/// one that tightens.
public struct Protection: Sendable, Equatable, Codable {
    public var settings: PolicySettings
    /// Guarded app ids.
    public var guarded: [String]
    /// Nil only when read from a store an older lockr wrote: the engine then takes the configuration's.
    public var names: NameRules?
    /// Nil only when read from a store an older lockr wrote, as `names`.
    public var schedules: [Schedule]?

    public init(
        settings: PolicySettings, guarded: [String], names: NameRules = NameRules(), schedules: [Schedule] = []
    ) {
        self.settings = settings
        self.guarded = guarded
        self.names = names
        self.schedules = schedules
    }
}

/// One setting that differs between two protections, and whether the change loosens.
public struct SettingChange: Sendable, Equatable, Codable {
    /// The setting's key as the config file names it ("time.budget-minutes", "guard", "always-allow",
    /// "apps.ID" for the domains of an app the config defines).
    public let key: String
    /// For a list ("guard", "always-allow", "apps.ID"): the entry that is added or removed.
    public let element: String?
    /// The values as people read them ("30 min" → "45 min"; "guarded" → "not guarded").
    public let from: String
    public let to: String
    public let loosens: Bool

    /// "time.budget-minutes: 30 min → 45 min", "guard tiktok: guarded → not guarded".
    public var description: String { "\(key)\(element.map { " \($0)" } ?? ""): \(from) → \(to)" }

    /// Whether it hands a device to another person rather than changing a setting.
    public var isDeviceMove: Bool { key == Loosening.deviceKey }

    /// The app the change is about, if one: the app guarded or not, or the app whose domains change.
    public var app: String? {
        if key == Loosening.guardKey { return element }
        if key.hasPrefix(Loosening.appsPrefix) { return String(key.dropFirst(Loosening.appsPrefix.count)) }
        return nil
    }
}

/// Decides which changes loosen protection. A change loosens when it could let an app open sooner
/// or for longer, or make a gate cheaper: a weaker mode (leaving extreme, or switching between time
/// and hourly, which trade different limits), a bigger budget or window, a budget per app, fewer
/// guarded apps, a longer snooze, extension or emergency or more of them a day, a shorter emergency
/// hold, a weaker strictness, a shorter sentence, a gate that asks less (a step dropped, the
/// sentence no longer spoken, fewer, easier or other puzzles, more time for them, a cheaper typed
/// fallback), a longer TTL for open apps, metering that counts
/// less, a shorter commitment delay, any move of the day's start or time zone (which can start a
/// new day early), an app's domain dropped from `[apps]`, a name always allowed, anti-bypass or
/// safe search switched off, YouTube's restricted mode made milder, and of a person's own filter a
/// deny entry or a block list dropped, or an allow entry or an allow list added. Everything else
/// tightens or is neutral, and applies at once. The same comparison,
/// of two people's protections, tells whether a device handed from one to the other loosens.
public enum Loosening {
    static let guardKey = "guard"
    /// A device handed to another person ("device 192.168.1.20: alice → bob"); no setting of
    /// `Protection`, so `changes` never finds one and `applying` leaves the protection as it is.
    static let deviceKey = "device"
    static let scheduleKey = "schedule"
    static let alwaysAllowKey = "always-allow"
    static let antiBypassKey = "blocking.anti-bypass"
    static let safeSearchKey = "safe-search"
    static let youtubeKey = "youtube"
    static let appsPrefix = "apps."
    /// The settings of the gates (`GateSettings`), which an import sets together.
    static let gateKeys: Set<String> = [
        "time.gate", "hourly.gate", "extreme.gate", "extreme.input", "extreme.typed-fallback-steps", "puzzles.kinds",
        "puzzles.difficulty", "puzzles.count", "puzzles.time-limit",
    ]
    /// How the entries of a list read, in and out of it.
    static let (guardedText, notGuardedText) = ("guarded", "not guarded")
    static let (allowedText, notAllowedText) = ("always allowed", "not allowed")
    static let (listedText, notListedText) = ("listed", "not listed")

    /// Every setting that differs between `old` and `new`, in a fixed order.
    public static func changes(from old: Protection, to new: Protection) -> [SettingChange] {
        var changes = settings.compactMap { setting -> SettingChange? in
            let before = setting.text(old.settings)
            let after = setting.text(new.settings)
            guard before != after else { return nil }
            return SettingChange(
                key: setting.key, element: nil, from: before, to: after,
                loosens: setting.loosens(old.settings, new.settings))
        }
        changes += listChanges(
            guardKey, old.guarded, new.guarded, inside: guardedText, outside: notGuardedText, removingLoosens: true)
        if let oldSchedules = old.schedules, let newSchedules = new.schedules {
            changes += scheduleChanges(oldSchedules, newSchedules)
        }
        guard let oldNames = old.names, let newNames = new.names else { return changes }
        if oldNames.antiBypass != newNames.antiBypass {
            changes.append(
                SettingChange(
                    key: antiBypassKey, element: nil, from: flag(oldNames.antiBypass), to: flag(newNames.antiBypass),
                    loosens: oldNames.antiBypass))
        }
        let (oldSafe, newSafe) = (oldNames.safeSearch, newNames.safeSearch)
        if oldSafe.searchEngines != newSafe.searchEngines {
            changes.append(
                SettingChange(
                    key: safeSearchKey, element: nil, from: flag(oldSafe.searchEngines),
                    to: flag(newSafe.searchEngines),
                    loosens: oldSafe.searchEngines))
        }
        if oldSafe.youtubeLevel != newSafe.youtubeLevel {
            changes.append(
                SettingChange(
                    key: youtubeKey, element: nil, from: oldSafe.youtubeLevel.rawValue,
                    to: newSafe.youtubeLevel.rawValue,
                    loosens: newSafe.youtubeLevel < oldSafe.youtubeLevel))
        }
        changes += listChanges(
            alwaysAllowKey, oldNames.alwaysAllow, newNames.alwaysAllow, inside: allowedText, outside: notAllowedText,
            removingLoosens: false)
        for app in Set(oldNames.customApps.keys).union(newNames.customApps.keys).sorted() {
            changes += listChanges(
                appsPrefix + app, oldNames.customApps[app] ?? [], newNames.customApps[app] ?? [], inside: listedText,
                outside: notListedText, removingLoosens: true)
        }
        return changes + filterChanges(oldNames.filters, newNames.filters)
    }

    /// A person's own filter entries dropped, added or with another comment: dropping one that
    /// blocks loosens, and so does adding one that frees; a comment changes nothing but itself.
    private static func filterChanges(_ old: [FilterEntry], _ new: [FilterEntry]) -> [SettingChange] {
        let dropped = old.filter { before in !new.contains { $0.isSame(as: before) } }.map { before in
            SettingChange(
                key: before.kind.rawValue, element: before.value, from: filterText(before), to: notListedText,
                loosens: !before.kind.frees)
        }
        return dropped
            + new.compactMap { after in
                guard let before = old.first(where: { $0.isSame(as: after) }) else {
                    return SettingChange(
                        key: after.kind.rawValue, element: after.value, from: notListedText, to: filterText(after),
                        loosens: after.kind.frees)
                }
                guard before.comment != after.comment else { return nil }
                return SettingChange(
                    key: after.kind.rawValue, element: after.value, from: filterText(before), to: filterText(after),
                    loosens: false)
            }
    }

    /// "listed", or "listed (homework)" with its comment.
    private static func filterText(_ entry: FilterEntry) -> String {
        entry.comment.isEmpty ? listedText : "\(listedText) (\(entry.comment))"
    }

    /// The entries removed from and added to a list; removing loosens, or adding does.
    private static func listChanges(
        _ key: String, _ old: [String], _ new: [String], inside: String, outside: String, removingLoosens: Bool
    ) -> [SettingChange] {
        old.filter { !new.contains($0) }.map {
            SettingChange(key: key, element: $0, from: inside, to: outside, loosens: removingLoosens)
        }
            + new.filter { !old.contains($0) }.map {
                SettingChange(key: key, element: $0, from: outside, to: inside, loosens: !removingLoosens)
            }
    }

    /// Schedules dropped, added or edited: dropping one loosens, and so does an edit that blocks
    /// fewer apps or fewer minutes of the week than before.
    private static func scheduleChanges(_ old: [Schedule], _ new: [Schedule]) -> [SettingChange] {
        let none = "none"
        func text(_ schedule: Schedule) -> String {
            "\(schedule.timesText) blocks \(schedule.block.joined(separator: ","))"
        }
        let dropped = old.filter { before in !new.contains { $0.name == before.name } }.map { before in
            SettingChange(key: scheduleKey, element: before.name, from: text(before), to: none, loosens: true)
        }
        return dropped
            + new.compactMap { after in
                guard let before = old.first(where: { $0.name == after.name }) else {
                    return SettingChange(
                        key: scheduleKey, element: after.name, from: none, to: text(after), loosens: false)
                }
                guard before != after else { return nil }
                return SettingChange(
                    key: scheduleKey, element: after.name, from: text(before), to: text(after),
                    loosens: !after.covers(before))
            }
    }

    /// `protection` with `change` made, taking the new value from `target`.
    public static func applying(
        _ change: SettingChange, to protection: Protection, from target: Protection
    )
        -> Protection
    {
        var result = protection
        var names = protection.names ?? target.names ?? NameRules()
        switch change.key {
        case guardKey: result.guarded.update(change, inside: guardedText)
        case scheduleKey:
            var schedules = protection.schedules ?? []
            let wanted = target.schedules?.first { $0.name == change.element }
            if let index = schedules.firstIndex(where: { $0.name == change.element }) {
                if let wanted { schedules[index] = wanted } else { schedules.remove(at: index) }
            } else if let wanted {
                schedules.append(wanted)
            }
            result.schedules = schedules
        case deviceKey: break
        case alwaysAllowKey: names.alwaysAllow.update(change, inside: allowedText)
        case antiBypassKey: names.antiBypass = target.names?.antiBypass ?? names.antiBypass
        case safeSearchKey:
            // What YouTube follows stays as it is in force (`youtube` is a change of its own).
            let youtube = names.safeSearch.youtubeLevel
            names.safeSearch.searchEngines = target.names?.safeSearch.searchEngines ?? names.safeSearch.searchEngines
            names.safeSearch.youtube = youtube
        case youtubeKey: names.safeSearch.youtube = target.names?.safeSearch.youtubeLevel ?? names.safeSearch.youtube
        case let key where key.hasPrefix(appsPrefix):
            let app = String(key.dropFirst(appsPrefix.count))
            var rules = names.customApps[app] ?? []
            rules.update(change, inside: listedText)
            names.customApps[app] = rules.isEmpty ? nil : rules
        case let key where FilterEntry.Kind(rawValue: key) != nil:
            let kind = FilterEntry.Kind(rawValue: key)!
            let wanted = target.names?.filters.first { $0.kind == kind && $0.value == change.element }
            if let index = names.filters.firstIndex(where: { $0.kind == kind && $0.value == change.element }) {
                if let wanted { names.filters[index] = wanted } else { names.filters.remove(at: index) }
            } else if let wanted {
                names.filters.append(wanted)
            }
        default:
            settings.first { $0.key == change.key }?.copy(&result.settings, target.settings)
        }
        result.names = names
        return result
    }

    /// The settings compared, each with how it reads and when a new value loosens.
    struct Setting: Sendable {
        let key: String
        let text: @Sendable (PolicySettings) -> String
        let loosens: @Sendable (PolicySettings, PolicySettings) -> Bool
        let copy: @Sendable (inout PolicySettings, PolicySettings) -> Void
    }

    /// A setting at `path` read with `text`; `looser(old, new)` tells a loosening value.
    static func setting<Value: Equatable & Sendable>(
        _ key: String, _ path: WritableKeyPath<PolicySettings, Value> & Sendable,
        text: @escaping @Sendable (Value) -> String, looser: @escaping @Sendable (Value, Value) -> Bool
    ) -> Setting {
        Setting(
            key: key, text: { text($0[keyPath: path]) },
            loosens: { looser($0[keyPath: path], $1[keyPath: path]) },
            copy: { $0[keyPath: path] = $1[keyPath: path] })
    }

    static func minutes(_ duration: Duration) -> String { duration.spoken }
    static func count(_ value: Int) -> String { "\(value)" }
    static func flag(_ value: Bool) -> String { value ? "on" : "off" }
    static func bigger(_ old: Duration, _ new: Duration) -> Bool { new > old }
    static func more(_ old: Int, _ new: Int) -> Bool { new > old }

    /// How hard each mode is to get through: leaving extreme loosens; time and hourly limit
    /// differently, so a switch between them loosens too.
    static func modeLoosens(_ old: Mode, _ new: Mode) -> Bool { old != new && new != .extreme }

    static func strictnessRank(_ value: Strictness) -> Int {
        switch value {
        case .strict: 2
        case .normal: 1
        case .lenient: 0
        }
    }

    static let settings: [Setting] = [
        setting("policy.mode", \.mode, text: \.rawValue, looser: modeLoosens),
        Setting(
            key: "policy.time-zone", text: { $0.calendar.zone.identifier },
            loosens: { $0.calendar.zone.identifier != $1.calendar.zone.identifier },
            copy: {
                $0.calendar = DayCalendar(zone: $1.calendar.zone, dayStartMinutes: $0.calendar.dayStartMinutes)
            }),
        Setting(
            key: "policy.day-start",
            text: { Schedule.clock($0.calendar.dayStartMinutes) },
            loosens: { $0.calendar.dayStartMinutes != $1.calendar.dayStartMinutes },
            copy: {
                $0.calendar = DayCalendar(zone: $0.calendar.zone, dayStartMinutes: $1.calendar.dayStartMinutes)
            }),
        setting("policy.max-ttl", \.maximumTTL, text: minutes, looser: bigger),
        setting("policy.commitment-delay", \.commitmentDelay, text: minutes, looser: { $1 < $0 }),
        setting("time.budget-minutes", \.time.budget, text: minutes, looser: bigger),
        setting("time.per-app", \.time.perApp, text: flag, looser: { !$0 && $1 }),
        setting("time.slice-seconds", \.time.metering.slice, text: minutes, looser: { $0 != $1 }),
        setting("time.min-queries", \.time.metering.minimumQueries, text: count, looser: more),
        setting("time.neighbourhood", \.time.metering.neighbourhood, text: count, looser: { $1 < $0 }),
        setting("time.grace-seconds", \.time.metering.grace, text: minutes, looser: { $1 < $0 }),
        setting("hourly.window-minutes", \.hourly.window, text: minutes, looser: bigger),
        setting("hourly.open-on-first-query", \.hourly.openOnFirstQuery, text: flag, looser: { !$0 && $1 }),
        setting(
            "extreme.phrase", \.extreme.phrase, text: { "\"\($0)\"" },
            looser: { PhraseGate.normalize($1).count < PhraseGate.normalize($0).count }),
        setting(
            "extreme.strictness", \.extreme.strictness, text: \.rawValue,
            looser: { strictnessRank($1) < strictnessRank($0) }),
        setting("extreme.window-minutes", \.extreme.window, text: minutes, looser: bigger),
        setting("snooze.minutes", \.snooze.length, text: minutes, looser: bigger),
        setting("snooze.per-day", \.snooze.perDay, text: count, looser: more),
        setting("extend.minutes", \.extend.length, text: minutes, looser: bigger),
        setting("extend.per-day", \.extend.perDay, text: count, looser: more),
        setting("emergency.minutes", \.emergency.length, text: minutes, looser: bigger),
        setting("emergency.per-day", \.emergency.perDay, text: count, looser: more),
        setting("emergency.hold-seconds", \.emergencyHold, text: minutes, looser: { $1 < $0 }),
        setting("time.gate", \.gate.time, text: steps, looser: GateSettings.weaker),
        setting("hourly.gate", \.gate.hourly, text: steps, looser: GateSettings.weaker),
        setting("extreme.gate", \.gate.extreme, text: steps, looser: GateSettings.weaker),
        setting("extreme.input", \.gate.input, text: \.rawValue, looser: { $1.strength < $0.strength }),
        setting("extreme.typed-fallback-steps", \.gate.typedFallbackSteps, text: count, looser: { $1 < $0 }),
        setting(
            "puzzles.kinds", \.gate.puzzles.kinds, text: { $0.map(\.rawValue).joined(separator: ", ") },
            looser: { $0 != $1 }),
        setting("puzzles.difficulty", \.gate.puzzles.difficulty, text: \.rawValue, looser: { $1 < $0 }),
        setting("puzzles.count", \.gate.puzzles.count, text: count, looser: { $1 < $0 }),
        setting("puzzles.time-limit", \.gate.puzzles.timeLimit, text: minutes, looser: bigger),
    ]

    static func steps(_ steps: [GateStep]) -> String {
        steps.isEmpty ? "none" : steps.map(\.rawValue).joined(separator: ", ")
    }
}

extension Array where Element == String {
    /// Adds or removes `change`'s element: added when the change's new value is `inside`.
    fileprivate mutating func update(_ change: SettingChange, inside: String) {
        guard let element = change.element else { return }
        if change.to == inside {
            if !contains(element) { append(element) }
        } else {
            removeAll { $0 == element }
        }
    }
}
