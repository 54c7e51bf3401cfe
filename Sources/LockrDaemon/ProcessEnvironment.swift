import Foundation

/// Facts about the running process that defaults depend on.
public enum ProcessEnvironment {
    public static var current: [String: String] { ProcessInfo.processInfo.environment }
    public static var isRoot: Bool { geteuid() == 0 }

    /// The user's home directory from the user database (not HOME).
    public static func homeDirectory() -> String? {
        guard let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir else { return nil }
        let path = String(cString: directory)
        return path.hasPrefix("/") ? path : nil
    }
}
