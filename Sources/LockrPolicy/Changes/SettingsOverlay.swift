/// Changes made through the control API on top of the configuration file. They survive restarts;
/// the configuration still provides everything they do not change.
public struct SettingsOverlay: Sendable, Equatable {
    public var mode: Mode?
    public var budget: Duration?
    public var perApp: Bool?
    public var hourlyWindow: Duration?
    public var extremeWindow: Duration?
    /// Apps guarded in addition to the configured ones.
    public var guardAdded: [String] = []
    /// Configured apps no longer guarded.
    public var guardRemoved: [String] = []
    /// Schedules added or replaced, and names of the configuration's schedules removed.
    public var schedulesAdded: [Schedule] = []
    public var schedulesRemoved: [String] = []
    /// Every gate's settings (set by an import).
    public var gate: GateSettings?
    /// Safe search as asked for (`lockr filters safe-search`, the admin page).
    public var safeSearch: SafeSearch?
    /// The person's own filter entries, whole, once one was changed.
    public var filters: [FilterEntry]?

    public init() {}

    func applied(to base: PolicySettings) -> PolicySettings {
        var settings = base
        if let mode { settings.mode = mode }
        if let budget { settings.time.budget = budget }
        if let perApp { settings.time.perApp = perApp }
        if let hourlyWindow { settings.hourly.window = hourlyWindow }
        if let extremeWindow { settings.extreme.window = extremeWindow }
        if let gate { settings.gate = gate }
        return settings
    }

    /// The configuration's schedules with these changes made.
    func schedules(base: [Schedule]) -> [Schedule] {
        base.filter { schedule in
            !schedulesRemoved.contains(schedule.name) && !schedulesAdded.contains { $0.name == schedule.name }
        } + schedulesAdded
    }

    /// The configuration's names with safe search and the filter entries as asked for.
    func names(base: NameRules) -> NameRules {
        var names = base
        if let safeSearch { names.safeSearch = safeSearch }
        if let filters { names.filters = filters }
        return names
    }

    func guarded(base: [String]) -> [String] {
        var apps = base.filter { !guardRemoved.contains($0) }
        for app in guardAdded where !apps.contains(app) { apps.append(app) }
        return apps
    }
}

extension SettingsOverlay {
    /// The config keys the overlay sets.
    public var overriddenKeys: [String] {
        var keys: [String] = []
        if mode != nil { keys.append("policy.mode") }
        if budget != nil { keys.append("time.budget-minutes") }
        if perApp != nil { keys.append("time.per-app") }
        if hourlyWindow != nil { keys.append("hourly.window-minutes") }
        if extremeWindow != nil { keys.append("extreme.window-minutes") }
        if !guardAdded.isEmpty || !guardRemoved.isEmpty { keys.append(Loosening.guardKey) }
        if !schedulesAdded.isEmpty || !schedulesRemoved.isEmpty { keys.append(Loosening.scheduleKey) }
        if gate != nil { keys += Loosening.gateKeys }
        if safeSearch != nil { keys += [Loosening.safeSearchKey, Loosening.youtubeKey] }
        if filters != nil { keys += FilterEntry.Kind.allCases.map(\.rawValue) }
        return keys
    }

    /// Takes back what the overlay sets for `change`'s setting (a gate's setting goes back to
    /// `base`'s; safe search and a filter entry to how they are in force, `inForce`).
    mutating func revert(_ change: SettingChange, base: PolicySettings, inForce: NameRules) {
        switch change.key {
        case let key where Loosening.gateKeys.contains(key):
            guard let gate else { return }
            var settings = base
            settings.gate = gate
            Loosening.settings.first { $0.key == key }?.copy(&settings, base)
            self.gate = settings.gate == base.gate ? nil : settings.gate
        case "policy.mode": mode = nil
        case "time.budget-minutes": budget = nil
        case "time.per-app": perApp = nil
        case "hourly.window-minutes": hourlyWindow = nil
        case "extreme.window-minutes": extremeWindow = nil
        case Loosening.guardKey:
            guardRemoved.removeAll { $0 == change.element }
            guardAdded.removeAll { $0 == change.element }
        case Loosening.scheduleKey:
            schedulesRemoved.removeAll { $0 == change.element }
            schedulesAdded.removeAll { $0.name == change.element }
        case Loosening.safeSearchKey: safeSearch?.searchEngines = inForce.safeSearch.searchEngines
        case Loosening.youtubeKey: safeSearch?.youtube = inForce.safeSearch.youtube
        case let key:
            guard let kind = FilterEntry.Kind(rawValue: key), var entries = filters, let value = change.element else {
                return
            }
            entries.removeAll { $0.kind == kind && $0.value == value }
            entries += inForce.filters.filter { $0.kind == kind && $0.value == value }
            filters = entries
        }
    }
}
