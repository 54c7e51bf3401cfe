import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Tells the service manager (systemd's `Type=notify`) how the daemon is doing, over the datagram
/// socket `NOTIFY_SOCKET` names (a path, or an abstract name starting with `@`): `READY=1` once it
/// answers, `WATCHDOG=1` while it is healthy, `STOPPING=1` as it stops. Without `NOTIFY_SOCKET`
/// (not started by systemd) it says nothing. See sd_notify(3).
struct ServiceManagerNotifier: Sendable {
    /// The socket's address, as `NOTIFY_SOCKET` gives it.
    let socketPath: String
    /// How often the service manager wants to hear `WATCHDOG=1`; nil when it watches for none
    /// (`WATCHDOG_USEC` unset, or meant for another process by `WATCHDOG_PID`).
    let watchdogInterval: Duration?

    /// The notifier `environment` asks for, if any.
    init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        socketPath = path
        let forUs = environment["WATCHDOG_PID"].map { $0 == String(getpid()) } ?? true
        watchdogInterval = forUs ? environment["WATCHDOG_USEC"].flatMap(Int64.init).map { .microseconds($0) } : nil
    }

    /// Sends `state` ("READY=1", "STATUS=..."); false when it could not be sent. While the
    /// manager's queue is full, it tries again for up to `patience` (for a change of state, which
    /// the manager must hear), then drops the message: a manager that does not read holds lockr up,
    /// its shutdown included, no longer than that.
    @discardableResult
    func send(_ state: String, patience: Duration = .zero) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        // An abstract socket's name starts with a zero byte where the text has `@`.
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.enumerated() { bytes[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        let message = Array(state.utf8)
        let deadline = ContinuousClock.now + patience
        while true {
            let sent = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    message.withUnsafeBytes { bytes in
                        sendto(
                            descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT),
                            socketAddress, length)
                    }
                }
            }
            if sent == message.count { return true }
            guard sent < 0, errno == EAGAIN || errno == EWOULDBLOCK, ContinuousClock.now < deadline else {
                return false
            }
            usleep(20_000)
        }
    }

    /// How long a change of state (ready, stopping) waits for room in a full queue.
    static let stateChangePatience = Duration.seconds(2)
}
