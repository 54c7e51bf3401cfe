#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that could not be read, with the system's reason.
public struct FileReadError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let reason: String
    public var description: String { "cannot read \(path): \(reason)" }
}

/// Reads a whole file into memory in one allocation.
public func readFileBytes(_ path: String) throws(FileReadError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
        throw FileReadError(path: path, reason: String(cString: strerror(errno)))
    }
    guard info.st_mode & S_IFMT == S_IFREG else { throw FileReadError(path: path, reason: "not a regular file") }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var filled = 0
    while filled < bytes.count {
        let got = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, $0.count - filled) }
        if got < 0, errno == EINTR { continue }
        guard got >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
        if got == 0 { break }
        filled += got
    }
    if filled < bytes.count { bytes.removeSubrange(filled...) }
    return bytes
}
