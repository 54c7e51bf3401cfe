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
        return keys
    }

    /// Takes back what the overlay sets for `change`'s setting (a gate's setting goes back to
    /// `base`'s).
    mutating func revert(_ change: SettingChange, base: PolicySettings) {
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
        default: break
        }
    }
}
