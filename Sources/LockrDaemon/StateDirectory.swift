import Foundation

/// The directory where lockr keeps its state. It is made (mode 0700, parents too) at start, so that
/// a path that cannot be used fails at once with a clear message rather than later.
enum StateDirectory {
    static func prepare(_ path: String) throws(LoadError) {
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
    }
}
