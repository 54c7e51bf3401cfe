/// What a settings action asks for (`lockr mode`, `guard add` and `remove`, `settings reset`,
/// `schedule add` and `remove`, `filters`): the settings overlay it makes, checked against what is asked for
/// already. Pure; the engine then commits the overlay (`PolicyEngine.request`), where what
/// tightens applies at once and what loosens waits.
struct SettingsRequest {
    /// The overlay the settings action `action` makes of `overlay`, and the command that asks for
    /// it (the change's source in the log). Only for the settings actions.
    func edit(
        _ action: PolicyAction, from overlay: SettingsOverlay
    ) throws(PolicyRefusal) -> (
        overlay: SettingsOverlay, source: String
    ) {
        switch action {
        case .setMode(let mode, let budget, let perApp, let window):
            (self.mode(mode, budget: budget, perApp: perApp, window: window, from: overlay), "lockr mode")
        case .guardApp(let app): (try guarding(app, from: overlay), "lockr guard add")
        case .unguardApp(let app): (try unguarding(app, from: overlay), "lockr guard remove")
        case .resetSettings: (try reset(from: overlay), "lockr settings reset")
        case .addSchedule(let schedule): (try adding(schedule, from: overlay), "lockr schedule add")
        case .removeSchedule(let name): (try removing(schedule: name, from: overlay), "lockr schedule remove")
        case .changeFilters(let change): (try changing(change, from: overlay), "lockr filters")
        default: preconditionFailure("\(action.name.rawValue) is no settings action")
        }
    }

    /// The configuration file, with the control API's changes on top: what is asked for now.
    let desired: Protection
    let configuration: PolicyConfiguration
    /// Every app that may be guarded, id to display name.
    let apps: [String: String]
    /// Loosening changes waiting for their time.
    let pending: [PendingChange]

    /// The mode and, optionally, its budget (time mode) or window.
    func mode(
        _ mode: Mode, budget: Duration?, perApp: Bool?, window: Duration?, from overlay: SettingsOverlay
    ) -> SettingsOverlay {
        var overlay = overlay
        overlay.mode = mode
        if let budget { overlay.budget = budget }
        if let perApp { overlay.perApp = perApp }
        if let window {
            switch mode {
            case .extreme: overlay.extremeWindow = window
            case .hourly, .time: overlay.hourlyWindow = window
            }
        }
        return overlay
    }

    /// Guarding the app `text` names (any letter case, or its display name).
    func guarding(_ text: String, from overlay: SettingsOverlay) throws(PolicyRefusal) -> SettingsOverlay {
        let app = try AppNames.id(text, in: apps)
        guard !desired.guarded.contains(app) else { throw .nothingToDo("\(app) is already guarded") }
        var overlay = overlay
        overlay.guardRemoved.removeAll { $0 == app }
        if !configuration.guarded.contains(app), !overlay.guardAdded.contains(app) { overlay.guardAdded.append(app) }
        return overlay
    }

    /// No longer guarding the app `text` names.
    func unguarding(_ text: String, from overlay: SettingsOverlay) throws(PolicyRefusal) -> SettingsOverlay {
        let app = try AppNames.id(text, in: apps)
        guard desired.guarded.contains(app) else {
            throw isWaiting(Loosening.guardKey, app)
                ? .nothingToDo("\(app) is already to stop being guarded (`lockr pending list`)") : .notGuarded(app)
        }
        var overlay = overlay
        overlay.guardAdded.removeAll { $0 == app }
        if configuration.guarded.contains(app), !overlay.guardRemoved.contains(app) { overlay.guardRemoved.append(app) }
        return overlay
    }

    /// Every change made while lockr runs dropped: the configuration file as it is.
    func reset(from overlay: SettingsOverlay) throws(PolicyRefusal) -> SettingsOverlay {
        guard overlay != SettingsOverlay() else { throw .nothingToDo("no setting was changed from the config file") }
        return SettingsOverlay()
    }

    /// `schedule` added, or put in place of the one of its name.
    func adding(_ schedule: Schedule, from overlay: SettingsOverlay) throws(PolicyRefusal) -> SettingsOverlay {
        if let problem = schedule.problem { throw .invalidSettings("schedule \(schedule.name): \(problem)") }
        if let problem = configuration.selectionProblem(schedule.block, known: apps) {
            throw .invalidSettings(problem)
        }
        guard desired.schedules?.first(where: { $0.name == schedule.name }) != schedule else {
            throw .nothingToDo("schedule \(schedule.name) is already \(schedule.timesText)")
        }
        var overlay = overlay
        overlay.schedulesRemoved.removeAll { $0 == schedule.name }
        overlay.schedulesAdded.removeAll { $0.name == schedule.name }
        overlay.schedulesAdded.append(schedule)
        return overlay
    }

    /// The schedule `name` removed.
    func removing(schedule name: String, from overlay: SettingsOverlay) throws(PolicyRefusal) -> SettingsOverlay {
        guard desired.schedules?.contains(where: { $0.name == name }) == true else {
            if isWaiting(Loosening.scheduleKey, name) {
                throw .nothingToDo("schedule \(name) is already to be removed (`lockr pending list`)")
            }
            throw .notFound("no schedule \(name) (`lockr schedule list` shows them)")
        }
        var overlay = overlay
        overlay.schedulesAdded.removeAll { $0.name == name }
        if configuration.schedules.contains(where: { $0.name == name }), !overlay.schedulesRemoved.contains(name) {
            overlay.schedulesRemoved.append(name)
        }
        return overlay
    }

    /// The person's own filter or safe search changed. An entry added again with another comment
    /// takes the new comment; one being removed already, or not there, is refused.
    func changing(_ change: FilterChange, from overlay: SettingsOverlay) throws(PolicyRefusal) -> SettingsOverlay {
        let names = desired.names ?? configuration.names
        var overlay = overlay
        var entries = overlay.filters ?? names.filters
        switch change {
        case .add(let entry):
            guard !entry.value.isEmpty else { throw .invalidSettings("an empty \(entry.kind.rawValue) entry") }
            if let index = entries.firstIndex(where: { $0.isSame(as: entry) }) {
                guard entries[index].comment != entry.comment else {
                    throw .nothingToDo("\(entry.kind.rawValue) \(entry.value) is already there")
                }
                entries[index].comment = entry.comment
            } else {
                entries.append(entry)
            }
        case .remove(let kind, let value):
            guard entries.contains(where: { $0.kind == kind && $0.value == value }) else {
                if isWaiting(kind.rawValue, value) {
                    throw .nothingToDo("\(kind.rawValue) \(value) is already to be removed (`lockr pending list`)")
                }
                throw .notFound("no \(kind.rawValue) entry \(value) (`lockr filters` shows them)")
            }
            entries.removeAll { $0.kind == kind && $0.value == value }
        case .safeSearch(let wanted):
            guard wanted != names.safeSearch else { throw .nothingToDo("safe search is already \(wanted.text)") }
            overlay.safeSearch = wanted
            return overlay
        }
        overlay.filters = entries
        return overlay
    }

    /// Whether a change of `key` for `element` is waiting already.
    private func isWaiting(_ key: String, _ element: String) -> Bool {
        pending.contains { $0.change.key == key && $0.change.element == element }
    }
}
