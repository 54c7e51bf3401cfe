import Foundation
import PlainText

/// An exclusive lock on a state directory (`flock` on its `lock` file, which holds the daemon's
/// pid), so that a second daemon on the same directory refuses to start instead of overwriting the
/// first one's control files. The kernel drops the lock when the process dies, even by `kill -9`.
final class StateDirectoryLock: Sendable {
    static let fileName = "lock"
    private let descriptor: Int32

    init(directory: String) throws(LoadError) {
        let path = directory + "/" + Self.fileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw LoadError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmed
            close(descriptor)
            throw LoadError(
                "another lockr daemon\(holder.map { $0.isEmpty ? "" : " (pid \($0))" } ?? "") is using the state "
                    + "directory \(directory); stop it first, or give this one another --state-dir")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    /// Lets another daemon take the directory.
    func release() {
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }
}
