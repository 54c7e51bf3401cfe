import Foundation
import LockrControl

/// The directory where lockr keeps its state. It is made (mode 0700, parents too) at start, so that
/// a path that cannot be used fails at once with a clear message rather than later.
enum StateDirectory {
    /// Returns a note when it had to narrow the directory's permissions.
    @discardableResult
    static func prepare(_ path: String) throws(LoadError) -> String? {
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

    /// Files lockr keeps in the directory; none may belong to another user.
    static let files = [ControlFiles.addressFile, ControlFiles.tokenFile, "state.sqlite", StateDirectoryLock.fileName]

    /// Refuses a directory another user owns, or could write into or swap; narrows one of lockr's own
    /// user that others may write (returning what it did). A symbolic link to it (systemd's
    /// /var/lib/lockr with `DynamicUser`) is followed. The CLI checks the same before it sends the
    /// control token.
    @discardableResult
    static func checkPrivate(_ path: String) throws(LoadError) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw LoadError("the state directory \(path) is not a directory")
        }
        guard info.st_uid == geteuid() else {
            throw LoadError(
                "the state directory \(path) belongs to uid \(info.st_uid), not to lockr's user (uid \(geteuid())): "
                    + "another user could replace its files; use a directory of lockr's own user")
        }
        var narrowed: String?
        if info.st_mode & 0o077 != 0 {
            chmod(path, 0o700)
            narrowed = "narrowed the state directory \(path) from mode \(String(info.st_mode & 0o777, radix: 8)) to 700"
        }
        if let problem = PrivateDirectory.problems(path, files: files).first {
            throw LoadError("unsafe state directory: \(problem)")
        }
        return narrowed
    }
}
