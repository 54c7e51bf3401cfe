import DNSProxy
import DNSWire
import LockrAPI
import LockrControl
import LockrStore
import Synchronization

/// The home's own names as DNS answers them: the config file's (`[local] records`, the hosts
/// files) and those added while lockr runs (the admin page, `lockr records`), kept in the state
/// database. A change is checked with the rest as a whole, stored, then swapped into the pipeline.
/// It never needs a gate: local records are answered after the block lists, the guarded apps and
/// safe search, so no record frees a name those hold.
final class HomeRecords: Sendable {
    private struct Table {
        var configured: [LocalRecord] = []
        var settings = LocalSettings()
        var added: [StoredHomeRecord] = []
        var answers = LocalRecords([], ttl: 300)
    }

    private let store: HomeRecordStore
    private let table = Mutex(Table())
    /// Called after a change, to rebuild the DNS pipeline around it.
    private let changed = Mutex<(@Sendable () -> Void)?>(nil)

    /// The records `store` keeps, on top of the configuration's (`configured`, as `settings` gives them).
    init(store: HomeRecordStore, configured: [LocalRecord], settings: LocalSettings) throws(StoreError) {
        self.store = store
        let added = try store.all()
        table.withLock { table in
            table.added = added
            Self.take(configured, settings, into: &table)
        }
    }

    /// What the pipeline answers the home's own names with.
    var answers: LocalRecords { table.withLock { $0.answers } }

    /// Calls `body` after each change.
    func whenChanged(_ body: @escaping @Sendable () -> Void) { changed.withLock { $0 = body } }

    /// Takes a reloaded configuration's records; the caller rebuilds the pipeline.
    func reconfigure(configured: [LocalRecord], settings: LocalSettings) {
        table.withLock { Self.take(configured, settings, into: &$0) }
    }

    private static func take(_ configured: [LocalRecord], _ settings: LocalSettings, into table: inout Table) {
        table.configured = configured
        table.settings = settings
        table.answers = LocalRecords(configured + parsed(table.added), ttl: UInt32(settings.ttl))
    }

    private static func parsed(_ added: [StoredHomeRecord]) -> [LocalRecord] {
        added.compactMap { try? LocalRecord($0.record) }
    }

    /// Every record: the config file's lines, the hosts files by name, those added here.
    func response() -> Components.Schemas.LocalRecordsResponse {
        table.withLock { table in
            Components.Schemas.LocalRecordsResponse(
                records: table.settings.records.map { .init(record: $0, comment: "", source: .config) }
                    + table.added.map { .init(record: $0.record, comment: $0.comment, source: .added) },
                hostsFiles: table.settings.hostsFiles, ttlSeconds: table.settings.ttl)
        }
    }

    /// Adds `line` (as `[local] records` writes it), or gives it another comment; removes the
    /// record of `line` with `remove`. Refused whole when the records together would be wrong (a
    /// CNAME left pointing nowhere) or cannot be stored.
    func change(
        _ line: String, comment: String, remove: Bool
    ) throws(ControlFailure) -> Components.Schemas.LocalRecordsResponse {
        let record: LocalRecord
        do { record = try LocalRecord(line) } catch {
            throw .refused(.invalidSettings("\(error)"))
        }
        try table.withLock { (table: inout Table) throws(ControlFailure) in
            var added = table.added
            let index = added.firstIndex { (try? LocalRecord($0.record)) == record }
            if remove {
                guard let index else {
                    let configured = table.configured.contains(record)
                    throw .refused(
                        .notFound(
                            configured
                                ? "'\(line)' is the config file's: change it there"
                                : "no record '\(line)' was added (`lockr records` shows them)"))
                }
                added.remove(at: index)
            } else if let index {
                guard added[index].comment != comment else {
                    throw .refused(.nothingToDo("'\(line)' is there already"))
                }
                added[index] = StoredHomeRecord(record: added[index].record, comment: comment)
            } else {
                guard !table.configured.contains(record) else {
                    throw .refused(.nothingToDo("'\(line)' is in the config file already"))
                }
                added.append(StoredHomeRecord(record: line, comment: comment))
            }
            let all = table.configured + Self.parsed(added)
            if let problem = LocalRecords.problems(all).first { throw .refused(.invalidSettings(problem)) }
            do { try store.replace(with: added) } catch {
                throw .storage("cannot store the change, so nothing changed: \(error)")
            }
            table.added = added
            table.answers = LocalRecords(all, ttl: UInt32(table.settings.ttl))
        }
        changed.withLock { $0 }?()
        return response()
    }
}
