import Foundation

/// Facts about the running process that defaults depend on.
public enum ProcessEnvironment {
    public static var current: [String: String] { ProcessInfo.processInfo.environment }
    public static var isRoot: Bool { geteuid() == 0 }
}
