import DNSProxy
import Synchronization

/// Keeps the DNS server's pipeline built from the latest configuration and rule lists and the app
/// names in force: a reload and a change of the names in force (a loosening change applying) each
/// build a new one, one at a time, from what is latest then, so the latest always wins.
final class PipelineKeeper: Sendable {
    private let server: DNSServer
    private let cache: AnswerCache
    private let parts: PolicyParts
    private let inputs: Mutex<(config: LockrConfiguration, lists: RuleLists)>

    init(server: DNSServer, cache: AnswerCache, parts: PolicyParts, config: LockrConfiguration, lists: RuleLists) {
        self.server = server
        self.cache = cache
        self.parts = parts
        inputs = Mutex((config, lists))
        parts.household.whenNamingChanges { [weak self] in self?.namingChanged() }
        parts.homeRecords.whenChanged { [weak self] in self?.namingChanged() }
    }

    /// Takes a reloaded configuration, its rule lists and upstreams.
    func reload(_ config: LockrConfiguration, lists: RuleLists, upstreams: UpstreamPool, routes: ForwardRoutes) {
        inputs.withLock { inputs in
            inputs = (config, lists)
            server.update(
                pipeline: Self.pipeline(config, lists: lists, cache: cache, parts: parts), upstreams: upstreams,
                routes: routes, forwarding: config.forwarding)
        }
    }

    /// Builds the rule lists again with `rebuild` from the running configuration (a list given by
    /// URL changed), outside the lock and off the DNS loops, and swaps them in unless a reload read
    /// the lists meanwhile.
    func listsChanged(
        rebuild: (LockrConfiguration, RuleLists) throws(LoadError) -> RuleLists
    ) throws(LoadError) {
        let (config, running) = inputs.withLock { ($0.config, $0.lists) }
        let lists = try rebuild(config, running)
        inputs.withLock { inputs in
            guard inputs.config == config else { return }
            inputs.lists = lists
            server.update(pipeline: Self.pipeline(config, lists: lists, cache: cache, parts: parts))
        }
    }

    private func namingChanged() {
        inputs.withLock { inputs in
            server.update(pipeline: Self.pipeline(inputs.config, lists: inputs.lists, cache: cache, parts: parts))
        }
    }

    /// The pipeline in force now with a gate that only looks, and the `[[forward]]` tables
    /// (`lockr explain`).
    func dryRun() -> Explainer.DryRun {
        var gate = parts.gate
        gate.dryRun = true
        return inputs.withLock {
            let pipeline = Self.pipeline($0.config, lists: $0.lists, cache: cache, parts: parts, gate: gate)
            return Explainer.DryRun(pipeline: pipeline, forwards: $0.config.forwards)
        }
    }

    private static func filter(
        _ config: LockrConfiguration, lists: RuleLists, parts: PolicyParts, gate: DNSGate
    ) -> FilterPolicy {
        FilterPolicy(
            rules: lists.shared, blockAnswer: config.blockAnswer, blockTTL: config.blockTTL,
            people: parts.household.filters(ownLists: lists.own, safeSearch: lists.safeSearch),
            guardStage: GuardStage(gate: gate, blockTTL: config.guardBlockTTL), pagesName: config.pagesName,
            localNames: lists.localNames)
    }

    /// The pipeline for `config` and `lists` around the household's people and their app names in
    /// force.
    static func pipeline(
        _ config: LockrConfiguration, lists: RuleLists, cache: AnswerCache, parts: PolicyParts, gate: DNSGate? = nil
    ) -> QueryPipeline {
        QueryPipeline(
            policy: filter(config, lists: lists, parts: parts, gate: gate ?? parts.gate),
            access: config.access, devices: parts.household.deviceDirectory(), cacheSettings: config.cache,
            cache: cache,
            sightings: parts.watch.sightings,
            logging: parts.queryLog == nil ? nil : QueryLog.logging(config, household: parts.household),
            localRecords: parts.homeRecords.answers.isEmpty ? nil : parts.homeRecords.answers,
            localZones: config.forwarding.answersLocalZones
                ? LocallyServedZones(forwarded: config.forwards.flatMap(\.domains)) : nil,
            designatedResolver: config.designatedResolver)
    }
}
