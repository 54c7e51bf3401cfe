import CoreMetrics
import DNSProxy
import Foundation
import LockrDnstap
import LockrLists
import LockrPolicy
import Prometheus

/// `/metrics` in Prometheus's text format, through swift-metrics into a registry of its own. The
/// DNS path counts in plain numbers per event loop; each scrape adds them up and moves the
/// counters on by what is new, so that counting takes no lock where queries are answered. The
/// policy's figures (today's use, windows, gate failures) and the backends' are read as they
/// stand. Scrapes run one after another, so that two never count the same news twice.
actor MetricsExporter {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let household: Household
    private let clock: PolicyClock
    private let propagation: PolicyPropagation
    private let queryLog: QueryLog?
    private let devices: DeviceSightings
    private let dnstap: DnstapIntake?
    private var sources: DNSSources?
    private var quotas: [WatchedQuota] = []
    private var lists: ListSubscriptions?
    /// What the counters had been moved to: totals at the last scrape.
    private var exported = Exported()
    /// The scrape under way, which the next waits for.
    private var last: Task<String, Never>?

    /// The DNS server and cache, once they exist.
    struct DNSSources: Sendable {
        let server: DNSServer
        let cache: AnswerCache
    }

    private struct Exported {
        var dns = DNSMetrics()
        var droppedLogEntries = 0
        var refused: [String: Int] = [:]
        var tcp = TCPConnectionCounts()
        var devices = DeviceSightings.Counts()
        var dnstap: DnstapCounters.Snapshot?
    }

    static let latencyLabel = "lockr_dns_upstream_latency_seconds"

    init(
        household: Household, clock: PolicyClock, propagation: PolicyPropagation, queryLog: QueryLog?,
        devices: DeviceSightings, dnstap: DnstapIntake?
    ) {
        self.household = household
        self.devices = devices
        self.dnstap = dnstap
        self.clock = clock
        self.propagation = propagation
        self.queryLog = queryLog
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [
            Self.latencyLabel: DNSMetrics.latencyBuckets.map { .nanoseconds(Int64($0)) }
        ]
        self.factory = factory
    }

    /// Takes the DNS server and its cache, when lockr answers DNS.
    func observe(_ server: DNSServer, cache: AnswerCache) {
        sources = DNSSources(server: server, cache: cache)
    }

    /// Takes the quotas of connections and streams, to report how many are held and refused.
    func observe(_ quotas: [WatchedQuota]) {
        self.quotas = quotas
    }

    /// Takes the lists given by URL, to report each one's rules and fetches.
    func observe(_ lists: ListSubscriptions) {
        self.lists = lists
    }

    /// Every metric, as Prometheus reads it.
    func scrape() async -> String {
        let previous = last
        let scrape = Task {
            _ = await previous?.value
            return await self.scrapeNow()
        }
        last = scrape
        return await scrape.value
    }

    private func scrapeNow() async -> String {
        if let sources {
            exportDNS(await sources.server.metrics(), cacheEntries: sources.cache.count)
            exportTCP(sources.server.tcpConnectionCounts)
        }
        exportPolicy()
        exportBackends()
        exportQueryLog()
        exportQuotas()
        exportDevices()
        exportDnstap()
        if let lists { exportLists(await lists.statuses()) }
        return registry.emitToString()
    }

    /// Each list given by URL: its rules, when it was last fetched (0: never) and its failures in
    /// a row (an alert on `time() - lockr_list_checked_timestamp_seconds > 7 * 86400` sees one that
    /// stopped refreshing).
    private func exportLists(_ statuses: [ListStatus]) {
        for status in statuses {
            let list = [("list", status.name)]
            gauge("lockr_list_rules", list).record(status.kept ? status.record.rules : 0)
            gauge("lockr_list_checked_timestamp_seconds", list).record(
                status.record.checked?.timeIntervalSince1970 ?? 0)
            gauge("lockr_list_failures", list).record(status.record.failures)
        }
    }

    private func counter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
    }

    private func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: label, dimensions: dimensions, factory: factory)
    }

    private func exportDNS(_ totals: DNSMetrics, cacheEntries: Int) {
        let before = Dictionary(
            exported.dns.answeredByOutcomeAndType.map { ("\($0.outcome) \($0.type)", $0.count) },
            uniquingKeysWith: +)
        for (outcome, type, count) in totals.answeredByOutcomeAndType {
            let new = count &- (before["\(outcome) \(type)"] ?? 0)
            if new > 0 {
                counter("lockr_dns_queries_total", [("outcome", outcome), ("type", type)]).increment(by: Int64(new))
            }
        }
        counter("lockr_dns_cache_hits_total").increment(by: Int64(totals.cacheHits &- exported.dns.cacheHits))
        counter("lockr_dns_cache_misses_total").increment(by: Int64(totals.sentUpstream &- exported.dns.sentUpstream))
        gauge("lockr_dns_cache_entries").record(cacheEntries)
        for (server, tally) in totals.upstreams {
            let upstream = [("upstream", AddressText.format(server))]
            let previous = exported.dns.upstreams[server] ?? UpstreamTally()
            counter("lockr_dns_upstream_answers_total", upstream).increment(
                by: Int64(tally.answers &- previous.answers))
            counter("lockr_dns_upstream_failures_total", upstream).increment(
                by: Int64(tally.failures &- previous.failures))
            // The buckets' news told again: each new answer at its bucket's mean latency, which
            // lands in the same bucket and keeps the sum.
            let latency = CoreMetrics.Timer(label: Self.latencyLabel, dimensions: upstream, factory: factory)
            for bucket in tally.bucketCounts.indices {
                let count = tally.bucketCounts[bucket] &- previous.bucketCounts[bucket]
                guard count > 0 else { continue }
                let mean = (tally.bucketNanoseconds[bucket] &- previous.bucketNanoseconds[bucket]) / count
                for _ in 0..<count { latency.recordNanoseconds(Int64(mean)) }
            }
        }
        exported.dns = totals
    }

    /// DNS-over-TCP connections open, closed to make room for another source, and refused.
    private func exportTCP(_ counts: TCPConnectionCounts) {
        gauge("lockr_dns_tcp_connections_open").record(counts.open)
        counter("lockr_dns_tcp_connections_evicted_total").increment(by: Int64(counts.evicted - exported.tcp.evicted))
        counter("lockr_dns_tcp_connections_refused_total").increment(by: Int64(counts.refused - exported.tcp.refused))
        exported.tcp = counts
    }

    /// Today's use per person and app, the windows they opened, gates failed, and what is open.
    private func exportPolicy() {
        let now = clock.now()
        for person in household.everyone {
            let (status, today) = person.read { ($0.status(at: now), $0.snapshot(at: now).today) }
            for app in status.apps {
                let labels = [("person", person.name), ("app", app.id)]
                gauge("lockr_usage_today_seconds", labels).record(Double(app.used.milliseconds) / 1000)
                gauge("lockr_app_open", labels).record(app.open ? 1 : 0)
                gauge("lockr_windows_opened_today", labels).record(today.opens[app.id] ?? 0)
            }
            for (kind, tally) in today.gates {
                gauge("lockr_gate_failures_today", [("person", person.name), ("kind", kind)]).record(tally.failed)
            }
        }
    }

    /// How far behind each backend is.
    private func exportBackends() {
        guard let hub = propagation.publisher?.hub else { return }
        let now = Date()
        for health in hub.health() {
            let labels = [("backend", health.name)]
            let lag = health.oldestPending.map { max(0, now.timeIntervalSince($0)) } ?? 0
            gauge("lockr_backend_lag_seconds", labels).record(lag)
            gauge("lockr_backend_pending_changes", labels).record(health.pending)
            gauge("lockr_backend_up", labels).record(health.state == .failing ? 0 : 1)
        }
    }

    /// The devices seen, and those forgotten to make room or not kept.
    private func exportDevices() {
        let counts = devices.counts
        gauge("lockr_devices").record(counts.devices)
        gauge("lockr_devices_capacity").record(devices.capacity)
        counter("lockr_devices_evicted_total").increment(by: Int64(counts.evicted - exported.devices.evicted))
        counter("lockr_devices_not_kept_total").increment(by: Int64(counts.dropped - exported.devices.dropped))
        exported.devices = counts
    }

    /// Connections and event streams held and refused, per kind.
    private func exportQuotas() {
        for watched in quotas {
            let kind = [("kind", watched.label)]
            gauge("lockr_connections_open", kind).record(watched.quota.count)
            gauge("lockr_connections_limit", kind).record(watched.quota.total)
            let refused = watched.quota.refused
            counter("lockr_connections_refused_total", kind).increment(
                by: Int64(refused - exported.refused[watched.label, default: 0]))
            exported.refused[watched.label] = refused
        }
    }

    /// What dnstap brought and what was lost on lockr's side, when `[dnstap]` is configured.
    private func exportDnstap() {
        guard let dnstap else { return }
        let figures = dnstap.figures
        gauge("lockr_dnstap_up").record(figures == nil ? 0 : 1)
        guard let figures else { return }
        gauge("lockr_dnstap_connected").record(figures.connected)
        let before = exported.dnstap
        let counts: [(String, KeyPath<DnstapCounters.Snapshot, Int>)] = [
            ("lockr_dnstap_messages_total", \.messages), ("lockr_dnstap_metered_total", \.metered),
            ("lockr_dnstap_malformed_total", \.malformed), ("lockr_dnstap_connections_broken_total", \.broken),
            ("lockr_dnstap_connections_refused_total", \.refused),
        ]
        for (label, path) in counts {
            counter(label).increment(by: Int64(figures[keyPath: path] - (before?[keyPath: path] ?? 0)))
        }
        exported.dnstap = figures
    }

    private func exportQueryLog() {
        guard let queryLog else { return }
        let dropped = queryLog.journal.dropped
        counter("lockr_query_log_dropped_total").increment(by: Int64(dropped - exported.droppedLogEntries))
        exported.droppedLogEntries = dropped
    }
}
