import Foundation
import GRDB
import LockrStore
import Testing

@Suite struct QueryLogStoreTests {
    func temporaryPath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockr-querylog-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("queries.sqlite").path
    }

    let hour: Int64 = 1_780_300_800_000

    func row(_ name: String, at offset: Int64, person: String = "default", client: String = "192.0.2.7",
             outcome: String = "forwarded") -> QueryLogRow {
        QueryLogRow(
            at: hour + offset, client: client, mac: client == "192.0.2.9" ? "aa:bb:cc:dd:ee:ff" : nil, person: person,
            name: name, type: "A", outcome: outcome, reason: outcome == "blocked" ? "blocked by ads.txt" : nil,
            app: name.contains("tiktok") ? "tiktok" : nil, upstream: outcome == "forwarded" ? "192.0.2.53:53" : nil,
            latencyMicroseconds: outcome == "forwarded" ? 1_200 : nil)
    }

    @Test func storesReadsFiltersAndFollows() throws {
        let store = try QueryLogStore(path: temporaryPath())
        try store.append(
            [
                row("www.example.com", at: 0), row("www.tiktok.com", at: 1_000, person: "kid", client: "192.0.2.9",
                    outcome: "blocked"),
                row("ads.example.net", at: 2_000, outcome: "blocked"), row("example.org", at: 3_000, outcome: "cached"),
            ], counts: [:])
        let all = try store.rows(QueryLogFilter())
        #expect(all.map(\.name) == ["www.example.com", "www.tiktok.com", "ads.example.net", "example.org"])
        #expect(all.map(\.id) == all.map(\.id).sorted())
        #expect(all[0].upstream == "192.0.2.53:53" && all[0].latencyMicroseconds == 1_200)
        #expect(all[1].app == "tiktok" && all[1].reason == "blocked by ads.txt" && all[1].mac == "aa:bb:cc:dd:ee:ff")

        #expect(try store.rows(QueryLogFilter(person: "kid")).map(\.name) == ["www.tiktok.com"])
        #expect(try store.rows(QueryLogFilter(client: "AA:BB:CC:DD:EE:FF")).map(\.name) == ["www.tiktok.com"])
        #expect(try store.rows(QueryLogFilter(client: "192.0.2.9")).map(\.name) == ["www.tiktok.com"])
        #expect(try store.rows(QueryLogFilter(blockedOnly: true)).map(\.name) == ["www.tiktok.com", "ads.example.net"])
        #expect(try store.rows(QueryLogFilter(since: hour + 2_000)).map(\.name) == ["ads.example.net", "example.org"])
        // The newest two, oldest first; then what came after an id (following the log).
        #expect(try store.rows(QueryLogFilter(limit: 2)).map(\.name) == ["ads.example.net", "example.org"])
        #expect(try store.rows(QueryLogFilter(afterID: all[2].id)).map(\.name) == ["example.org"])
        #expect(try store.rows(QueryLogFilter(afterID: all[3].id)).isEmpty)
    }

    @Test func countsAddUpAcrossBatchesAndOutliveThePrunedQueries() throws {
        let store = try QueryLogStore(path: temporaryPath())
        let blocked = QueryCount(hour: hour, person: "kid", outcome: "blocked")
        let forwarded = QueryCount(hour: hour, person: "kid", outcome: "forwarded")
        try store.append([row("a.example", at: 0)], counts: [blocked: 3, forwarded: 5])
        try store.append([row("b.example", at: 7_200_000)], counts: [blocked: 2])
        try store.append([], counts: [QueryCount(hour: hour + 3_600_000, person: "default", outcome: "blocked"): 1])
        #expect(try store.counts(person: "kid", from: hour, to: hour + 3_600_000) == ["blocked": 5, "forwarded": 5])
        #expect(try store.counts(person: nil, from: hour, to: hour + 7_200_000) == ["blocked": 6, "forwarded": 5])
        #expect(try store.counts(person: "kid", from: hour + 3_600_000, to: hour + 7_200_000).isEmpty)

        // Retention: queries before the cut go, a slice at a time; the counts stay.
        #expect(try store.prune(before: hour + 3_600_000, countsBefore: 0) == 1)
        #expect(try store.rows(QueryLogFilter()).map(\.name) == ["b.example"])
        #expect(try store.counts(person: "kid", from: hour, to: hour + 3_600_000) == ["blocked": 5, "forwarded": 5])
        try store.prune(before: 0, countsBefore: hour + 1)
        #expect(try store.counts(person: nil, from: 0, to: .max) == ["blocked": 1])
    }

    @Test func pruningManyRowsGoesInSlices() throws {
        let store = try QueryLogStore(path: temporaryPath())
        let rows = (0..<25_000).map { row("n\($0).example", at: Int64($0)) }
        try store.append(rows, counts: [:])
        #expect(try store.prune(before: hour + 24_000, countsBefore: 0) == 24_000)
        #expect(try store.rows(QueryLogFilter(limit: 10_000)).count == 1_000)
    }

    @Test func aFullDiskOrALockedDatabaseFailsTheWriteAndKeepsWhatWasThere() throws {
        let path = temporaryPath()
        // max_page_count makes SQLite answer "database or disk is full", as a full disk does.
        let full = try QueryLogStore(path: path, maximumPages: 8)
        try full.append([row("kept.example", at: 0)], counts: [:])
        let flood = (0..<5_000).map { row("a-rather-long-name-\($0).example.com", at: Int64($0)) }
        #expect(throws: StoreError.self) { try full.append(flood, counts: [:]) }
        #expect(try full.rows(QueryLogFilter()).map(\.name) == ["kept.example"])

        // Another process holding the write lock: the write gives up after the busy timeout.
        let store = try QueryLogStore(path: temporaryPath(), busyTimeout: 0.05)
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: store.path, configuration: holding)
        try holder.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        let error = #expect(throws: StoreError.self) { try store.append([row("late.example", at: 0)], counts: [:]) }
        #expect(error?.description.contains("query log") == true)
        try holder.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        try store.append([row("later.example", at: 0)], counts: [:])
        #expect(try store.rows(QueryLogFilter()).map(\.name) == ["later.example"])
    }
}
