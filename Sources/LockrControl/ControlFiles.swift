import Foundation
import PlainText

/// How the CLI finds the daemon: two files the daemon writes into its state directory, the bearer
/// token (`control.token`, mode 0600, made at first start and kept) and the address the control API
/// listens on (`control.address`, "127.0.0.1:5380").
public enum ControlFiles {
    public static let tokenFile = "control.token"
    public static let addressFile = "control.address"

    /// The directory's token, made (32 random bytes, hex) if there is none yet. A token file that
    /// others could read is narrowed to 0600.
    public static func token(in directory: String) throws(ControlFilesError) -> String {
        let path = join(directory, tokenFile)
        if let existing = try? String(contentsOfFile: path, encoding: .utf8) {
            let token = existing.trimmed
            if token.count >= 32 {
                var info = stat()
                if stat(path, &info) == 0, info.st_mode & 0o077 != 0 { chmod(path, 0o600) }
                return token
            }
        }
        var generator = SystemRandomNumberGenerator()
        let token = PlainText.hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try write(token + "\n", to: path, mode: 0o600)
        return token
    }

    /// Records where the control API listens.
    public static func writeAddress(_ address: String, in directory: String) throws(ControlFilesError) {
        try write(address + "\n", to: join(directory, addressFile), mode: 0o644)
    }

    /// The daemon's control URL and token, read from `directory` once it is known to be private:
    /// the token is never sent to an address that someone else could have written.
    public static func endpoint(in directory: String) throws(ControlFilesError) -> (url: String, token: String) {
        let addressPath = join(directory, addressFile)
        guard access(addressPath, F_OK) == 0 else {
            if errno == EACCES {
                throw ControlFilesError(
                    "cannot read \(addressPath): permission denied (the daemon runs as another user, "
                        + "e.g. root: run this with sudo)")
            }
            throw ControlFilesError(
                "no lockr daemon found: \(addressPath) is missing (is `lockr serve` running "
                    + "with this state directory? pass --state-dir or --config)")
        }
        if let problem = PrivateDirectory.problems(directory, entries: .named([addressFile, tokenFile])).first {
            throw ControlFilesError("refusing to send the control token: \(problem)")
        }
        guard let address = try? String(contentsOfFile: addressPath, encoding: .utf8) else {
            throw ControlFilesError("cannot read \(addressPath): \(String(cString: strerror(errno)))")
        }
        let tokenPath = join(directory, tokenFile)
        guard access(tokenPath, R_OK) == 0, let token = try? String(contentsOfFile: tokenPath, encoding: .utf8) else {
            throw ControlFilesError(
                "cannot read the control token \(tokenPath): \(String(cString: strerror(errno))) "
                    + "(run as the daemon's user, e.g. with sudo)")
        }
        return (
            "http://" + address.trimmed,
            token.trimmed
        )
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Writes through a temporary file and a rename, so a reader never sees half a file.
    private static func write(_ text: String, to path: String, mode: mode_t) throws(ControlFilesError) {
        let temporary = path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode)
        guard descriptor >= 0 else {
            throw ControlFilesError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ControlFilesError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}

public struct ControlFilesError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Whether a state directory can be trusted: no one but its owner (or root) can write it, its files
/// or any directory above it, and every directory above it is root's or the owner's, so no one
/// else could swap `control.address` and collect the token a client sends there, or swap the
/// databases. The owner may be another user (systemd's `DynamicUser` owns
/// /var/lib/private/lockr): whoever owns the directory can read the token already. A symbolic link
/// to the directory (systemd's /var/lib/lockr) is followed when the directories above it are
/// safe: then no one else could have made or changed it. Links inside it are refused.
public enum PrivateDirectory {
    /// Which of the directory's entries to check.
    public enum Entries: Sendable {
        /// Those of these names that exist (what a client reads).
        case named([String])
        /// Every entry (what the daemon opens or makes there, and whatever else is there).
        case all
    }

    /// What makes `directory` (and its `entries`) untrustworthy, as sentences.
    public static func problems(_ directory: String, entries: Entries = .named([])) -> [String] {
        let named = URL(fileURLWithPath: directory).standardized.path
        guard let resolved = realpath(named, nil) else { return parentProblems(named, owner: nil).compactMap { $0 } }
        let target = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(target, &info) == 0 else { return parentProblems(named, owner: nil).compactMap { $0 } }
        let owner = info.st_uid
        var problems = parentProblems(named, owner: owner)
        if target != named { problems += parentProblems(target, owner: owner) }
        problems.append(problem(named, info, kind: S_IFDIR, "a directory", owner: owner))
        let names: [String]
        switch entries {
        case .named(let given): names = given
        case .all: names = (try? FileManager.default.contentsOfDirectory(atPath: target))?.sorted() ?? []
        }
        for name in names {
            let path = target + "/" + name
            guard lstat(path, &info) == 0 else { continue }
            let isDirectory = info.st_mode & S_IFMT == S_IFDIR && entries.isAll
            problems.append(
                isDirectory
                    ? problem(path, info, kind: S_IFDIR, "a directory", owner: owner)
                    : problem(path, info, kind: S_IFREG, "a regular file", owner: owner))
        }
        return problems.compactMap { $0 }
    }

    /// The directories above `path` that others may write without the sticky bit, or that belong
    /// to someone other than root and `owner` (who could rename `path` and put another in its place).
    private static func parentProblems(_ path: String, owner: uid_t?) -> [String?] {
        var problems: [String?] = []
        var info = stat()
        var parent = PlainText.deletingLastPathComponent(path)
        while !parent.isEmpty {
            if stat(parent, &info) == 0 {
                if info.st_mode & 0o022 != 0, info.st_mode & S_ISVTX == 0 {
                    problems.append(
                        "\(parent), above the state directory, is writable by other users without the sticky bit")
                } else if let owner, info.st_uid != 0, info.st_uid != owner {
                    problems.append(
                        "\(parent), above the state directory, belongs to uid \(info.st_uid), who could swap the "
                            + "directory: use one whose parents are root's or uid \(owner)'s")
                }
            }
            if parent == "/" { break }
            parent = PlainText.deletingLastPathComponent(parent)
        }
        return problems
    }

    /// What is wrong with `path` (its `lstat` in `info`): not of `kind`, neither the directory owner's
    /// nor root's, or writable by others.
    private static func problem(_ path: String, _ info: stat, kind: mode_t, _ kindText: String, owner: uid_t) -> String?
    {
        if info.st_mode & S_IFMT != kind { return "\(path) is not \(kindText)" }
        if info.st_uid != owner && info.st_uid != 0 {
            return "\(path) belongs to uid \(info.st_uid), not to the directory's owner (uid \(owner)) or root"
        }
        if info.st_mode & 0o022 != 0 { return "\(path) is writable by other users (mode \(octal(info.st_mode)))" }
        return nil
    }

    private static func octal(_ mode: mode_t) -> String { String(mode & 0o7777, radix: 8) }
}

extension PrivateDirectory.Entries {
    fileprivate var isAll: Bool {
        if case .all = self { return true }
        return false
    }
}
