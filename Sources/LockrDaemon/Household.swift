import DNSFilter
import DNSProxy
import LockrLists
import LockrPolicy
import LockrStore
import Logging
import Synchronization

/// Who the household's people are: a `PersonPolicy` for each, by number and by name, their devices,
/// and the app names in force for each of them.
///
/// People are numbered in the order they were first configured and keep their number while lockr
/// runs (a reload that drops one leaves them without devices), so a DNS pipeline built a moment
/// before a reload still sends each query to the right engine.
final class Household: Sendable {
    private let people: Mutex<[PersonPolicy]>
    private let setUp: Mutex<SetUp>
    /// MAC addresses of the devices on this machine's links.
    private let neighbours: (any NeighbourLookup)?
    private let logger: Logger
    /// Called when the app names in force change, to rebuild the DNS pipeline around them.
    private let namingChanged = Mutex<(@Sendable () -> Void)?>(nil)
    /// The lists by URL people's own entries name, as last told, and whom to tell of a change.
    private let runTimeListsWatch = Mutex<(last: [ListSource], body: (@Sendable ([ListSource]) -> Void)?)>(([], nil))

    /// What the configuration says of the people beyond each one's policy.
    private struct SetUp {
        var catalogue: AppCatalogue
        /// The configured people (the default person first) and their devices.
        var configured: [PersonSettings]
        var trustedForwarders: [IPNetwork]
        var protectionOffAfter: Duration
        /// Where the lists by URL are kept, which people's own entries may name.
        var copies: ListCopies
    }

    /// Everyone as `loaded` configures them, each restored from their stored state (`states`, in
    /// the same order; nil for a first start) at policy time `now`.
    init(
        config: LockrConfiguration, loaded: LoadedPolicy, states: [PolicyState?], now: Instant,
        neighbours: (any NeighbourLookup)?, logger: Logger
    ) {
        people = Mutex(
            loaded.people.enumerated().map { number, person in
                PersonPolicy(
                    number: number, settings: person.settings, names: person.names, naming: person.naming,
                    guarded: person.guarded, state: states[number], now: now)
            })
        setUp = Mutex(Self.setUp(config, loaded))
        self.neighbours = neighbours
        self.logger = logger
        refreshNaming(notify: false)
    }

    private static func setUp(_ config: LockrConfiguration, _ loaded: LoadedPolicy) -> SetUp {
        SetUp(
            catalogue: loaded.catalogue, configured: loaded.people.map(\.settings),
            trustedForwarders: config.trustedForwarders, protectionOffAfter: config.protectionOffAfter,
            copies: ListCopies(stateDirectory: config.stateDirectory))
    }

    /// Everyone lockr knows, by number: the configured people and those a reload dropped.
    var everyone: [PersonPolicy] { people.withLock { $0 } }

    /// The person of `number`; the default person for a number lockr never gave.
    func policy(number: Int) -> PersonPolicy {
        people.withLock { $0.indices.contains(number) ? $0[number] : $0[0] }
    }

    func policy(of name: String) -> PersonPolicy? { everyone.first { $0.name == name } }

    /// The configured people, the default person first.
    func peopleNames() -> [String] {
        let configured = setUp.withLock { Set($0.configured.map(\.name)) }
        return everyone.map(\.name).filter(configured.contains)
    }

    /// How long a device may ask nothing before it counts as having protection off.
    var protectionOffAfter: Duration { setUp.withLock { $0.protectionOffAfter } }

    /// Each configured person's devices as backends name clients, by person.
    func clientNames() -> [String: [String]] {
        setUp.withLock { setUp in
            Dictionary(
                setUp.configured.map { ($0.name, $0.devices.map(\.clientName)) },
                uniquingKeysWith: { first, _ in first })
        }
    }

    /// The devices the configuration gives `name`, as it writes them.
    func configuredDevices(of name: String) -> [String] {
        setUp.withLock { $0.configured.first { $0.name == name }?.devices.map(\.clientName) ?? [] }
    }

