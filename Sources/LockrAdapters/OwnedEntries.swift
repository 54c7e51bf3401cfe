/// The comment that marks lockr's entries on backends that keep comments (Pi-hole).
enum EntryComment {
    static let prefix = "lockr:"

    /// `lockr:<app> (<note>)`.
    static func forApp(_ app: String, note: String) -> String { "\(prefix)\(app) (\(note))" }
}

/// A backend's entries split by owner: lockr's own carry `EntryComment`; every other entry is the
/// user's and is never changed.
struct OwnedEntries<Key: Hashable, Entry> {
    private(set) var owned: [Key: Entry] = [:]
    private(set) var users: Set<Key> = []

    init(_ entries: [Entry], key: (Entry) -> Key, comment: (Entry) -> String?) {
        for entry in entries {
            if comment(entry)?.hasPrefix(EntryComment.prefix) == true {
                owned[key(entry)] = entry
            } else {
                users.insert(key(entry))
            }
        }
    }
}
