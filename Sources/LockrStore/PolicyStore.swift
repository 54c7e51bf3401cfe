import Foundation
import GRDB
import LockrPolicy

/// A store that cannot be opened or written, with the file and SQLite's own words.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    /// Which database: "state database", "query log".
    public var what: String = "state database"

    public var description: String { "\(what) \(path): \(reason)" }
}

/// One person's state to save, with the days that ended and the events since the last save.
public struct PersonRecord: Sendable {
    public let person: String
    public let state: PolicyState
    public let closedDays: [DayRecord]
    public let events: [PolicyEvent]

    public init(person: String, state: PolicyState, closedDays: [DayRecord] = [], events: [PolicyEvent] = []) {
        self.person = person
        self.state = state
        self.closedDays = closedDays
        self.events = events
    }
}

/// The policy's memory: a SQLite database (WAL mode, mode 0600) in the state directory, holding
/// each person's state apart.
///
/// `save` writes the whole policy state and new events in one transaction, so a kill at any moment
/// leaves either the previous save or this one. The schema is built by numbered migrations; a shipped
/// migration is never edited, a change is a new one.
public final class PolicyStore: Sendable {
    let database: DatabaseQueue
    public let path: String

    /// Opens (or creates) the database at `path` and brings its schema up to date.
    public init(path: String) throws(StoreError) {
        self.path = path
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
            // It holds a backend's session id and the household's usage: lockr's user only. (SQLite
            // gives its -wal and -shm files the database's mode.)
            for file in [path, path + "-wal", path + "-shm"] { chmod(file, 0o600) }
            try Self.migrator.migrate(database)
        } catch {
            throw StoreError(path: path, reason: "\(error)")
        }
    }

    /// The schema, one migration per step. Never edit a migration once it has shipped.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1 policy state and event log") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE TABLE windows (
                        id INTEGER PRIMARY KEY,
                        app TEXT,
                        kind TEXT NOT NULL,
                        opened_ms INTEGER NOT NULL,
                        ends_ms INTEGER NOT NULL,
                        hour_resets_ms INTEGER
                    );
                    CREATE TABLE days (
                        day TEXT PRIMARY KEY,
                        start_ms INTEGER NOT NULL,
                        end_ms INTEGER NOT NULL,
                        snoozes INTEGER NOT NULL,
                        extensions INTEGER NOT NULL,
                        emergencies INTEGER NOT NULL,
                        phrase_misses INTEGER NOT NULL,
                        cooldown_until_ms INTEGER
                    );
                    CREATE TABLE usage (
                        day TEXT NOT NULL,
                        app TEXT NOT NULL,
                        used_ms INTEGER NOT NULL,
                        PRIMARY KEY (day, app)
                    );
                    CREATE TABLE extra_budget (
                        day TEXT NOT NULL,
                        budget TEXT NOT NULL,
                        extra_ms INTEGER NOT NULL,
                        PRIMARY KEY (day, budget)
                    );
                    CREATE TABLE events (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at_ms INTEGER NOT NULL,
                        type TEXT NOT NULL,
                        app TEXT,
                        detail TEXT NOT NULL
                    );
                    CREATE INDEX events_by_time ON events (at_ms);
                    """)
        }
        migrator.registerMigration("2 adapter outbox and backend state") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        backend TEXT NOT NULL,
                        created_ms INTEGER NOT NULL,
                        payload BLOB NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        last_error TEXT
                    );
                    CREATE INDEX outbox_by_backend ON outbox (backend, id);
                    CREATE TABLE backend_state (
                        backend TEXT NOT NULL,
                        key TEXT NOT NULL,
                        value TEXT NOT NULL,
                        PRIMARY KEY (backend, key)
                    );
                    """)
        }
        migrator.registerMigration("3 charged use and exact metering") { db in
            try db.execute(sql: "ALTER TABLE usage ADD COLUMN charged_ms INTEGER")
        }
        // Everything a lockr without people kept becomes the default person's.
        migrator.registerMigration("4 state per person") { db in
            try db.execute(
                sql: """
                    CREATE TABLE meta_by_person (
                        person TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (person, key)
                    );
                    INSERT INTO meta_by_person SELECT 'default', key, value FROM meta;
                    DROP TABLE meta;
                    ALTER TABLE meta_by_person RENAME TO meta;
                    ALTER TABLE windows ADD COLUMN person TEXT NOT NULL DEFAULT 'default';
                    CREATE TABLE days_by_person (
                        person TEXT NOT NULL,
                        day TEXT NOT NULL,
                        start_ms INTEGER NOT NULL,
                        end_ms INTEGER NOT NULL,
                        snoozes INTEGER NOT NULL,
                        extensions INTEGER NOT NULL,
                        emergencies INTEGER NOT NULL,
                        phrase_misses INTEGER NOT NULL,
                        cooldown_until_ms INTEGER,
                        PRIMARY KEY (person, day)
                    );
                    INSERT INTO days_by_person SELECT
                        'default', day, start_ms, end_ms, snoozes, extensions, emergencies, phrase_misses,
                        cooldown_until_ms
                    FROM days;
                    DROP TABLE days;
                    ALTER TABLE days_by_person RENAME TO days;
                    CREATE TABLE usage_by_person (
                        person TEXT NOT NULL,
                        day TEXT NOT NULL,
                        app TEXT NOT NULL,
                        used_ms INTEGER NOT NULL,
                        charged_ms INTEGER,
                        PRIMARY KEY (person, day, app)
                    );
                    INSERT INTO usage_by_person SELECT 'default', day, app, used_ms, charged_ms FROM usage;
                    DROP TABLE usage;
                    ALTER TABLE usage_by_person RENAME TO usage;
                    CREATE TABLE extra_budget_by_person (
                        person TEXT NOT NULL,
                        day TEXT NOT NULL,
                        budget TEXT NOT NULL,
                        extra_ms INTEGER NOT NULL,
                        PRIMARY KEY (person, day, budget)
                    );
                    INSERT INTO extra_budget_by_person SELECT 'default', day, budget, extra_ms FROM extra_budget;
                    DROP TABLE extra_budget;
                    ALTER TABLE extra_budget_by_person RENAME TO extra_budget;
                    ALTER TABLE events ADD COLUMN person TEXT NOT NULL DEFAULT 'default';
                    CREATE INDEX events_by_person_and_time ON events (person, at_ms);
                    """)
        }
        // The day's gate results and opens, as JSON objects.
        migrator.registerMigration("5 gate results and opens per day") { db in
            try db.execute(sql: "ALTER TABLE days ADD COLUMN gates TEXT; ALTER TABLE days ADD COLUMN opens TEXT")
        }
        migrator.registerMigration("6 sessions, blocked queries and budgets per day") { db in
            try db.execute(
                sql: """
                    ALTER TABLE days ADD COLUMN sessions TEXT;
                    ALTER TABLE days ADD COLUMN blocked TEXT;
                    ALTER TABLE days ADD COLUMN budgets TEXT
                    """)
        }
        // What the household as a whole keeps: the kind of clock its policy runs on.
        migrator.registerMigration("7 household") { db in
            try db.execute(sql: "CREATE TABLE household (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        }
        // The devices seen, kept across restarts.
        migrator.registerMigration("8 devices seen") { db in
            try db.execute(
                sql: """
                    CREATE TABLE devices_seen (
                        address TEXT NOT NULL, mac TEXT, person TEXT NOT NULL, identified_by TEXT NOT NULL,
                        last_seen_ms INTEGER NOT NULL)
                    """)
        }
        // Which action wrote each event (none: the policy's own time).
        migrator.registerMigration("9 the action of each event") { db in
            try db.execute(sql: "ALTER TABLE events ADD COLUMN action TEXT")
        }
        // The ClientID a device asked with over DNS over TLS or HTTPS.
        migrator.registerMigration("10 the ClientID of each device") { db in
            try db.execute(sql: "ALTER TABLE devices_seen ADD COLUMN client_id TEXT")
        }
        return migrator
    }

    /// What SQLite's quick check finds wrong with the database (the outbox's tables included);
    /// empty when it is sound.
    public func integrityProblems() throws(StoreError) -> [String] {
        try access {
            try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check").filter { $0 != "ok" } }
        }
    }

    /// The clock the policy kept here runs on: nil for a store that holds no policy yet, or one
    /// an older lockr wrote (which ran on the real clock).
    public func policyClock() throws(StoreError) -> PolicyClockKind? {
        try access {
            try database.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM household WHERE key = 'clock'")
            }
        }.flatMap(PolicyClockKind.init(rawValue:))
    }

    /// Records the clock the policy kept here runs on.
    public func setPolicyClock(_ kind: PolicyClockKind) throws(StoreError) {
        try access {
            try database.write { db in
                try db.execute(
                    sql:
                        "INSERT INTO household (key, value) VALUES ('clock', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    arguments: [kind.rawValue])
            }
        }
    }

    /// The people whose state the store holds, in name order.
    public func people() throws(StoreError) -> [String] {
        try access {
            try database.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT person FROM meta ORDER BY person") }
        }
    }

    /// The state saved last for `person`, or nil if none was ever saved.
    public func load(person: String = People.defaultName) throws(StoreError) -> PolicyState? {
        try access {
            try database.read { db -> PolicyState? in
                let meta = Dictionary(
                    uniqueKeysWithValues: try Row.fetchAll(
                        db, sql: "SELECT key, value FROM meta WHERE person = ?", arguments: [person]
                    ).map { ($0["key"] as String, $0["value"] as String) })
                guard let dayKey = meta["current_day"], let lastSeen = meta["last_seen_ms"].flatMap(Int64.init),
                    let today = try Self.day(dayKey, of: person, in: db)
                else { return nil }
                var state = PolicyState(today: today, lastSeen: Instant(milliseconds: lastSeen))
                state.overlay = Self.overlay(from: meta)
                state.metering = Self.metering(from: meta, today: today)
                Self.readChanges(from: meta, into: &state)
                state.windows = UnlockWindows(
                    try Row.fetchAll(
                        db, sql: "SELECT * FROM windows WHERE person = ? ORDER BY id", arguments: [person]
                    ).compactMap { row in
                        guard let kind = WindowKind(rawValue: row["kind"]) else { return nil }
                        return UnlockWindow(
                            app: row["app"], kind: kind, opened: Instant(milliseconds: row["opened_ms"]),
                            ends: Instant(milliseconds: row["ends_ms"]),
                            hourResets: (row["hour_resets_ms"] as Int64?).map(Instant.init(milliseconds:)))
                    })
                return state
            }
        }
    }

    /// Writes `state` (as of its `lastSeen`), the final records of days that ended, and new events,
    /// for `person`.
    public func save(
        _ state: PolicyState, closedDays: [DayRecord] = [], events: [PolicyEvent] = [],
        person: String = People.defaultName
    )
        throws(StoreError)
    {
        try save([PersonRecord(person: person, state: state, closedDays: closedDays, events: events)])
    }

    /// Writes what each of `records` holds, all in one transaction.
    public func save(_ records: [PersonRecord]) throws(StoreError) {
        try access {
            try database.write { db in
                for record in records { try Self.write(record, into: db) }
            }
        }
    }

    private static func write(_ record: PersonRecord, into db: Database) throws {
        let (person, state) = (record.person, record.state)
        for day in record.closedDays { try write(day, of: person, into: db) }
        try write(state.today, of: person, into: db)
        try db.execute(sql: "DELETE FROM windows WHERE person = ?", arguments: [person])
        for window in state.windows.all {
            try db.execute(
                sql: """
                    INSERT INTO windows (person, app, kind, opened_ms, ends_ms, hour_resets_ms) VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    person, window.app, window.kind.rawValue, window.opened.milliseconds, window.ends.milliseconds,
                    window.hourResets?.milliseconds,
                ])
        }
        var meta = meta(from: state.overlay)
        meta["metering"] = String(decoding: try JSONEncoder().encode(state.metering), as: UTF8.self)
        try writeChanges(of: state, into: &meta)
        meta["current_day"] = state.today.day.key
        meta["last_seen_ms"] = String(state.lastSeen.milliseconds)
        try db.execute(sql: "DELETE FROM meta WHERE person = ?", arguments: [person])
        for (key, value) in meta {
            try db.execute(
                sql: "INSERT INTO meta (person, key, value) VALUES (?, ?, ?)", arguments: [person, key, value])
        }
        for event in record.events {
            try db.execute(
                sql: "INSERT INTO events (person, at_ms, type, app, detail, action) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    person, event.at.milliseconds, event.type.rawValue, event.app, event.detail, event.action?.rawValue,
                ])
        }
    }

    /// Events at or after `since` of `person` (everyone's when nil), oldest first, at most the
    /// `limit` newest of them.
    public func events(since: Instant, limit: Int = 1000, person: String? = nil) throws(StoreError) -> [LoggedEvent] {
        try access {
            try database.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT * FROM (
                            SELECT * FROM events WHERE at_ms >= ? AND (? IS NULL OR person = ?) ORDER BY id DESC LIMIT ?
                        ) ORDER BY id
                        """,
                    arguments: [since.milliseconds, person, person, limit]
                ).map { row in
                    LoggedEvent(
                        person: row["person"],
                        event: PolicyEvent(
                            at: Instant(milliseconds: row["at_ms"]), type: EventType(rawValue: row["type"]) ?? .lock,
                            app: row["app"], detail: row["detail"],
                            action: (row["action"] as String?).flatMap(ActionName.init(rawValue:))))
                }
            }
        }
    }

    /// The records of `person`'s days from `first` to `last` (day keys, "2026-06-01"), oldest first;
    /// a day lockr did not run has none.
    public func days(person: String, from first: String, to last: String) throws(StoreError) -> [DayRecord] {
        try access {
            try database.read { db in
                try String.fetchAll(
                    db, sql: "SELECT day FROM days WHERE person = ? AND day >= ? AND day <= ? ORDER BY day",
                    arguments: [person, first, last]
                ).compactMap { try Self.day($0, of: person, in: db) }
            }
        }
    }

    /// Metered use per app (and "*" for all together) of `person` on the day with this key.
    public func usage(day: String, person: String = People.defaultName) throws(StoreError) -> [String: Duration] {
        try access {
            try database.read { db in try Self.usage(day, of: person, in: db).used }
        }
    }

    func access<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch { throw StoreError(path: path, reason: "\(error)") }
    }
}

/// The clock a store's policy runs on.
public enum PolicyClockKind: String, Sendable {
    /// The machine's own: the policy people live by.
    case real
    /// Moved by `--start-at` or sped up by `--time-scale`: a demo's or a test's.
    case demo
}