    /// Runs `body` on copies of `people`'s engines while holding all their locks (taken in order of
    /// number; nothing else holds two at once), and keeps the copies only when `body` returns.
    func withEnginesTogether<Result>(
        _ people: [PersonPolicy], _ body: (inout [PolicyEngine]) throws -> Result
    ) rethrows -> Result {
        let ordered = people.enumerated().sorted { $0.element.number < $1.element.number }
        var copies: [PolicyEngine] = []
        func lock(_ remaining: ArraySlice<(offset: Int, element: PersonPolicy)>) throws -> Result {
            guard let first = remaining.first else {
                // In the callers' order for `body`.
                var inOrder = copies
                for (place, entry) in ordered.enumerated() { inOrder[entry.offset] = copies[place] }
                let result = try body(&inOrder)
                for (place, entry) in ordered.enumerated() { copies[place] = inOrder[entry.offset] }
                return result
            }
            return try first.element.withEngine { engine in
                let place = copies.count
                copies.append(engine)
                let result = try lock(remaining.dropFirst())
                engine = copies[place]
                return result
            }
        }
        return try lock(ordered[...])
    }

    // MARK: What the DNS pipeline is built from

    /// Each person's filter by number: the names in force for them, their own lists (`ownLists`,
    /// by name) and their safe search, from `safeSearch`'s providers (one table for each setting).
    func filters(ownLists: [String: RuleSet], safeSearch providers: [SafeSearchProvider]) -> [PersonFilter] {
        var tables: [SafeSearch: SafeSearchAnswers?] = [:]
        return everyone.map { person in
            let naming = person.naming
            let setting = naming.rules.safeSearch
            if tables[setting] == nil {
                let youtube = setting.youtubeLevel == .off ? nil : setting.youtubeLevel.rawValue
                tables[setting] = .some(
                    SafeSearchAnswers(providers: providers, searchEngines: setting.searchEngines, youtube: youtube))
            }
            return PersonFilter(
                antiBypass: naming.rules.antiBypass, apps: naming.guardSet, lists: ownLists[person.name],
                safeSearch: tables[setting] ?? nil, entries: naming.entries)
        }
    }

    /// Which person each device is, by their numbers: the config file's devices first, then those
    /// assigned while lockr runs.
    func deviceDirectory() -> DeviceDirectory {
        let people = everyone
        let numbers = Dictionary(uniqueKeysWithValues: people.map { ($0.name, $0.number) })
        let claimed = people.flatMap { person in
            person.read { $0.state.claimedDevices }.compactMap { DeviceSpec($0) }.map { ($0, person.number) }
        }
        return setUp.withLock { setUp in
            DeviceDirectory(
                devices: setUp.configured.flatMap { person in
                    person.devices.compactMap { device in numbers[person.name].map { (device, $0) } }
                } + claimed,
                trustedForwarders: setUp.trustedForwarders, neighbours: neighbours)
        }
    }

    /// The person the config file gives `device` to, if any.
    func configuredOwner(of device: DeviceSpec) -> String? {
        setUp.withLock { $0.configured.first { $0.devices.contains(device) }?.name }
    }

    /// Tells whoever asked (the pipeline) that a person's devices changed.
    func devicesChanged() { namingChanged.withLock { $0 }?() }

    /// Calls `body` whenever a person's app names or devices change (after the change).
    func whenNamingChanges(_ body: @escaping @Sendable () -> Void) { namingChanged.withLock { $0 = body } }

