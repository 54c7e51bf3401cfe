import CDBus

/// Why a notification could not be shown: no session bus, no notification server, or its answer.
public struct NotificationError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

/// The desktop session's notification server (`org.freedesktop.Notifications` on the session bus
/// that `DBUS_SESSION_BUS_ADDRESS` names), over a D-Bus connection of its own. Not for use from
/// several threads at once.
public final class DesktopNotifications {
    public enum Urgency: UInt8, Sendable {
        case low = 0
        case normal = 1
        /// Stays until dismissed, on most desktops.
        case critical = 2
    }

    /// The name notifications are shown under.
    public let appName: String
    private var dbus: lockr_dbus_library
    private let connection: OpaquePointer
    /// How long to wait for the server's answer.
    private static let timeoutMilliseconds: Int32 = 5000

    /// Connects to the session bus; throws when there is none (not in a desktop session) or libdbus
    /// cannot be loaded.
    public init(appName: String = "lockr") throws(NotificationError) {
        self.appName = appName
        dbus = try LibDBus.library.get().functions
        var error = lockr_dbus_error()
        dbus.dbus_error_init(&error)
        guard let connection = lockr_dbus_session(&dbus, &error) else {
            throw Self.failure(&error, dbus: dbus, doing: "cannot reach the desktop session's bus")
        }
        self.connection = connection
    }

    deinit {
        dbus.dbus_connection_close(connection)
        dbus.dbus_connection_unref(connection)
    }

    /// Shows a notification (its `summary` line and `body`), in place of the one `replacing` names
    /// (0: a new one); its id, to replace it later.
    @discardableResult
    public func show(
        summary: String, body: String, urgency: Urgency = .normal, replacing: UInt32 = 0
    )
        throws(NotificationError) -> UInt32
    {
        var error = lockr_dbus_error()
        dbus.dbus_error_init(&error)
        var id: UInt32 = 0
        // Text from the daemon is valid UTF-8; a NUL, which D-Bus strings cannot hold, ends it.
        let result = appName.withCString { app in
            summary.withCString { summary in
                body.withCString { body in
                    lockr_dbus_notify(
                        &dbus, connection, app, replacing, summary, body, urgency.rawValue, -1,
                        Self.timeoutMilliseconds, &id, &error)
                }
            }
        }
        guard result == 0 else {
            throw Self.failure(&error, dbus: dbus, doing: "the desktop's notification server did not take it")
        }
        return id
    }

    private static func failure(
        _ error: inout lockr_dbus_error, dbus: lockr_dbus_library, doing what: String
    )
        -> NotificationError
    {
        defer { dbus.dbus_error_free(&error) }
        guard dbus.dbus_error_is_set(&error) != 0, let message = error.message else {
            return NotificationError(description: what)
        }
        return NotificationError(description: "\(what): \(String(cString: message))")
    }
}

/// libdbus, loaded when the first notification is to be shown.
enum LibDBus {
    struct Library: @unchecked Sendable {
        var functions = lockr_dbus_library()
    }

    /// Debian's libdbus-1-3.
    static let file = "libdbus-1.so.3"

    /// The functions, or in words why the library could not be loaded.
    static let library = load(file)

    /// The functions of the library `file`, or in words why it could not be loaded.
    static func load(_ file: String) -> Result<Library, NotificationError> {
        var library = Library()
        var reason = [CChar](repeating: 0, count: 512)
        guard lockr_dbus_load(file, &library.functions, &reason, reason.count) == 0 else {
            let words = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(
                NotificationError(
                    description: "desktop notifications need libdbus (\(words); apt-get install libdbus-1-3)"))
        }
        return .success(library)
    }
}
