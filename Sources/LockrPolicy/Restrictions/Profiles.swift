/// The household's profiles: those made at run time (the configuration's live in it) and those
/// switched on. A profile blocks nothing until it is on; what the PIN, the journal and the
/// restriction table make of a switch is the engine's.
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
}
