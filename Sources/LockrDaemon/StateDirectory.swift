import Foundation
import LockrControl

/// The directory where lockr keeps its state. It is made (mode 0700, parents too) at start, so that
/// a path that cannot be used fails at once with a clear message rather than later. Everything the
/// daemon makes is private to its user: the file mode creation mask is set to 077 first.
enum StateDirectory {
    /// Returns notes on the permissions it had to narrow.
    @discardableResult
    static func prepare(_ path: String) throws(LoadError) -> [String] {
        umask(0o077)
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw LoadError("cannot create the state directory \(path): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw LoadError("the state directory \(path) is not a directory")
        }
        guard access(path, W_OK) == 0 else {
            throw LoadError("the state directory \(path) is not writable: \(String(cString: strerror(errno)))")
        }
        return try checkPrivate(path)
    }

    /// Refuses a directory another user owns, or could write into or swap, or holding anything
    /// but files and directories of its owner (or root) that only they may write; narrows the
    /// directory and its files of lockr's own user that others may read or write (returning what
    /// it did). A symbolic link to the directory (systemd's /var/lib/lockr with `DynamicUser`) is
    /// followed, a link in it refused. The CLI checks the same of the files it reads before it
    /// sends the control token.
    @discardableResult
    static func checkPrivate(_ path: String) throws(LoadError) -> [String] {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw LoadError("the state directory \(path) is not a directory")
        }
        guard info.st_uid == geteuid() else {
            throw LoadError(
                "the state directory \(path) belongs to uid \(info.st_uid), not to lockr's user (uid \(geteuid())): "
                    + "another user could replace its files; use a directory of lockr's own user")
        }
        var narrowed: [String] = []
        if info.st_mode & 0o077 != 0 {
            chmod(path, 0o700)
            narrowed.append(
                "narrowed the state directory \(path) from mode \(String(info.st_mode & 0o777, radix: 8)) to 700")
        }
        narrowed += narrowFiles(in: path)
        if let problem = PrivateDirectory.problems(path, entries: .all).first {
            throw LoadError("unsafe state directory: \(problem)")
        }
        return narrowed
    }

    /// Sets the regular files of lockr's own user in `path` that others may read or write to 0600.
    private static func narrowFiles(in path: String) -> [String] {
        var narrowed: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted() ?? [] {
            let file = path + "/" + name
            var info = stat()
            guard lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
                info.st_mode & 0o077 != 0, chmod(file, 0o600) == 0
            else { continue }
            narrowed.append("narrowed \(file) from mode \(String(info.st_mode & 0o777, radix: 8)) to 600")
        }
        return narrowed
    }
}
