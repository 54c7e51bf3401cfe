/// The household's profiles: those made at run time (the configuration's live in it) and those
/// switched on. A profile blocks nothing until it is on. Defining, removing and switching one
/// follow the rules below and are logged in the journal handed in; whether the PIN was given, and
/// what the restriction table makes of a switch, are the engine's.
public struct Profiles: Sendable, Equatable {
    /// Profiles made at run time.
    public internal(set) var made: [Profile]
    /// Profiles that are on, and until when.
    public internal(set) var active: [ActiveProfile]

    public init(made: [Profile] = [], active: [ActiveProfile] = []) {
        self.made = made
        self.active = active
    }

    /// The profiles defined: `configured`, with those made at run time on top.
    func defined(configured: [Profile]) -> [Profile] {
        configured.map { configured in made.first { $0.name == configured.name } ?? configured }
            + made.filter { made in !configured.contains { $0.name == made.name } }
    }

    /// Whether the profile `name` is on at `now`.
    func isActive(_ name: String, at now: Instant) -> Bool { activeOne(name, at: now) != nil }

    /// The profile `name` as switched on, if it is on at `now`.
    func activeOne(_ name: String, at now: Instant) -> ActiveProfile? {
        active.first { $0.name == name && ($0.until.map { $0 > now } ?? true) }
    }

    /// Makes `profile` one made at run time, replacing one of that name.
    mutating func define(_ profile: Profile) {
        made.removeAll { $0.name == profile.name }
        made.append(profile)
    }

    /// Forgets the profile `name` made at run time (it must be off).
    mutating func remove(_ name: String) { made.removeAll { $0.name == name } }

    /// Makes `made` the profiles made at run time; those no longer made are switched off.
    mutating func replaceMade(with made: [Profile]) {
        let gone = self.made.filter { old in !made.contains { $0.name == old.name } }
        active.removeAll { active in gone.contains { $0.name == active.name } }
        self.made = made
    }

    /// Takes the profiles an import made (checked already; see `replaceMade`), logged; false when
    /// they are those made already.
    mutating func importMade(
        _ made: [Profile], configured: [Profile], journal: inout PolicyJournal, at now: Instant
    ) -> Bool {
        guard made != self.made else { return false }
        replaceMade(with: made)
        let names = defined(configured: configured).map(\.name).joined(separator: ", ")
        journal.log(.profileChange, nil, "profiles set by an import: \(names)", at: now)
        return true
    }

    /// Switches `name` on at `now`, until switched off or `until`; on already, a later end extends
    /// it. Returns it as it is on now, or nil when it is on already at least that long.
    mutating func switchOn(_ name: String, until: Instant?, at now: Instant) -> ActiveProfile? {
        guard let index = active.firstIndex(where: { $0.name == name }) else {
            active.append(ActiveProfile(name: name, since: now, until: until))
            return active.last
        }
        guard let ends = active[index].until, until.map({ $0 > ends }) ?? true else { return nil }
        active[index].until = until
        return active[index]
    }

    /// Switches `name` off.
    mutating func switchOff(_ name: String) { active.removeAll { $0.name == name } }

    /// Switches off the profiles whose time is up by `now`; returns them.
    mutating func endExpired(at now: Instant) -> [ActiveProfile] {
        let ended = active.filter { $0.until.map { $0 <= now } ?? false }
        if !ended.isEmpty { active.removeAll { $0.until.map { $0 <= now } ?? false } }
        return ended
    }

    /// Every defined profile, whether it is on, and whether `configured` holds it.
    func status(configured: [Profile], at now: Instant) -> [ProfileStatus] {
        defined(configured: configured).map { profile in
            ProfileStatus(
                profile: profile, active: activeOne(profile.name, at: now),
                fromConfig: configured.contains { $0.name == profile.name })
        }
    }

    // MARK: What a person asks

    /// Defines `profile` (the configuration's `configured` ones may be redefined) once it and
    /// `selectionProblem`, what is wrong with its list of apps, are checked. While it is on, blocking
    /// less needs the PIN: `pinMissing` says it was not given where one is set.
    mutating func define(
        _ profile: Profile, selectionProblem: String?, configured: [Profile], pinMissing: Bool,
        journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) {
        if let problem = profile.problem { throw .invalidSettings("profile \(profile.name): \(problem)") }
        if let selectionProblem { throw .invalidSettings(selectionProblem) }
        let old = defined(configured: configured).first { $0.name == profile.name }
        guard old != profile else {
            throw .nothingToDo("profile \(profile.name) already blocks \(profile.block.joined(separator: ", "))")
        }
        if let old, isActive(profile.name, at: now), !Set(profile.block).isSuperset(of: old.block), pinMissing {
            throw .pinRequired
        }
        define(profile)
        journal.log(
            .profileChange, nil, "profile \(profile.name) blocks \(profile.block.joined(separator: ", "))", at: now)
    }

