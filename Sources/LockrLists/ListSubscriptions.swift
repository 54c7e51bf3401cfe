import AsyncHTTPClient
import Foundation
import Logging

/// Where one list given by URL stands, as `lockr lists` shows it.
public struct ListStatus: Sendable, Equatable, Codable {
    /// The URL without its query.
    public let name: String
    public let record: ListRecord
    /// Whether a copy is kept (and so in force).
    public let kept: Bool
    /// When it is fetched next.
    public let next: Date
    /// Whether a fetch of it is under way.
    public let fetching: Bool
}

/// Keeps the lists given by URL up to date: fetches each when its copy is older than the refresh
/// period (at once when there is none), keeps a download only when it holds rules, and tells
/// `changed` which copies in force changed, so the rule lists are built again (off the event loops,
/// by whoever listens). A failed fetch keeps the copy before and is tried again sooner (5 min, then
/// twice as long each time, at most the refresh period).
public actor ListSubscriptions {
    private let copies: ListCopies
    private var sources: [ListSource]
    private var settings: ListSettings
    private let logger: Logger
    private let changed: @Sendable ([ListSource]) async -> Void
    private var fetching: Set<ListSource> = []
    /// What is known of each list's fetches, read from its copy's record the first time and kept
    /// here after each fetch, also one whose copy could not be written.
    private var records: [ListSource: ListRecord] = [:]
    private let now: @Sendable () -> Date

    /// `sources`: the lists of the configuration (files are left alone).
    public init(
        copies: ListCopies, sources: [ListSource], settings: ListSettings, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init, changed: @escaping @Sendable ([ListSource]) async -> Void
    ) {
        self.copies = copies
        self.sources = Self.urls(sources)
        self.settings = settings
        self.logger = logger
        self.now = now
        self.changed = changed
    }

    /// Takes the lists and settings of a reloaded configuration, or lists added while lockr runs;
    /// those without a copy kept are fetched now, before it returns.
    public func reconfigure(sources: [ListSource], settings: ListSettings) async {
        self.sources = Self.urls(sources)
        self.settings = settings
        removeOtherCopies()
        let unfetched = self.sources.filter { !copies.hasCopy(of: $0) && !fetching.contains($0) }
        guard !unfetched.isEmpty else { return }
        let client = ListFetcher.makeClient()
        await refresh(unfetched, with: client)
        try? await client.shutdown()
    }

    /// Fetches each list when it is due, until cancelled.
    public func keepUpToDate() async {
        removeOtherCopies()
        let client = ListFetcher.makeClient()
        while !Task.isCancelled {
            let due = sources.filter { next(for: $0) <= now() && !fetching.contains($0) }
            if !due.isEmpty {
                await refresh(due, with: client)
                continue
            }
            // At most a minute, so that a reconfiguration's lists are looked at soon.
            let wait = sources.map(next(for:)).min().map { $0.timeIntervalSince(now()) } ?? 60
            try? await Task.sleep(for: .seconds(min(60, max(1, wait))))
        }
        try? await client.shutdown()
    }

    /// Removes the copies kept of lists the configuration no longer names: a list named again is
    /// fetched anew.
    private func removeOtherCopies() {
        for key in copies.removeAll(except: sources) {
            logger.notice("list copy removed: the configuration no longer names its list", metadata: ["copy": "\(key)"])
        }
        records = records.filter { sources.contains($0.key) }
    }

    /// Fetches the lists named (`name` as `lockr lists` shows it, or its URL), or every list when
    /// nil, now; returns where they stand after.
    public func update(_ name: String?) async throws(ListSourceProblem) -> [ListStatus] {
        let chosen = sources.filter { name == nil || $0.displayName == name || $0 == .url(name ?? "") }
        guard !chosen.isEmpty else {
            throw ListSourceProblem(
                name.map { "no list \($0) (`lockr lists` shows them)" } ?? "no list is given by URL")
        }
        let client = ListFetcher.makeClient()
        await refresh(chosen.filter { !fetching.contains($0) }, with: client)
        try? await client.shutdown()
        return statuses().filter { status in chosen.contains { $0.displayName == status.name } }
    }

    /// Where each list given by URL stands.
    public func statuses() -> [ListStatus] {
        sources.map { source in
            ListStatus(
                name: source.displayName, record: record(of: source), kept: copies.hasCopy(of: source),
                next: next(for: source), fetching: fetching.contains(source))
        }
    }

    /// When `source` is due: at once without a copy; after a failure, 5 minutes doubling with each
    /// one (at most the refresh period); else the refresh period after its last check, moved by up
    /// to a tenth either way, the same for each list every time.
    func next(for source: ListSource) -> Date {
        let record = record(of: source)
        if record.failures > 0, let attempted = record.attempted {
            return attempted + retryDelay(failures: record.failures)
        }
        guard let checked = record.checked else { return .distantPast }
        let period = Double(settings.refresh.components.seconds)
        return checked + period * (0.9 + 0.2 * Self.spread(source))
    }

    private func record(of source: ListSource) -> ListRecord {
        if let known = records[source] { return known }
        let record = copies.record(of: source) ?? ListRecord(url: Self.url(of: source))
        records[source] = record
        return record
    }

    private func retryDelay(failures: Int) -> TimeInterval {
        min(Double(settings.refresh.components.seconds), 300 * pow(2, Double(max(0, min(failures, 20) - 1))))
    }

    /// A fraction from 0 to 1 that is the same for a list every time.
    private static func spread(_ source: ListSource) -> Double {
        Double(UInt32(source.copyKey?.prefix(8) ?? "0", radix: 16) ?? 0) / Double(UInt32.max)
    }

    private func refresh(_ due: [ListSource], with client: HTTPClient) async {
        var changedCopies: [ListSource] = []
        for source in due {
            fetching.insert(source)
            if await fetch(source, with: client) { changedCopies.append(source) }
            fetching.remove(source)
        }
        if !changedCopies.isEmpty { await changed(changedCopies) }
    }

    /// Fetches `source` and keeps what came when it holds rules; whether the copy in force changed.
    private func fetch(_ source: ListSource, with client: HTTPClient) async -> Bool {
        let url = Self.url(of: source)
        var record = record(of: source)
        let started = now()
        record.attempted = started
        let fetcher = ListFetcher(client: client, settings: settings)
        var kept: [UInt8]?
        do throws(ListFetchProblem) {
            switch try await fetcher.fetch(url, known: copies.hasCopy(of: source) ? record : nil) {
            case .unchanged:
                logger.info("list unchanged", metadata: ["list": "\(source.displayName)"])
            case .fetched(let bytes, let rules, let etag, let lastModified):
                (record.etag, record.lastModified) = (etag, lastModified)
                (record.rules, record.bytes, record.changed) = (rules, bytes.count, started)
                kept = bytes
                logger.notice(
                    "list fetched",
                    metadata: ["list": "\(source.displayName)", "rules": "\(rules)", "bytes": "\(bytes.count)"])
            }
            record.checked = started
            record.lastError = nil
            record.failures = 0
        } catch {
            // lockr is stopping: no failure of the list's.
            if Task.isCancelled { return false }
            record.lastError = error.description
            record.failures += 1
            logger.warning(
                "list not fetched; the copy kept stays in force",
                metadata: ["list": "\(source.displayName)", "error": "\(error)"])
        }
        do {
            try copies.keep(kept, record: record, of: source)
        } catch {
            // The copy in force is still the one before; counted as a failure, so that it is not
            // fetched again at once (a full disk would otherwise have it fetched without end).
            var before = self.record(of: source)
            before.attempted = started
            before.failures += 1
            before.lastError = "fetched but not kept: \(error)"
            records[source] = before
            logger.error("list not kept", metadata: ["list": "\(source.displayName)", "error": "\(error)"])
            return false
        }
        records[source] = record
        return kept != nil
    }

    private static func urls(_ sources: [ListSource]) -> [ListSource] {
        var seen: Set<ListSource> = []
        return sources.filter { source in
            guard case .url = source else { return false }
            return seen.insert(source).inserted
        }
    }

    private static func url(of source: ListSource) -> String {
        if case .url(let url) = source { return url }
        return ""
    }
}
