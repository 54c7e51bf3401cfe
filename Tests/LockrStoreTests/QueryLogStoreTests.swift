import DNSWire
import Foundation
import GRDB
import LockrStore
import Testing

@Suite struct QueryLogStoreTests {
    func temporaryPath() -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "lockr-querylog-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("queries.sqlite").path
    }

    let hour: Int64 = 1_780_300_800_000

    /// One query into `builder`: from 192.0.2.7, or 192.0.2.9 with a MAC address.
    func add(
        _ name: String, at offset: Int64, person: String = "default", client: UInt8 = 7, outcome: String = "forwarded",
        reason: BlockedReason? = nil, to builder: inout QueryLogBlobBuilder
    ) {
        builder.append(
            at: hour + offset, address: 0xFFFF_C000_0200 | UInt128(client), mac: client == 9 ? 0xAABB_CCDD_EEFF : nil,
            person: person, wireName: WireName.wire(fromPresentation: name)![...], type: 28, outcome: outcome,
            reason: reason, app: name.contains("tiktok") ? "tiktok" : nil,
            upstream: outcome == "forwarded" ? "192.0.2.53:53" : nil,
            latencyMicroseconds: outcome == "forwarded" ? 1_200 : nil)
    }

    /// A blob of queries named by `names`, `spacing` ms apart from `offset`.
    func blob(_ names: [String], from offset: Int64 = 0, spacing: Int64 = 1) -> QueryLogBlob {
        var builder = QueryLogBlobBuilder()
        for (index, name) in names.enumerated() { add(name, at: offset + Int64(index) * spacing, to: &builder) }
        return builder.build()
    }

    @Test func storesReadsFiltersAndFollows() throws {
        let store = try QueryLogStore(path: temporaryPath())
        var builder = QueryLogBlobBuilder()
        add("WWW.Example.com", at: 0, to: &builder)
        add(
            "www.tiktok.com", at: 1_000, person: "kid", client: 9, outcome: "blocked",
            reason: .text("tiktok: daily budget spent"), to: &builder)
        try store.append([builder.build()], counts: [:])
        builder = QueryLogBlobBuilder()
        add(
            "x.ads.example.net", at: 2_000, outcome: "blocked",
            reason: .domainRule(prefix: "||", listedWireLength: 17, source: "ads.txt"), to: &builder)
        add(
            "cdn.example.org", at: 3_000, outcome: "blocked",
            reason: .domainRule(prefix: "*.", listedWireLength: 13, source: "cdn.txt"), to: &builder)
        try store.append([builder.build()], counts: [:])

        let all = try store.rows(QueryLogFilter())
        #expect(all.map(\.name) == ["www.example.com", "www.tiktok.com", "x.ads.example.net", "cdn.example.org"])
        #expect(all.map(\.id) == all.map(\.id).sorted() && Set(all.map(\.id)).count == 4)
        #expect(all[0].client == "192.0.2.7" && all[0].type == "AAAA" && all[0].outcome == "forwarded")
        #expect(all[0].upstream == "192.0.2.53:53" && all[0].latencyMicroseconds == 1_200 && all[0].at == hour)
        #expect(
            all[1].app == "tiktok" && all[1].reason == "tiktok: daily budget spent" && all[1].mac == "aa:bb:cc:dd:ee:ff"
        )
        #expect(all[1].person == "kid" && all[1].client == "192.0.2.9" && all[1].upstream == nil)
        // A domain rule is stored in parts and worded on reading, the listed name taken from the query's.
        #expect(all[2].reason == "blocked by ||ads.example.net^ (ads.txt)")
        #expect(all[3].reason == "blocked by *.example.org (cdn.txt)")

        #expect(try store.rows(QueryLogFilter(person: "kid")).map(\.name) == ["www.tiktok.com"])
        #expect(try store.rows(QueryLogFilter(client: "AA:BB:CC:DD:EE:FF")).map(\.name) == ["www.tiktok.com"])
        #expect(try store.rows(QueryLogFilter(client: "192.0.2.9")).map(\.name) == ["www.tiktok.com"])
        #expect(try store.rows(QueryLogFilter(blockedOnly: true)).count == 3)
        #expect(
            try store.rows(QueryLogFilter(since: hour + 2_000)).map(\.name) == ["x.ads.example.net", "cdn.example.org"])
        // The newest two, oldest first, across batches; then what came after an id (following the log).
        #expect(
            try store.rows(QueryLogFilter(limit: 3)).map(\.name) == [
                "www.tiktok.com", "x.ads.example.net", "cdn.example.org",
            ])
        #expect(
            try store.rows(QueryLogFilter(afterID: all[1].id)).map(\.name) == ["x.ads.example.net", "cdn.example.org"])
        #expect(try store.rows(QueryLogFilter(afterID: all[2].id)).map(\.name) == ["cdn.example.org"])
        #expect(try store.rows(QueryLogFilter(afterID: all[3].id)).isEmpty)
    }

    @Test func entriesOlderThanTheFirstKeepTheirTime() throws {
        let store = try QueryLogStore(path: temporaryPath())
        // Two event loops' batches in one: the second loop's first query came before the first's.
        var builder = QueryLogBlobBuilder()
        add("later.example", at: 800, to: &builder)
        add("earlier.example", at: 250, to: &builder)
        add("latest.example", at: 90_000, to: &builder)
        let blob = builder.build()
        #expect(blob.first == hour + 250 && blob.last == hour + 90_000)
        try store.append([blob], counts: [:])
        #expect(try store.rows(QueryLogFilter()).map(\.at) == [hour + 800, hour + 250, hour + 90_000])
    }

    @Test func aQueryWithoutItsNameAndIPv6Clients() throws {
        let store = try QueryLogStore(path: temporaryPath())
        var builder = QueryLogBlobBuilder()
        builder.append(
            at: hour, address: 0xFD00 << 112 | 7, mac: nil, person: "default", wireName: [], type: 0,
            outcome: "malformed", reason: nil, app: nil, upstream: nil, latencyMicroseconds: nil)
        try store.append([builder.build()], counts: [:])
        let row = try #require(try store.rows(QueryLogFilter()).first)
        #expect(row.client == "fd00::7" && row.name == "" && row.outcome == "malformed" && row.type == "TYPE0")
    }

    @Test func aLogTheFirstSchemaWroteOpensAndKeepsItsCounts() throws {
        let path = temporaryPath()
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('1 queries and hourly counts');
                    CREATE TABLE queries (id INTEGER PRIMARY KEY, at_ms INTEGER NOT NULL, client TEXT NOT NULL, mac TEXT,
                        person TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, outcome TEXT NOT NULL, reason TEXT,
                        app TEXT, upstream TEXT, latency_us INTEGER);
                    INSERT INTO queries (at_ms, client, person, name, type, outcome) VALUES (1, '192.0.2.7', 'default', 'a.example', 'A', 'cached');
                    CREATE TABLE query_counts (hour_ms INTEGER NOT NULL, person TEXT NOT NULL, outcome TEXT NOT NULL,
                        count INTEGER NOT NULL, PRIMARY KEY (hour_ms, person, outcome)) WITHOUT ROWID;
                    INSERT INTO query_counts VALUES (\(hour), 'default', 'cached', 4);
                    """)
        }
        try old.close()
        let store = try QueryLogStore(path: path)
        #expect(try store.counts(person: nil, from: hour, to: hour + 1) == ["cached": 4])
        try store.append([blob(["b.example"])], counts: [:])
        #expect(try store.rows(QueryLogFilter()).map(\.name) == ["b.example"])
    }

    @Test func countsAddUpAcrossBatchesAndOutliveThePrunedQueries() throws {
        let store = try QueryLogStore(path: temporaryPath())
        let blocked = QueryCount(hour: hour, person: "kid", outcome: "blocked")
        let forwarded = QueryCount(hour: hour, person: "kid", outcome: "forwarded")
        try store.append([blob(["a.example"])], counts: [blocked: 3, forwarded: 5])
        try store.append([blob(["b.example"], from: 7_200_000)], counts: [blocked: 2])
        try store.append([], counts: [QueryCount(hour: hour + 3_600_000, person: "default", outcome: "blocked"): 1])
        #expect(try store.counts(person: "kid", from: hour, to: hour + 3_600_000) == ["blocked": 5, "forwarded": 5])
        #expect(try store.counts(person: nil, from: hour, to: hour + 7_200_000) == ["blocked": 6, "forwarded": 5])
        #expect(try store.counts(person: "kid", from: hour + 3_600_000, to: hour + 7_200_000).isEmpty)

        // Retention: batches whose last query is before the cut go; the counts stay.
        #expect(try store.prune(before: hour + 3_600_000, countsBefore: 0) == 1)
        #expect(try store.rows(QueryLogFilter()).map(\.name) == ["b.example"])
        #expect(try store.counts(person: "kid", from: hour, to: hour + 3_600_000) == ["blocked": 5, "forwarded": 5])
        try store.prune(before: 0, countsBefore: hour + 1)
        #expect(try store.counts(person: nil, from: 0, to: .max) == ["blocked": 1])
    }

    /// The dashboard's sums: each hour's and each person's queries and blocked ones from the hourly
    /// counts, and the names and clients asked most from the queries kept since a time.
    @Test func talliesAndTopsForTheDashboard() throws {
        let store = try QueryLogStore(path: temporaryPath())
        try store.append(
            [],
            counts: [
                QueryCount(hour: hour, person: "kid", outcome: "blocked"): 3,
                QueryCount(hour: hour, person: "kid", outcome: "cached"): 4,
                QueryCount(hour: hour, person: "default", outcome: "forwarded"): 2,
                QueryCount(hour: hour + 3_600_000, person: "default", outcome: "blocked"): 1,
            ])
        #expect(
            try store.hourlyTallies(from: hour, to: hour + 7_200_000) == [
                hour: QueryTally(total: 9, blocked: 3), hour + 3_600_000: QueryTally(total: 1, blocked: 1),
            ])
        #expect(try store.hourlyTallies(from: hour + 3_600_000, to: hour + 7_200_000).count == 1)
        #expect(
            try store.personTallies(from: 0, to: .max) == [
                "kid": QueryTally(total: 7, blocked: 3), "default": QueryTally(total: 3, blocked: 1),
            ])

        var builder = QueryLogBlobBuilder()
        for offset in 0..<3 { add("www.example.com", at: Int64(offset), to: &builder) }
        add("ads.example", at: 10, outcome: "blocked", to: &builder)
        add("ads.example", at: 11, client: 9, outcome: "blocked", to: &builder)
        add("old.example", at: -5_000, to: &builder)
        try store.append([builder.build()], counts: [:])
        try store.append([blob(["www.example.com", "b.example"], from: 20)], counts: [:])
        let tops = try store.tops(since: hour, top: 2, scanLimit: 100)
        #expect(tops.asked.map(\.key) == ["www.example.com", "ads.example"] && tops.asked.map(\.count) == [4, 2])
        #expect(tops.blocked.map(\.key) == ["ads.example"] && tops.blocked[0].count == 2)
        #expect(tops.clients.map(\.key) == ["192.0.2.7 (default)", "192.0.2.9 (default)"])
        #expect(tops.scanned == 7 && tops.complete, "the query before `since` is not counted")
        // Read from the newest batch only: said so.
        let newest = try store.tops(since: hour, top: 5, scanLimit: 2)
        #expect(!newest.complete && newest.scanned == 2 && newest.asked.map(\.key) == ["b.example", "www.example.com"])
    }

    @Test func readingStopsAtTheLimitAndSkipsADamagedBatch() throws {
        let path = temporaryPath()
        let store = try QueryLogStore(path: path)
        try store.append([blob((0..<30_000).map { "n\($0).example" }, spacing: 1)], counts: [:])
        try store.append([blob(["last.example"], from: 40_000)], counts: [:])
        let newest = try store.rows(QueryLogFilter(limit: 3))
        #expect(newest.map(\.name) == ["n29998.example", "n29999.example", "last.example"])
        let damage = try DatabaseQueue(path: path)
        try damage.write { db in try db.execute(sql: "UPDATE batches SET data = x'0102' WHERE id = 1") }
        #expect(try store.rows(QueryLogFilter(limit: 10)).map(\.name) == ["last.example"])
    }

    func fileBytes(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// A device asking unique names cannot fill the disk: past its size limit the log drops its
    /// oldest batches and the file and its WAL shrink.
    @Test func theLogKeepsToItsSizeAndGivesTheSpaceBack() throws {
        let path = temporaryPath()
        let store = try QueryLogStore(path: path)
        for round in 0..<40 {
            let names = (0..<2_000).map { "unique-\(round)-\($0)-\(UUID().uuidString.prefix(8)).example.com" }
            try store.append([blob(names, from: Int64(round) * 10_000)], counts: [:])
        }
        let before = fileBytes(path) + fileBytes(path + "-wal")
        let used = try store.usedBytes()
        #expect(used > 2_000_000, "\(used)")
        let removed = try store.limitSize(to: 1_000_000)
        #expect(removed > 40_000)
        #expect(try store.usedBytes() <= 1_000_000)
        #expect(fileBytes(path) <= 1_100_000, "the file shrank to \(fileBytes(path)) from \(before)")
        #expect(fileBytes(path + "-wal") == 0, "the WAL was cut back")
        let kept = try store.rows(QueryLogFilter(limit: 1))
        #expect(kept.first?.name.hasPrefix("unique-39-") == true, "the newest stay")
        #expect(try store.limitSize(to: 1_000_000) == 0, "under the limit nothing goes")
    }

    @Test func anOlderLogIsVacuumedOnceSoThatItCanGiveSpaceBack() throws {
        let path = temporaryPath()
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE older (x)") }
        _ = try QueryLogStore(path: path)
        let mode = try DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "PRAGMA auto_vacuum") }
        #expect(mode == 2)
    }

    @Test func aFullDiskOrALockedDatabaseFailsTheWriteAndKeepsWhatWasThere() throws {
        let path = temporaryPath()
        // max_page_count makes SQLite answer "database or disk is full", as a full disk does.
        let full = try QueryLogStore(path: path, maximumPages: 8)
        try full.append([blob(["kept.example"])], counts: [:])
        let flood = blob((0..<5_000).map { "a-rather-long-name-\($0).example.com" })
        #expect(throws: StoreError.self) { try full.append([flood], counts: [:]) }
        #expect(try full.rows(QueryLogFilter()).map(\.name) == ["kept.example"])

        // Another process holding the write lock: the write gives up after the busy timeout.
        let store = try QueryLogStore(path: temporaryPath(), busyTimeout: 0.05)
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let holder = try DatabaseQueue(path: store.path, configuration: holding)
        try holder.inDatabase { db in try db.execute(sql: "BEGIN EXCLUSIVE") }
        let error = #expect(throws: StoreError.self) { try store.append([blob(["late.example"])], counts: [:]) }
        #expect(error?.description.contains("query log") == true)
        try holder.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        try store.append([blob(["later.example"])], counts: [:])
        #expect(try store.rows(QueryLogFilter()).map(\.name) == ["later.example"])
    }
}
