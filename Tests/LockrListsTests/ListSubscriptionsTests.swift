import DNSTestSupport
import Foundation
import Logging
import Testing

@testable import LockrLists

/// Lists fetched from a real HTTP server on loopback (Tests/Scripts/list_server.py): each format,
/// the validators sent back, and every way a fetch fails leaving the copy before in force.
@Suite struct ListSubscriptionsTests {
    let directory = NSTemporaryDirectory() + "lockr-lists-\(UUID().uuidString)"

    func subscriptions(
        _ sources: [String], maximumBytes: Int = 1 << 20, now: @escaping @Sendable () -> Date = Date.init,
        changed: @escaping @Sendable ([ListSource]) async -> Void = { _ in }
    ) throws -> ListSubscriptions {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var settings = ListSettings.defaults
        settings.maximumBytes = maximumBytes
        // Generous: the whole suite runs beside this test on a couple of cores.
        settings.timeout = .seconds(60)
        return ListSubscriptions(
            copies: ListCopies(stateDirectory: directory), sources: try sources.map { try ListSource(entry: $0) },
            settings: settings, logger: Logger(label: "test"), now: now, changed: changed)
    }

    func copy(_ url: String) throws -> String {
        String(
            decoding: ListCopies(stateDirectory: directory).copy(of: try ListSource(entry: url)) ?? [], as: UTF8.self)
    }