    /// Rebuilds the app names of everyone whose names in force differ from theirs (people whose
    /// names are alike share one build, and so one cache stamp), and with `listsFetched` of
    /// everyone whose own entries read a list by URL; with `notify`, tells whoever asked (a reload
    /// rebuilds the pipeline itself).
    func refreshNaming(notify: Bool = true, listsFetched: Bool = false) {
        let (catalogue, copies) = setUp.withLock { ($0.catalogue, $0.copies) }
        var changed = false
        var built: [AppNaming] = []
        for person in everyone {
            // After a fetch, only the names built in this pass are fresh enough to share.
            let reusable = listsFetched ? built : everyone.map(\.naming)
            if person.refreshNaming(
                catalogue: catalogue, copies: copies, logger: logger, reusing: reusable, listsFetched: listsFetched)
            {
                changed = true
                built.append(person.naming)
            }
        }
        runTimeListsChanged()
        guard changed, notify else { return }
        namingChanged.withLock { $0 }?()
    }

    /// The lists by URL of everyone's own entries, in force or asked for, by the people who have them.
    func runTimeLists() -> [(list: FilterEntry, person: String)] {
        everyone.flatMap { person in
            person.read { readout in
                var seen: [FilterEntry] = []
                for entry in readout.inForceNames.filters + readout.askedNames.filters
                where entry.kind.isList && !seen.contains(where: { $0.isSame(as: entry) }) {
                    seen.append(entry)
                }
                return seen.map { ($0, person.name) }
            }
        }
    }

    /// Calls `body` with the lists of `runTimeLists()` whenever they change.
    func whenRunTimeListsChange(_ body: @escaping @Sendable ([ListSource]) -> Void) {
        runTimeListsWatch.withLock { $0.body = body }
    }

    private func runTimeListsChanged() {
        var sources: [ListSource] = []
        for (entry, _) in runTimeLists() {
            if let source = try? ListSource(entry: entry.value), !sources.contains(source) { sources.append(source) }
        }
        let body = runTimeListsWatch.withLock { watch -> (@Sendable ([ListSource]) -> Void)? in
            guard watch.last != sources else { return nil }
            watch.last = sources
            return watch.body
        }
        body?(sources)
    }

    /// Each person's line for the start-up log.
    func summary(at now: Instant) -> [(person: String, mode: String, guarded: [String], openWindows: Int)] {
        everyone.map { person in
            person.read { engine in
                (person.name, engine.settings.modeSummary, engine.guarded, engine.state.windows.openCount(at: now))
            }
        }
    }

    // MARK: Reloading

    /// Takes a reloaded configuration at policy time `now`: each person's settings (changes made
    /// through the control API stay on top), new people with their stored state (`restoring`) if
    /// they had any. Whoever calls saves, rebuilds the pipeline and publishes afterwards.
    func reload(
        config: LockrConfiguration, loaded: LoadedPolicy, at now: Instant,
        restoring: (String) throws(StoreError) -> PolicyState?
    ) {
        for configured in loaded.people {
            let settings = configured.settings
            if let person = policy(of: settings.name) {
                let notes = person.withEngine {
                    $0.rebase(
                        settings: settings.policy, guarded: configured.guarded, apps: configured.naming.names,
                        names: configured.names, schedules: settings.schedules ?? [], profiles: settings.profiles,
                        groups: configured.naming.groups, at: now)
                }
                for note in notes { logger.warning("\(note)", metadata: ["person": "\(settings.name)"]) }
                person.takeNaming(configured.naming)
                continue
            }
            let state: PolicyState?
            do { state = try restoring(settings.name) } catch {
                logger.error(
                    "cannot read a new person's stored state; starting them afresh",
                    metadata: ["person": "\(settings.name)", "error": "\(error)"])
                state = nil
            }
            people.withLock { people in
                people.append(
                    PersonPolicy(
                        number: people.count, settings: settings, names: configured.names,
                        naming: configured.naming, guarded: configured.guarded, state: state, now: now))
            }
        }
        // People the file no longer names keep their policy; their names share the new build when alike.
        let configured = Set(loaded.people.map(\.settings.name))
        for person in everyone where !configured.contains(person.name) {
            let rules = person.naming.rules
            if let same = loaded.people.first(where: { $0.naming.rules == rules }) { person.takeNaming(same.naming) }
        }
        setUp.withLock { $0 = Self.setUp(config, loaded) }
    }
}
