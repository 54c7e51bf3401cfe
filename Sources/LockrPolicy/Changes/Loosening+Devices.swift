/// What a person's policy enforces on their devices: the protection in force, and the apps their
/// profiles switched on block now.
public struct Enforcement: Sendable, Equatable {
    public var protection: Protection
    public var profileBlocks: Set<String> = []
}

/// Whether a device handed from one person to another ends up less protected, judged by what each
/// person's policy enforces rather than how it is written: schedules by the apps and minutes of the
/// week they block, whatever their names; profiles by the apps they block while on; the mode's
/// settings only where they limit an app (a person who guards nothing has none to loosen).
extension Loosening {
    /// True when the device, moving from `from` to `to`, could reach an app sooner or for longer.
    /// `apps` and `groups` resolve what schedules name.
    public static func moveLoosens(
        from: Enforcement, to: Enforcement, apps: [String: String], groups: [String: String]
    ) -> Bool {
        guard from.profileBlocks.isSubset(of: to.profileBlocks) else { return true }
        let (mine, theirs) = (from.protection, to.protection)
        let settingKeys = Set(settings.map(\.key))
        let looser = changes(from: mine, to: theirs).contains { change in
            guard change.loosens, change.key != scheduleKey else { return false }
            return !(mine.guarded.isEmpty && settingKeys.contains(change.key))
        }
        if looser { return true }
        let theirBlocks = scheduledBlocks(theirs, apps: apps, groups: groups)
        return scheduledBlocks(mine, apps: apps, groups: groups).contains { app, minutes in
            !(theirBlocks[app] ?? []).isSuperset(of: minutes)
        }
    }

    /// Each app a protection's schedules block, with the minutes of the week (local time) they do.
    static func scheduledBlocks(
        _ protection: Protection, apps: [String: String], groups: [String: String]
    ) -> [String: Set<Int>] {
        var blocks: [String: Set<Int>] = [:]
        for schedule in protection.schedules ?? [] {
            let minutes = schedule.minutesOfWeek
            for app in AppSelection.apps(schedule.block, apps: apps, groups: groups, guarded: protection.guarded) {
                blocks[app, default: []].formUnion(minutes)
            }
        }
        return blocks
    }
}