    @Test func eachFormatIsFetchedAndKeptPrivatelyWithItsValidators() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ListServer()
        let urls = [server.url("/hosts.txt"), server.url("/adblock.txt"), server.url("/plain.txt")]
        let changes = Counter()
        let lists = try subscriptions(urls, changed: { _ in changes.add() })
        let statuses = try await lists.update(nil)
        #expect(statuses.map(\.record.rules) == [2, 2, 1], "\(statuses.map { $0.record.lastError ?? "-" })")
        #expect(statuses.allSatisfy { $0.kept && $0.record.lastError == nil && $0.record.checked != nil })
        #expect(
            statuses[0].record.etag == "\"v1\"" && statuses[0].record.lastModified == "Wed, 25 Nov 2026 10:00:00 GMT")
        #expect(try copy(urls[0]).contains("v1.tracker.test"))
        #expect(try copy(urls[1]).contains("||adblock.example.test^"), "gzip taken apart")
        #expect(server.requests.contains { $0.hasPrefix("GET /adblock.txt - ") && $0.contains("gzip") })
        #expect(changes.value == 1, "one rebuild for the lists fetched together")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory + "/lists") {
            let mode = try FileManager.default.attributesOfItem(atPath: directory + "/lists/" + name)[.posixPermissions]
            #expect(mode as? Int == 0o600, "\(name)")
        }
    }

    @Test func anUnchangedListIsNotSentAgainAndAChangedOneIs() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ListServer()
        let url = server.url("/hosts.txt")
        let changes = Counter()
        let lists = try subscriptions([url], changed: { _ in changes.add() })
        let first = try await lists.update(nil)[0].record
        let second = try await lists.update(url)[0].record
        #expect(
            server.requests.last == "GET /hosts.txt \"v1\" gzip, deflate"
                || server.requests.last?.hasPrefix("GET /hosts.txt \"v1\"") == true)
        let (firstChecked, secondChecked) = (try #require(first.checked), try #require(second.checked))
        #expect(second.changed == first.changed && secondChecked > firstChecked, "304: checked, not changed")
        #expect(changes.value == 1)
        try server.set("/set-version/2")
        let third = try await lists.update(url)[0].record
        let (firstChanged, thirdChanged) = (try #require(first.changed), try #require(third.changed))
        #expect(third.etag == "\"v2\"" && thirdChanged > firstChanged)
        #expect(try copy(url).contains("v2.tracker.test") && changes.value == 2)
    }

    /// A list the configuration no longer names loses its copy (and what a cut-short write left);
    /// the others, and files that are not lockr's, stay.
    @Test func theCopiesOfListsNoLongerNamedAreRemoved() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ListServer()
        let (kept, dropped) = (server.url("/hosts.txt"), server.url("/plain.txt"))
        let lists = try subscriptions([kept, dropped])
        _ = try await lists.update(nil)
        let folder = directory + "/lists"
        #expect(FileManager.default.createFile(atPath: folder + "/0123456789abcdef.list.new", contents: Data()))
        #expect(FileManager.default.createFile(atPath: folder + "/notes.txt", contents: Data("mine".utf8)))
        let before = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(before.count == 6, "\(before)")
        await lists.reconfigure(sources: [try ListSource(entry: kept)], settings: .defaults)
        let after = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        let key = try #require(try ListSource(entry: kept).copyKey)
        #expect(after == ["\(key).json", "\(key).list", "notes.txt"])
        let (keptCopy, droppedCopy) = (try copy(kept), try copy(dropped))
        #expect(!keptCopy.isEmpty && droppedCopy.isEmpty)
    }

    @Test func aCopyThatCannotBeWrittenIsAFailureAndIsNotFetchedAgainAtOnce() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ListServer()
        let clock = TestClock(Date(timeIntervalSince1970: 1_795_000_000))
        let lists = try subscriptions([server.url("/hosts.txt")], now: { clock.now })
        // Where the copies go is a file: nothing can be written there (root may write anywhere else).
        FileManager.default.createFile(atPath: directory + "/lists", contents: Data("x".utf8))
        let status = try await lists.update(nil)[0]
        #expect(status.record.lastError?.hasPrefix("fetched but not kept: ") == true, "\(status.record)")
        #expect(status.record.failures == 1 && !status.kept)
        #expect(status.next.timeIntervalSince(clock.now) == 300, "tried again in 5 minutes, not at once")
    }

    @Test func aRedirectIsFollowedAndALoopIsNot() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ListServer()
        let lists = try subscriptions([server.url("/moved"), server.url("/loop")])
        let statuses = try await lists.update(nil)
        #expect(statuses[0].record.rules == 2 && statuses[0].kept)
        #expect(statuses[1].record.lastError == "more than 5 redirects" && !statuses[1].kept)
    }

    @Test(arguments: [
        ("error", "HTTP 500"), ("truncated", "closed before the whole list came"),
        ("huge", "larger than lists.max-size (1 MB)"),
        ("html", "no rules in what came"), ("empty", "the list came empty"),
    ])
    func aFailedFetchIsSaidAndTheCopyBeforeStaysInForce(kind: String, words: String) async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ListServer()
        let url = server.url("/hosts.txt")
        let changes = Counter()
        let lists = try subscriptions([url], changed: { _ in changes.add() })
        _ = try await lists.update(nil)
        try server.set("/set-broken/\(kind)")
        let status = try await lists.update(nil)[0]
        #expect(status.record.lastError?.contains(words) == true, "\(kind): \(status.record.lastError ?? "no error")")
        #expect(status.kept && status.record.failures == 1 && status.record.rules == 2)
        #expect(try copy(url).contains("v1.tracker.test"), "\(kind): the copy before stays")
        #expect(changes.value == 1, "\(kind): nothing to swap in")
    }

    @Test func aListIsDueAfterItsJitteredPeriodAndAfterAFailureSooner() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try ListServer()
        let url = server.url("/hosts.txt")
        let clock = TestClock(Date(timeIntervalSince1970: 1_795_000_000))
        let lists = try subscriptions([url], now: { clock.now })
        #expect(await lists.statuses()[0].next == .distantPast, "never fetched: at once")
        let fetched = try await lists.update(nil)[0]
        let day = 86_400.0
        let wait = fetched.next.timeIntervalSince(clock.now)
        #expect(wait >= 0.9 * day && wait <= 1.1 * day, "\(wait / day) days; \(fetched.record.lastError ?? "no error")")
        try server.set("/set-broken/error")
        for (failures, minutes) in [(1, 5.0), (2, 10.0), (3, 20.0)] {
            let failed = try await lists.update(nil)[0]
            #expect(failed.record.failures == failures)
            #expect(failed.next.timeIntervalSince(clock.now) == minutes * 60, "failure \(failures)")
        }
    }
}

/// A number tests count with from other tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

/// A wall clock that stands still.
final class TestClock: Sendable {
    let now: Date
    init(_ now: Date) { self.now = now }
}
