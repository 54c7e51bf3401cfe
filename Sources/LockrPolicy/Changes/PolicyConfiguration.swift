/// What the configuration file and `lockr serve`'s flags say of one person's policy: the part of
/// the engine a reload replaces whole. The control API's changes go on top of it as a
/// `SettingsOverlay`; an import is turned into such an overlay here.
struct PolicyConfiguration: Sendable {
    var settings: PolicySettings
    /// Every app the configuration and catalogue know: id to display name.
    var apps: [String: String]
    /// Which names are apps' names.
    var names: NameRules
    /// Apps guarded, in configuration order (known ones only).
    var guarded: [String]
    var schedules: [Schedule]
    var profiles: [Profile]
    /// Each app's catalogue group ("social", "video"), by id: what schedules and profiles name.
    var groups: [String: String]

    init(
        settings: PolicySettings, apps: [String: String], names: NameRules, guarded: [String],
        schedules: [Schedule], profiles: [Profile], groups: [String: String]
    ) {
        self.settings = settings
        self.apps = apps
        self.names = names
        self.guarded = guarded.filter { apps[$0] != nil }
        self.schedules = schedules
        self.profiles = profiles
        self.groups = groups
    }

    /// The protection the configuration asks for by itself.
    var protection: Protection {
        Protection(settings: settings, guarded: guarded, names: names, schedules: schedules)
    }

    /// The configuration with `overlay` on top, guarding only apps of `known`.
    func protection(with overlay: SettingsOverlay, known: [String: String]) -> Protection {
        Protection(
            settings: overlay.applied(to: settings),
            guarded: overlay.guarded(base: guarded).filter { known[$0] != nil },
            names: overlay.names(base: names), schedules: overlay.schedules(base: schedules))
    }

    /// What is wrong with a schedule's or profile's list of apps and groups, if anything.
    func selectionProblem(_ block: [String], known: [String: String]) -> String? {
        AppSelection.problem(block, apps: known, groups: groups)
    }

    // MARK: An import

    /// The overlay that makes the configuration's settings `wanted`: it sets only what differs, so
    /// that the file's later edits of the rest still count. `known` are the apps known now.
    func overlay(for wanted: RunTimeSettings, known: [String: String]) throws(PolicyRefusal) -> SettingsOverlay {
        var ids: [String] = []
        for app in wanted.guarded {
            let id = try AppNames.id(app, in: known)
            if !ids.contains(id) { ids.append(id) }
        }
        for schedule in wanted.schedules {
            if let problem = schedule.problem { throw .invalidSettings("schedule \(schedule.name): \(problem)") }
            try checkSelection(schedule.block, of: "schedule \(schedule.name)", known: known)
        }
        if let twice = Self.firstRepeated(wanted.schedules.map(\.name)) {
            throw .invalidSettings("schedule \(twice) is named twice")
        }
        var overlay = SettingsOverlay()
        overlay.mode = wanted.mode == settings.mode ? nil : wanted.mode
        overlay.budget = wanted.budget == settings.time.budget ? nil : wanted.budget
        overlay.perApp = wanted.perApp == settings.time.perApp ? nil : wanted.perApp
        overlay.hourlyWindow = wanted.hourlyWindow == settings.hourly.window ? nil : wanted.hourlyWindow
        overlay.extremeWindow = wanted.extremeWindow == settings.extreme.window ? nil : wanted.extremeWindow
        overlay.gate = wanted.gate == settings.gate ? nil : wanted.gate
        overlay.guardAdded = ids.filter { !guarded.contains($0) }
        overlay.guardRemoved = guarded.filter { !ids.contains($0) }
        overlay.schedulesAdded = wanted.schedules.filter { !schedules.contains($0) }
        overlay.schedulesRemoved = schedules.map(\.name).filter { name in
            !wanted.schedules.contains { $0.name == name }
        }
        return overlay
    }

    /// The profiles to keep as made at run time so that those defined are `wanted`: each checked,
    /// and the configuration's own kept (an import cannot remove them).
    func profilesMade(for wanted: [Profile], known: [String: String]) throws(PolicyRefusal) -> [Profile] {
        if let twice = Self.firstRepeated(wanted.map(\.name)) {
            throw .invalidSettings("profile \(twice) is named twice")
        }
        for profile in wanted {
            if let problem = profile.problem { throw .invalidSettings("profile \(profile.name): \(problem)") }
            try checkSelection(profile.block, of: "profile \(profile.name)", known: known)
        }
        if let kept = profiles.first(where: { configured in !wanted.contains { $0.name == configured.name } }) {
            throw .invalidSettings(
                "profile \(kept.name) is defined in the config file: it cannot be removed by an import")
        }
        return wanted.filter { !profiles.contains($0) }
    }

    private func checkSelection(_ block: [String], of owner: String, known: [String: String]) throws(PolicyRefusal) {
        if let problem = selectionProblem(block, known: known) { throw .invalidSettings("\(owner): \(problem)") }
    }

    private static func firstRepeated(_ names: [String]) -> String? {
        var seen: Set<String> = []
        return names.first { !seen.insert($0).inserted }
    }
}
