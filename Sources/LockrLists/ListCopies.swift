import Foundation

/// What lockr knows of one list given by URL: where its kept copy came from and how its last
/// fetches went. Kept beside the copy, so that a restart without network still filters with it and
/// still asks the server only for a newer one.
public struct ListRecord: Codable, Sendable, Equatable {
    public let url: String
    /// The server's validators of the copy kept, sent back so it can answer "not modified".
    public var etag: String?
    public var lastModified: String?
    /// When the copy kept was fetched, or last confirmed unchanged.
    public var checked: Date?
    /// When the copy kept last changed.
    public var changed: Date?
    /// The last fetch's failure, nil once one succeeds; the copy kept stays in force.
    public var lastError: String?
    /// When a fetch was last tried, and how many failed in a row since the last success.
    public var attempted: Date?
    public var failures = 0
    /// The copy's rules and size.
    public var rules = 0
    public var bytes = 0

    public init(url: String) { self.url = url }
}

/// The kept copies of the lists given by URL, in the state directory's `lists/`: `KEY.list` (the
/// list as fetched) and `KEY.json` (its `ListRecord`), both private to lockr's user and replaced
/// whole (a new file renamed over the old), so a crash leaves the old or the new, never a mix.
public struct ListCopies: Sendable {
    public let directory: String

    public init(stateDirectory: String) { directory = stateDirectory + "/lists" }

    /// The copy kept of `source`, or nil when there is none (or it cannot be read safely).
    public func copy(of source: ListSource) -> [UInt8]? {
        guard let key = source.copyKey else { return nil }
        return readFile(key + ".list")
    }

    /// Whether a copy of `source` is kept.
    public func hasCopy(of source: ListSource) -> Bool {
        guard let key = source.copyKey else { return false }
        var info = stat()
        return lstat(directory + "/" + key + ".list", &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// What is known of `source`'s fetches, if it was ever fetched.
    public func record(of source: ListSource) -> ListRecord? {
        guard let key = source.copyKey, let bytes = readFile(key + ".json") else { return nil }
        return try? JSONDecoder().decode(ListRecord.self, from: Data(bytes))
    }

    /// Keeps `bytes` as `source`'s copy (when given) and `record` as what is known of it.
    func keep(_ bytes: [UInt8]?, record: ListRecord, of source: ListSource) throws(ListCopyProblem) {
        guard let key = source.copyKey else { return }
        try makeDirectory()
        if let bytes { try write(bytes, to: key + ".list") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try write(Array((try? encoder.encode(record)) ?? Data()), to: key + ".json")
    }

    /// Removes the copies and records kept of lists other than `kept`, and what a write cut short
    /// left; the keys of the lists removed. Only lockr's own files in a directory of lockr's own
    /// are touched.
    func removeAll(except kept: [ListSource]) -> [String] {
        let keep = Set(kept.compactMap(\.copyKey))
        guard isPrivateDirectory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            return []
        }
        var removed: Set<String> = []
        for name in names {
            guard let match = name.wholeMatch(of: /([0-9a-f]{16})\.(list|json)(\.new)?/) else { continue }
            let key = String(match.1)
            guard match.3 != nil || !keep.contains(key), unlink(directory + "/" + name) == 0 else { continue }
            if match.3 == nil { removed.insert(key) }
        }
        return removed.sorted()
    }

    /// Whether `directory` is a directory (not a link) of lockr's own user that only it may use.
    private var isPrivateDirectory: Bool {
        var info = stat()
        return lstat(directory, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid()
            && info.st_mode & 0o077 == 0
    }

    private func makeDirectory() throws(ListCopyProblem) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw ListCopyProblem("cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        guard isPrivateDirectory else {
            throw ListCopyProblem("\(directory) is not a directory of lockr's own user that only it may use")
        }
    }

    /// A file of lockr's own user that no one else may write, not through a link.
    private func readFile(_ name: String) -> [UInt8]? {
        let path = directory + "/" + name
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            info.st_mode & 0o022 == 0
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                Foundation.read(descriptor, $0.baseAddress! + done, $0.count - done)
            }
            guard count > 0 else { return nil }
            done += count
        }
        return bytes
    }

    private func write(_ bytes: [UInt8], to name: String) throws(ListCopyProblem) {
        let path = directory + "/" + name
        let fresh = path + ".new"
        unlink(fresh)
        let descriptor = open(fresh, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ListCopyProblem("cannot write \(fresh): \(String(cString: strerror(errno)))")
        }
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + done, $0.count - done) }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                unlink(fresh)
                throw ListCopyProblem("cannot write \(fresh): \(reason)")
            }
            done += count
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard synced, rename(fresh, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(fresh)
            throw ListCopyProblem("cannot keep \(path): \(reason)")
        }
    }
}

/// Why a list's copy could not be kept.
public struct ListCopyProblem: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