    /// Removes the profile `name` made at run time, switching it off first (which needs the PIN).
    mutating func remove(
        _ name: String, configured: [Profile], pinMissing: Bool, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> Profile {
        guard let profile = defined(configured: configured).first(where: { $0.name == name }) else {
            throw unknown(name, configured: configured)
        }
        guard made.contains(where: { $0.name == name }), !configured.contains(where: { $0.name == name }) else {
            throw .nothingToDo("profile \(name) is defined in the config file: remove it there")
        }
        if isActive(name, at: now) {
            if pinMissing { throw .pinRequired }
            switchOff(name)
            journal.log(.profileOff, nil, "profile \(name) off", at: now)
        }
        remove(name)
        journal.log(.profileChange, nil, "profile \(name) removed", at: now)
        return profile
    }

    /// Switches the profile `name` on, until switched off or for `duration` (1 min to 7 days); on
    /// already, a later end extends it.
    mutating func activate(
        _ name: String, for duration: Duration?, configured: [Profile], calendar: DayCalendar,
        journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> ActiveProfile {
        guard defined(configured: configured).contains(where: { $0.name == name }) else {
            throw unknown(name, configured: configured)
        }
        if let duration, duration <= .zero || duration > .seconds(7 * 86_400) {
            throw .invalidSettings("--for must be 1 min to 7 days")
        }
        let until = duration.map { now + $0 }
        guard let switched = switchOn(name, until: until, at: now) else {
            let current = active.first { $0.name == name }
            throw .nothingToDo("profile \(name) is already on\(Self.untilText(current?.until, calendar))")
        }
        journal.log(.profileOn, nil, "profile \(name) on\(Self.untilText(until, calendar))", at: now)
        return switched
    }

    /// Switches the profile `name` off (which needs the PIN): what it blocked goes back to what the
    /// mode and schedules say.
    mutating func deactivate(
        _ name: String, configured: [Profile], pinMissing: Bool, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> ActiveProfile {
        guard defined(configured: configured).contains(where: { $0.name == name }) else {
            throw unknown(name, configured: configured)
        }
        guard let switched = activeOne(name, at: now) else { throw .nothingToDo("profile \(name) is off") }
        if pinMissing { throw .pinRequired }
        switchOff(name)
        journal.log(.profileOff, nil, "profile \(name) off", at: now)
        return switched
    }

    /// Whether making `wanted` the profiles defined would have one that is on block less (which
    /// needs the PIN): left out, or blocking fewer apps or groups.
    func wouldBlockLess(_ wanted: [Profile], configured: [Profile], at now: Instant) -> Bool {
        defined(configured: configured).contains { old in
            guard isActive(old.name, at: now) else { return false }
            guard let new = wanted.first(where: { $0.name == old.name }) else { return true }
            return !Set(new.block).isSuperset(of: old.block)
        }
    }

    /// Switches the profile `name` on (for `duration`, or until switched off), off, or over:
    /// `activate` and `deactivate` as they say, `toggle` off when on and on when off. Returns
    /// whether it is on now.
    mutating func switchProfile(
        _ name: String, _ switching: ProfileSwitch, for duration: Duration?, configured: [Profile],
        calendar: DayCalendar, pinMissing: Bool, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> Bool {
        let on =
            switch switching {
            case .activate: true
            case .deactivate: false
            case .toggle: !isActive(name, at: now)
            }
        if on {
            _ = try activate(
                name, for: duration, configured: configured, calendar: calendar, journal: &journal, at: now)
        } else {
            _ = try deactivate(name, configured: configured, pinMissing: pinMissing, journal: &journal, at: now)
        }
        return on
    }

    /// Switches off the profiles whose time is up by `now`, logging each; whether any was.
    mutating func endExpired(journal: inout PolicyJournal, at now: Instant) -> Bool {
        let ended = endExpired(at: now)
        for profile in ended {
            journal.log(.profileOff, nil, "profile \(profile.name) off: its time is up", at: profile.until!)
        }
        return !ended.isEmpty
    }

    private func unknown(_ name: String, configured: [Profile]) -> PolicyRefusal {
        let names = defined(configured: configured).map(\.name)
        return .notFound(
            "no profile \(name)"
                + (names.isEmpty ? " (`lockr profile add` makes one)" : "; profiles: \(names.joined(separator: ", "))"))
    }

    private static func untilText(_ until: Instant?, _ calendar: DayCalendar) -> String {
        until.map { " until \(calendar.clockText($0))" } ?? ""
    }
}

extension Profiles {
    /// Carries out a profile action of the person `configuration` describes: a profile defined,
    /// removed, or switched. Returns its outcome and whether what profiles block may have changed.
    /// Only for those three actions.
    mutating func apply(
        _ action: PolicyAction, configuration: PolicyConfiguration, known apps: [String: String], calendar: DayCalendar,
        pinMissing: Bool, journal: inout PolicyJournal, at now: Instant
    ) throws(PolicyRefusal) -> (outcome: ActionOutcome, blocksChanged: Bool) {
        let configured = configuration.profiles
        switch action {
        case .defineProfile(let profile):
            try define(
                profile, selectionProblem: configuration.selectionProblem(profile.block, known: apps),
                configured: configured, pinMissing: pinMissing, journal: &journal, at: now)
            return (.profile(profile), true)
        case .removeProfile(let name):
            let wasOn = isActive(name, at: now)
            let removed = try remove(name, configured: configured, pinMissing: pinMissing, journal: &journal, at: now)
            return (.profile(removed), wasOn)
        case .switchProfile(let name, let switching, let duration):
            let on = try switchProfile(
                name, switching, for: duration, configured: configured, calendar: calendar, pinMissing: pinMissing,
                journal: &journal, at: now)
            return (.switched(on: on), true)
        default: preconditionFailure("\(action.name.rawValue) is no profile action")
        }
    }
}
