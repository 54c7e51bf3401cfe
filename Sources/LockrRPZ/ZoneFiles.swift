import DNSProxy
import DNSWire
import Foundation
import PlainText

/// Each zone written into a directory as a zone file, `<zone>.rpz`, for resolvers that read RPZ
/// from a file (Knot Resolver's `policy.rpz`, which watches it). A file is written beside its place
/// and renamed over it, so a reader sees the old version or the new one, never half of either.
struct ZoneFiles: Sendable {
    let directory: String
    /// The suffix of the zones' names, so that only lockr's own files are ever removed.
    let zoneSuffix: String

    /// The file of the zone named `origin`.
    func path(of origin: [UInt8]) -> String {
        directory + "/" + WireName.presentation(of: origin) + ".rpz"
    }

    /// Writes `zone`'s file; throws the system's reason.
    func write(_ zone: ServedZone) throws(ZoneFileError) {
        let path = path(of: zone.origin)
        let temporary = directory + "/." + WireName.presentation(of: zone.origin) + ".rpz.tmp"
        let bytes = Array(zone.zoneFile.utf8)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ZoneFileError(path: temporary, errno: errno) }
        // Readable by the resolver's user, whatever lockr's umask (the service's is 0077).
        fchmod(descriptor, 0o644)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else {
                let failure = ZoneFileError(path: temporary, errno: errno)
                close(descriptor)
                unlink(temporary)
                throw failure
            }
            written += count
        }
        let synced = fsync(descriptor) == 0
        let failure = ZoneFileError(path: temporary, errno: errno)
        close(descriptor)
        guard synced else {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let failure = ZoneFileError(path: path, errno: errno)
            unlink(temporary)
            throw failure
        }
    }

    /// Removes lockr's files (`*.<zoneSuffix>.rpz`) of zones not in `origins`: people gone.
    func removeAllBut(_ origins: Set<[UInt8]>) {
        let kept = Set(origins.map { PlainText.lastPathComponent(path(of: $0)) })
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for name in names where name.hasSuffix("." + zoneSuffix + ".rpz") && !kept.contains(name) {
            unlink(directory + "/" + name)
        }
    }
}

/// A zone file that could not be written, in the system's words.
struct ZoneFileError: Error, CustomStringConvertible {
    let path: String
    let reason: String

    init(path: String, errno code: Int32) {
        self.path = path
        reason = String(cString: strerror(code)).lowercased()
    }

    var description: String { "cannot write the zone file \(path): \(reason)" }
}
